/** The text-to-speech body (E14) checked before sending, and the content type of each audio format it returns. */
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { ensureRoute } from "../gateway/Routing.js"
import { type RoutingOptions } from "../gateway/Catalog.js"
import { type WithExtra, closedBody, buildWith, ModelId } from "../validation/Closed.js"
import { maxLength, NonBlank, range } from "../validation/FieldRules.js"

/** The six voices of E14. @category models */
export const speechVoices = ["alloy", "echo", "fable", "onyx", "nova", "shimmer"] as const
/** @category models */
export type SpeechVoice = (typeof speechVoices)[number]

/** The six audio formats of E14; `mp3` is the gateway's default. @category models */
export const speechFormats = ["mp3", "opus", "aac", "flac", "wav", "pcm"] as const
/** @category models */
export type SpeechFormat = (typeof speechFormats)[number]

/** The request body of `POST /v1/audio/speech` (closed: other fields go in `extra`); its rules live here. @category schemas */
export const SpeechBody = Schema.Struct({
  model: ModelId,
  /** At most 4,096 characters (code points: an emoji is one), upstream's limit. */
  input: NonBlank.pipe(maxLength(4096)),
  voice: Schema.Literals(speechVoices),
  response_format: Schema.optionalKey(Schema.Literals(speechFormats)),
  speed: Schema.optionalKey(Schema.Number.pipe(range({ min: 0.25, max: 4 }))),
  /** Voice instructions (upstream `gpt-4o-mini-tts`). */
  instructions: Schema.optionalKey(Schema.String)
})
/** @category models */
export type SpeechBody = typeof SpeechBody.Type
/** A speech body as callers write it, with the `extra` escape hatch. @category models */
export type SpeechBodyInput = WithExtra<SpeechBody>

const speechBody = closedBody(SpeechBody, "a speech body")

/**
 * Validates a speech request: `model` a speech model of the catalog, then the Schema's rules:
 * non-empty `input` of at most 4,096 characters, one of the six voices, one of the six formats,
 * `speed` from 0.25 to 4.0.
 * Absent `response_format` and `speed` stay absent (the gateway defaults them to `mp3` and 1.0);
 * use `speechFormatOf(body)` for the format that will come back.
 * @category constructors
 */
export const buildSpeechBody = (
  input: unknown,
  options: RoutingOptions = {}
): Effect.Effect<SpeechBody, InvalidRequest> =>
  buildWith(() => speechBody.build(input, (model) => ensureRoute(model, "speech", options), { nameModel: false }))

/** The format a speech body will be answered in (`mp3` when it names none). @category accessors */
export const speechFormatOf = (body: Pick<SpeechBody, "response_format">): SpeechFormat => body.response_format ?? "mp3"

/**
 * The `Content-Type` of each speech format, as the upstream API labels them. `pcm` is headerless
 * 24 kHz 16-bit little-endian mono; it is labelled `audio/pcm` (the emulator uses the same table).
 * @category models
 */
export const speechContentTypes: Readonly<Record<SpeechFormat, string>> = {
  mp3: "audio/mpeg",
  opus: "audio/opus",
  aac: "audio/aac",
  flac: "audio/flac",
  wav: "audio/wav",
  pcm: "audio/pcm"
}

/** The `Content-Type` of a speech format (`audio/mpeg` for the default `mp3`). @category accessors */
export const speechContentType = (format: SpeechFormat = "mp3"): string => speechContentTypes[format]
