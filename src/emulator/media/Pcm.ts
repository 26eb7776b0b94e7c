/** Deterministic speech-like audio as raw PCM16 (mono, little-endian), what realtime and live sessions stream. */

/** Output sample rate of both realtime and live audio. */
export const PCM_RATE = 24_000

/**
 * `ms` milliseconds of a soft tone whose pitch follows `seed` (one seed per word, so a reply sounds
 * like a sequence of syllables), faded in and out so chunks join without clicks.
 */
export const pcmTone = (seed: number, ms: number, rate = PCM_RATE): Buffer => {
  const samples = Math.max(0, Math.round((rate * ms) / 1000))
  const out = Buffer.alloc(samples * 2)
  const freq = 180 + (seed % 220)
  const fade = Math.min(samples / 2, rate * 0.01)
  for (let i = 0; i < samples; i++) {
    const env = Math.min(1, i / fade, (samples - 1 - i) / fade)
    out.writeInt16LE(Math.round(Math.sin((2 * Math.PI * freq * i) / rate) * 6000 * Math.max(0, env)), i * 2)
  }
  return out
}
