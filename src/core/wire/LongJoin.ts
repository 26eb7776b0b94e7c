/**
 * Joins the pieces of one long line (a base64 image event cut by the network, say) into one string,
 * through a reused byte buffer and one `TextDecoder` call rather than `Array.prototype.join`.
 * Internal: the SSE parser's pending line goes through it.
 *
 * Why: a joined string this long lands in V8's large-object space, in freshly mapped memory whose
 * every page is faulted in on first write (on a small VM, 5–10 µs a page: the join of a 1.3 MB line
 * costs about 5 ms, nearly all of it faults). Encoding the pieces into a buffer kept from one line
 * to the next touches no new memory, and Node makes the string of a decoding this large external
 * (its memory from `malloc`, reused): about 1.5 ms for the same line there. On a machine whose page
 * faults are cheap the join is faster, which is why only long lines come here (see `LONG_JOIN`).
 *
 * Exact for well-formed text only: `TextEncoder` turns a lone surrogate into U+FFFD. Text decoded
 * from bytes is always well-formed; the caller keeps lines that hold text fed as strings away.
 */

/**
 * The fewest UTF-16 code units a line must hold to be joined here: from about this size on (1 MB
 * of UTF-16) Node makes a decoded string external; below it the decoded string would be a
 * large-object string all the same, and twice as big as the join's when the text is ASCII.
 */
export const LONG_JOIN = 512 * 1024

/** The largest buffer kept for the next long line: a larger one is let go after use. */
const KEPT_BYTES = 4 * 1024 * 1024

let kept: Uint8Array | undefined
let encoder: TextEncoder | undefined
let decoder: TextDecoder | undefined

/** The pieces, well-formed text holding `units` code units in all, as one string. */
export const joinLong = (pieces: ReadonlyArray<string>, units: number): string => {
  encoder ??= new TextEncoder()
  if (decoder === undefined) {
    decoder = new TextDecoder("utf-8", { ignoreBOM: true })
    // One streaming call puts Node's decoder on its ICU path for good, whose large results are external.
    decoder.decode(new Uint8Array(0), { stream: true })
  }
  // A unit is at least one byte; more are made room for when the text is not ASCII.
  let bytes = kept !== undefined && kept.length >= units ? kept : new Uint8Array(units + (units >>> 4))
  kept = undefined
  let at = 0
  for (let i = 0; i < pieces.length; i++) {
    let rest = pieces[i]!
    for (;;) {
      const done = encoder.encodeInto(rest, at === 0 ? bytes : bytes.subarray(at))
      at += done.written
      if (done.read === rest.length) break
      rest = rest.slice(done.read)
      const grown = new Uint8Array(bytes.length * 2)
      grown.set(bytes.subarray(0, at))
      bytes = grown
    }
  }
  const text = decoder.decode(bytes.subarray(0, at))
  if (bytes.length <= KEPT_BYTES) kept = bytes
  return text
}
