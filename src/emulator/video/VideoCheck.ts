/**
 * The outcome of the emulator's check of a video submit body, and the bounds every family's check
 * shares. An outcome is accepted, or a rejection with its status and error fields; the generic and
 * the delta checks depend on this file and not on each other.
 */

/** The four video families. */
export type VideoFamily = "alpha" | "beta" | "gamma" | "delta"

/** Longest prompt accepted; the contract does not give one, so a generous bound. */
export const MAX_PROMPT_CHARS = 10_000
/** Longest media string (URL or base64 data URL) accepted. */
export const MAX_MEDIA_CHARS = 20_000_000

/** A rejected body: the HTTP status and the OpenAI-style error fields. */
export interface VideoRejection {
  readonly status: number
  readonly message: string
  readonly param: string | null
  readonly code: string | null
}

/** An accepted body: what the task store needs to know. */
export interface AcceptedVideo {
  readonly model: string
  readonly family: VideoFamily
  /** The text the content rule looks at (prompt or delta text item). */
  readonly prompt: string
}

/** The outcome of checking a submit body. */
export type VideoCheck =
  { readonly ok: true; readonly value: AcceptedVideo } | ({ readonly ok: false } & VideoRejection)

/** Builds a 400 rejection for `param`. */
export const invalid = (param: string | null, message: string, code: string | null = "invalid_value"): VideoCheck => ({
  ok: false,
  status: 400,
  message,
  param,
  code
})
