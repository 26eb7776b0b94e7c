/**
 * How the gateway's event streams read bytes on Node (package.json `imports` `#umg/bytes`). It
 * decodes as the core does, and searches for a line end with `Buffer#indexOf` (a `memchr`), an
 * order of magnitude faster than the core's portable search. The SSE parser searches a long line's
 * chunks with it (a base64 image's `data:` line). Browsers get `BrowserByteText.ts`.
 */
import { Buffer } from "node:buffer"
import { type ByteText, portableByteText } from "../../core/wire/ByteText.js"

const LF = 10
const CR = 13

/** The `ByteText` this platform gives the SSE parser. @category platform */
export const platformByteText: ByteText | undefined = {
  decode: portableByteText.decode,
  lineEnd: (bytes) => {
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    const lf = buffer.indexOf(LF)
    const cr = lf === -1 ? buffer.indexOf(CR) : buffer.subarray(0, lf).indexOf(CR)
    return cr === -1 ? lf : cr
  }
}
