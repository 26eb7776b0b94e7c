/** A tiny real PNG (64x64, one colour) the platform routes hand out as a "generated image". */

/** The PNG as base64 (made with `ffmpeg -f lavfi -i color=c=0x3366cc:s=64x64 -frames:v 1 -pix_fmt rgb24`). */
export const SAMPLE_PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAEAAAABACAIAAAAlC+aJAAAACXBIWXMAAAABAAAAAQBPJcTWAAAAeklEQVR4nO3PUQkAIBTAwFfJTpa1lSH8OITBAtxm7fN1wwUNaEEDWtCAFjSgBQ1oQQNa0IAWNKAFDWhBA1rQgBY0oAUNaEEDWtCAFjSgBQ1oQQNa0IAWNKAFDWhBA1rQgBY0oAUNaEEDWtCAFjSgBQ1oQQNa0IAWPHYBnX/hPDq0HjsAAAAASUVORK5CYII="
