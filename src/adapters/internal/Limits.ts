/**
 * The bounds on everything umg reads from outside, in one place, with their defaults. They cover
 * answers, error bodies, decompressed bytes, downloads, SSE lines, events and whole streams,
 * WebSocket frames and what waits for a slow reader, JSON nesting, redirects and the waits that have
 * no other timeout.
 * Every reader takes its bound from here.
 */
import * as Result from "effect/Result"
import { type SettingRange, settingOr, timeLimit } from "../../core/validation/Setting.js"

/** What a user may override; every field is optional. @category models */
export interface LimitsInput {
  /** Largest JSON answer body, after decompression (default 32 MiB). */
  readonly maxResponseBytes?: number | undefined
  /** Largest non-2xx body read for an error; the rest is discarded (default 64 KiB). */
  readonly maxErrorBodyBytes?: number | undefined
  /** Largest binary answer (speech audio, E3 video download) after decompression (default 512 MiB). */
  readonly maxDownloadBytes?: number | undefined
  /** Longest SSE line and largest pending SSE event (default 8 MiB). */
  readonly maxSseEventBytes?: number | undefined
  /**
   * Most event data of one streamed answer (SSE), in UTF-16 code units of the events' `data`, every
   * event counted, keep-alives too (default 256 MiB): the answer keeps what it folds, so a stream that
   * never ends would grow without bound. Past it, reading stops with a `TransportError` (`too-large`).
   */
  readonly maxStreamBytes?: number | undefined
  /**
   * Largest WebSocket message accepted (default 16 MiB); a larger one closes the session with 1009
   * (4009 from a browser, whose `WebSocket` may not send 1009).
   */
  readonly maxFrameBytes?: number | undefined
  /** Most WebSocket messages accepted per second (default 5,000); more closes the session with 1008 (4008 from a browser). */
  readonly maxFramesPerSecond?: number | undefined
  /**
   * Most bytes of WebSocket messages waiting for a reader that does not keep up (default four times
   * `maxFrameBytes`, 64 MiB); more fails the session and closes it with 1008 (4008 from a browser). One
   * message is always taken when none waits, so a bound below `maxFrameBytes` still lets each through.
   */
  readonly maxPendingBytes?: number | undefined
  /**
   * Deepest JSON nesting accepted in an answer (default 64, checked as soon as it is parsed); deeper is
   * a DecodeError. It can be lowered, to 1 at least; the decoders never accept more than 64 levels.
   */
  readonly maxJsonDepth?: number | undefined
  /** Most redirects followed for one request (default 5). */
  readonly maxRedirects?: number | undefined
  /** Time limit of a WebSocket opening handshake (default 15 s). */
  readonly webSocketHandshakeTimeoutMs?: number | undefined
}

/** The bounds in force, every default applied. @category models */
export type Limits = { readonly [K in keyof LimitsInput]-?: number }

/** The defaults. @category constructors */
export const defaultLimits: Limits = {
  maxResponseBytes: 32 * 1024 * 1024,
  maxErrorBodyBytes: 64 * 1024,
  maxDownloadBytes: 512 * 1024 * 1024,
  maxSseEventBytes: 8 * 1024 * 1024,
  maxStreamBytes: 256 * 1024 * 1024,
  maxFrameBytes: 16 * 1024 * 1024,
  maxFramesPerSecond: 5_000,
  maxPendingBytes: 4 * 16 * 1024 * 1024,
  maxJsonDepth: 64,
  maxRedirects: 5,
  webSocketHandshakeTimeoutMs: 15_000
}

const count = (min: number, max = Number.MAX_SAFE_INTEGER): SettingRange => ({ min, max, whole: true })

/** What each bound allows: a whole number of bytes, messages or levels from 1, redirects from 0 (none followed). */
const ranges: { readonly [K in keyof Limits]: SettingRange } = {
  maxResponseBytes: count(1),
  maxErrorBodyBytes: count(1),
  maxDownloadBytes: count(1),
  maxSseEventBytes: count(1),
  maxStreamBytes: count(1),
  maxFrameBytes: count(1),
  maxFramesPerSecond: count(1),
  maxPendingBytes: count(1),
  maxJsonDepth: count(1, 64),
  maxRedirects: count(0),
  webSocketHandshakeTimeoutMs: timeLimit
}

/** Defaults that follow another bound the user may have set: the pending bytes follow the frame size. */
const derivedDefault = (key: keyof Limits, out: Readonly<Record<string, number>>): number =>
  key === "maxPendingBytes"
    ? Math.min(4 * (out.maxFrameBytes ?? defaultLimits.maxFrameBytes), Number.MAX_SAFE_INTEGER)
    : defaultLimits[key]

/**
 * Applies the defaults to a user's bounds. Throws `InvalidRequest` (rule `range`, field
 * `limits.<name>`) for a bound outside what it allows; before, such a bound was silently replaced by
 * its default.
 * @category constructors
 */
export const makeLimits = (input: LimitsInput | undefined): Limits => {
  const out: Record<string, number> = { ...defaultLimits }
  // `ranges` lists `maxFrameBytes` before `maxPendingBytes`, so a derived default sees the user's frame bound.
  for (const key of Object.keys(ranges) as Array<keyof Limits>) {
    const checked = settingOr(`limits.${key}`, input?.[key], ranges[key], derivedDefault(key, out))
    if (Result.isFailure(checked)) throw checked.failure
    out[key] = checked.success
  }
  return out as Limits
}
