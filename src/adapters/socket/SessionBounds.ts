/**
 * The bounds a WebSocket session checks on each server message: its size, the rate of messages, and
 * how much waits for a reader that does not keep up (messages and bytes). Past one, the session ends
 * with a typed `TransportError` and the socket closes with 1009 or 1008.
 */
import { type Family, TransportError } from "../../core/errors/GatewayError.js"

/** Server messages held for a reader that does not keep up; beyond it the session fails rather than grow without bound. @category constants */
export const maxPendingFrames = 10_000

/** A close code and the error a session ends with when the server passes a bound. @category models */
export interface Violation {
  readonly code: number
  readonly error: TransportError
}

/** The bounds of one session (`limits`); an absent one is not checked. @category models */
export interface SessionLimits {
  readonly family: Family
  readonly maxFrameBytes?: number | undefined
  readonly maxFramesPerSecond?: number | undefined
  readonly maxPendingBytes?: number | undefined
}

/** A server message past `limits.maxFrameBytes`, of `bytes` when its size is known. @category errors */
export const tooLarge = (family: Family, bytes: number | undefined, max: number | undefined): TransportError =>
  new TransportError({
    family,
    reason: "too-large",
    message: `a server message${bytes === undefined ? "" : ` of ${bytes} bytes`} is past the bound of ${max ?? "?"} bytes (limits.maxFrameBytes)`
  })

/** Node's `ws` refused a message past `maxPayload` before reading it whole (and closed the socket with 1009). @category guards */
export const isTooLarge = (cause: unknown): boolean =>
  typeof cause === "object" &&
  cause !== null &&
  (cause as { code?: unknown }).code === "WS_ERR_UNSUPPORTED_MESSAGE_LENGTH"

/**
 * The UTF-8 size of `data` when it may be past `max`, else `undefined` (no need to count): a UTF-16
 * code unit is 1 to 3 bytes, so only text between max / 3 and max code units is counted.
 */
const bytesPast = (data: string, max: number): number | undefined => {
  if (data.length > max) return data.length
  if (data.length * 3 <= max) return undefined
  let bytes = 0
  for (let i = 0; i < data.length; i++) {
    const c = data.charCodeAt(i)
    // A surrogate pair (4 bytes) is two code units of 2 bytes each here.
    bytes += c < 0x80 ? 1 : c < 0x800 || (c >= 0xd800 && c <= 0xdfff) ? 2 : 3
  }
  return bytes > max ? bytes : undefined
}

/**
 * The check run on each server message: the violation when it is larger than `maxFrameBytes` (in
 * UTF-8 bytes: the socket's count, or the text's) or the one past `maxFramesPerSecond` in a
 * one-second window, else `undefined`.
 * @category constructors
 */
export const frameBounds = (
  limits: SessionLimits
): ((data: string, bytes: number | undefined) => Violation | undefined) => {
  const maxFrameBytes = limits.maxFrameBytes ?? Infinity
  const maxFramesPerSecond = limits.maxFramesPerSecond ?? Infinity
  let windowStart = 0
  let framesInWindow = 0
  return (data, bytes) => {
    const past = bytes === undefined ? bytesPast(data, maxFrameBytes) : bytes > maxFrameBytes ? bytes : undefined
    if (past !== undefined) return { code: 1009, error: tooLarge(limits.family, past, maxFrameBytes) }
    const now = performance.now()
    if (now - windowStart >= 1000) {
      windowStart = now
      framesInWindow = 0
    }
    if (++framesInWindow > maxFramesPerSecond) {
      const message = `the server sent more than ${maxFramesPerSecond} messages in a second (limits.maxFramesPerSecond)`
      return { code: 1008, error: new TransportError({ family: limits.family, reason: "protocol", message }) }
    }
    return undefined
  }
}

/**
 * The violation when one more message of `bytes` would pass what may wait for the reader: more than
 * `maxPendingFrames` messages, or more than `maxPendingBytes` bytes. One message is always taken when
 * nothing waits (its size is bounded by `maxFrameBytes` already), so the two limits never conflict.
 * @category constructors
 */
export const backlogPast = (
  limits: SessionLimits,
  pending: { readonly frames: number; readonly bytes: number },
  bytes: number
): Violation | undefined => {
  const { family } = limits
  if (pending.frames >= maxPendingFrames) {
    const message = `more than ${maxPendingFrames} events waiting: the consumer does not keep up`
    return { code: 1008, error: new TransportError({ family, reason: "protocol", message }) }
  }
  const max = limits.maxPendingBytes ?? Infinity
  if (pending.frames > 0 && pending.bytes + bytes > max) {
    const message = `more than ${max} bytes (limits.maxPendingBytes) of server messages waiting: the consumer does not keep up`
    return { code: 1008, error: new TransportError({ family, reason: "protocol", message }) }
  }
  return undefined
}
