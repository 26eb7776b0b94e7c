/**
 * Realtime WebSocket messages: which event style (v1 or v2) a model speaks, the `session.update` and
 * other client events checked for that style, and Schemas of the server events a client reads.
 */
import { Effect, Either, Schema } from "effect"
import { DecodeError } from "../errors/GatewayError.js"
import { decodeWith, type DecodeOptions, parseJsonText } from "../wire/WireJson.js"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { realtimeStyles } from "../gateway/Routing.js"
import { guardReads, sendable, sendableResult } from "../validation/Closed.js"
import { type Json, array, at, describe, fail, notAllowed, number, oneOf, optional, passthrough, record, sanitize, string } from "../validation/Rules.js"

/** The two realtime event styles: v1 (flat session, `modalities`) and v2 (`session.type: "realtime"`). @category models */
export type RealtimeVersion = "v1" | "v2"

/**
 * Realtime models and their event style, read from the one model catalog (`defaultRouteCatalog`).
 * Extend it by passing `{ ...realtimeModels, id: "v2" }`.
 * @category models
 */
export const realtimeModels: Readonly<Record<string, RealtimeVersion>> = realtimeStyles()

/** The event style of a realtime model; an unknown model is an `InvalidRequest` listing the known ones. @category routing */
export const realtimeVersion = (
  model: unknown,
  models: Readonly<Record<string, RealtimeVersion>> = realtimeModels
): Effect.Effect<RealtimeVersion, InvalidRequest> => {
  if (typeof model === "string" && Object.hasOwn(models, model)) return Effect.succeed(models[model]!)
  return notAllowed("model", model, Object.keys(models), "realtime")
}

// v1 session fields that v2 moved, and where to (the message tells the caller what to write instead).
const movedInV2: Readonly<Record<string, string>> = {
  voice: "audio.output.voice",
  speed: "audio.output.speed",
  input_audio_format: "audio.input.format",
  output_audio_format: "audio.output.format",
  input_audio_transcription: "audio.input.transcription",
  turn_detection: "audio.input.turn_detection",
  input_audio_noise_reduction: "audio.input.noise_reduction",
  max_response_output_tokens: "max_output_tokens",
  temperature: "(nothing: v2 has no temperature)"
}

// v2 fields that v1 spells differently.
const v2Only: Readonly<Record<string, string>> = {
  type: "(nothing: v1 sessions carry no type)",
  output_modalities: "modalities",
  audio: "voice, input_audio_format, output_audio_format, turn_detection, …",
  max_output_tokens: "max_response_output_tokens"
}

const modalityValues = ["text", "audio"] as const

const checkRenames = (
  obj: Json,
  path: string,
  renames: Readonly<Record<string, string>>,
  version: RealtimeVersion,
  skip: ReadonlyArray<string> = []
): Effect.Effect<void, InvalidRequest> => {
  for (const key of Object.keys(renames)) {
    if (skip.includes(key) || optional(obj, key) === undefined) continue
    const field = at(path, key)
    return fail(field, "wrong-version", `${field} is not part of realtime ${version}; use ${renames[key]} instead`)
  }
  return Effect.void
}

const modalities = (value: unknown, field: string, exactlyOne: boolean): Effect.Effect<ReadonlyArray<string>, InvalidRequest> =>
  Effect.gen(function* () {
    const list = yield* array(value, field, { nonEmpty: true, maxItems: exactlyOne ? 1 : 2 })
    const out: Array<string> = []
    for (const [i, m] of list.entries()) {
      const v = yield* oneOf(m, at(field, i), modalityValues)
      if (out.includes(v)) return yield* fail(at(field, i), "unique", `${at(field, i)}: ${describe(v)} is listed twice`)
      out.push(v)
    }
    return out
  })

/**
 * The output modalities of a v1-style or v2-style config, translated for `version`. For v2, a v1
 * `modalities` is translated to `output_modalities` only when it names one modality (unambiguous);
 * `["text", "audio"]` is refused, because v2 takes exactly one (`["audio"]` includes the transcript).
 */
const outputModalities = (obj: Json, path: string, version: RealtimeVersion): Effect.Effect<Record<string, unknown>, InvalidRequest> =>
  Effect.gen(function* () {
    const v1 = optional(obj, "modalities")
    const v2 = optional(obj, "output_modalities")
    if (version === "v1") return v1 === undefined ? {} : { modalities: yield* modalities(v1, at(path, "modalities"), false) }
    if (v1 !== undefined && v2 !== undefined)
      return yield* fail(at(path, "modalities"), "wrong-version", `${at(path, "modalities")} is not part of realtime v2; give output_modalities only`)
    if (v2 !== undefined) return { output_modalities: yield* modalities(v2, at(path, "output_modalities"), true) }
    if (v1 === undefined) return {}
    const list = yield* modalities(v1, at(path, "modalities"), false)
    if (list.length !== 1)
      return yield* fail(
        at(path, "modalities"),
        "wrong-version",
        `${at(path, "modalities")}: ${describe(v1)} cannot be sent to realtime v2, which takes output_modalities ` +
          "with exactly one of text, audio (audio includes its transcript)"
      )
    return { output_modalities: list }
  })

/** A `session.update` client event, v1 or v2 shape; fields beyond those checked pass through. @category schemas */
export const RealtimeSessionUpdate = Schema.Struct({
  type: Schema.Literal("session.update"),
  event_id: Schema.optional(Schema.String),
  session: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})
/** @category models */
export type RealtimeSessionUpdate = typeof RealtimeSessionUpdate.Type

const checkSession = (session: Json, path: string, version: RealtimeVersion): Effect.Effect<Record<string, unknown>, InvalidRequest> =>
  Effect.gen(function* () {
    const rest = sanitize(passthrough(session, ["modalities", "output_modalities", "type"])) as Record<string, unknown>
    if (version === "v1") {
      yield* checkRenames(session, path, v2Only, "v1")
      return { ...rest, ...(yield* outputModalities(session, path, "v1")) }
    }
    yield* checkRenames(session, path, movedInV2, "v2")
    const type = optional(session, "type")
    if (type !== undefined) yield* oneOf(type, at(path, "type"), ["realtime"], "realtime v2 session.update")
    return { type: "realtime", ...rest, ...(yield* outputModalities(session, path, "v2")) }
  })

/**
 * Builds the `session.update` event for the model's style: v1 `{type, session: {modalities, …}}`
 * (flat, no `session.type`), v2 `{type, session: {type: "realtime", output_modalities?, …}}` (never
 * `modalities`). Fields of the other style are refused with a message naming the right field.
 * @category constructors
 */
export const buildSessionUpdate = (
  model: unknown,
  session: unknown,
  models: Readonly<Record<string, RealtimeVersion>> = realtimeModels
): Effect.Effect<RealtimeSessionUpdate, InvalidRequest> =>
  sendableResult(guardReads(Effect.gen(function* () {
    yield* sendable(model, "model")
    yield* sendable(session, "")
    const version = yield* realtimeVersion(model, models)
    const obj = yield* record(session ?? {}, "session")
    return { type: "session.update" as const, session: yield* checkSession(obj, "session", version) }
  })))

const v1ClientEventTypes: ReadonlyArray<string> = [
  "session.update",
  "transcription_session.update",
  "input_audio_buffer.append",
  "input_audio_buffer.commit",
  "input_audio_buffer.clear",
  "output_audio_buffer.clear",
  "conversation.item.create",
  "conversation.item.retrieve",
  "conversation.item.truncate",
  "conversation.item.delete",
  "response.create",
  "response.cancel"
]

/**
 * The client event types of each style (protocol-notes §4.3): v2 has every v1 event but
 * `transcription_session.update` (a `session.update` with `type: "transcription"` replaces it).
 * @category models
 */
export const realtimeClientEventTypes: Readonly<Record<RealtimeVersion, ReadonlyArray<string>>> = {
  v1: v1ClientEventTypes,
  v2: v1ClientEventTypes.filter((type) => type !== "transcription_session.update")
}

const requiredField = (obj: Json, key: string) =>
  optional(obj, key) === undefined ? fail(key, "required", `${key} is required`) : Effect.succeed(obj[key])

/**
 * Validates one client event for the model's style: a known `type`, its required fields
 * (`audio`, `item`, `item_id`, `content_index`, `audio_end_ms`, …) and, for `session.update` and
 * `response.create`, the v1/v2 field names. Returns the event sanitized (unsafe keys dropped).
 * @category constructors
 */
export const validateRealtimeClientEvent = (
  model: unknown,
  event: unknown,
  models: Readonly<Record<string, RealtimeVersion>> = realtimeModels
): Effect.Effect<Json, InvalidRequest> =>
  guardReads(Effect.gen(function* () {
    yield* sendable(model, "model")
    yield* sendable(event, "")
    const version = yield* realtimeVersion(model, models)
    const obj = yield* record(event, "")
    const type = yield* oneOf(optional(obj, "type"), "type", realtimeClientEventTypes[version], `realtime ${version}`)
    const eventId = optional(obj, "event_id")
    if (eventId !== undefined) yield* string(eventId, "event_id")
    const out = sanitize(obj) as Record<string, unknown>
    switch (type) {
      case "session.update":
        out.session = yield* checkSession(yield* record(yield* requiredField(obj, "session"), "session"), "session", version)
        break
      case "transcription_session.update":
        yield* record(yield* requiredField(obj, "session"), "session")
        break
      case "input_audio_buffer.append":
        yield* string(yield* requiredField(obj, "audio"), "audio", { nonEmpty: true })
        break
      case "conversation.item.create": {
        yield* record(yield* requiredField(obj, "item"), "item")
        const previous = optional(obj, "previous_item_id")
        if (previous !== undefined) yield* string(previous, "previous_item_id")
        break
      }
      case "conversation.item.retrieve":
      case "conversation.item.delete":
        yield* string(yield* requiredField(obj, "item_id"), "item_id", { nonEmpty: true })
        break
      case "conversation.item.truncate":
        yield* string(yield* requiredField(obj, "item_id"), "item_id", { nonEmpty: true })
        yield* number(yield* requiredField(obj, "content_index"), "content_index", { integer: true, min: 0 })
        yield* number(yield* requiredField(obj, "audio_end_ms"), "audio_end_ms", { integer: true, min: 0 })
        break
      case "response.create": {
        const response = optional(obj, "response")
        if (response === undefined) break
        const r = yield* record(response, "response")
        const rest = sanitize(passthrough(r, ["modalities", "output_modalities"])) as Record<string, unknown>
        if (version === "v1") yield* checkRenames(r, "response", v2Only, "v1", ["type"])
        else yield* checkRenames(r, "response", movedInV2, "v2")
        out.response = { ...rest, ...(yield* outputModalities(r, "response", version)) }
        break
      }
      case "response.cancel": {
        const id = optional(obj, "response_id")
        if (id !== undefined) yield* string(id, "response_id")
        break
      }
    }
    return out
  }))

// ---- server events -------------------------------------------------------------------------------

const Extra = Schema.Record({ key: Schema.String, value: Schema.Unknown })
const OptString = Schema.optional(Schema.NullOr(Schema.String))

/** `session.created` / `session.updated`: the session as the server now holds it. @category schemas */
export const RealtimeSessionEvent = Schema.Struct(
  { type: Schema.Literal("session.created", "session.updated"), event_id: OptString, session: Extra },
  Extra
)

/** `error`: the session stays open; `error.event_id` names the client event that caused it. @category schemas */
export const RealtimeErrorEvent = Schema.Struct(
  {
    type: Schema.Literal("error"),
    event_id: OptString,
    error: Schema.Struct(
      { type: Schema.String, message: Schema.String, code: OptString, param: OptString, event_id: OptString },
      Extra
    )
  },
  Extra
)

/** `response.created` / `response.done` with the response object (`id`, `status`, `output`, `usage`, …). @category schemas */
export const RealtimeResponseEvent = Schema.Struct(
  {
    type: Schema.Literal("response.created", "response.done"),
    event_id: OptString,
    response: Schema.Struct({ id: Schema.optional(Schema.String), status: Schema.optional(Schema.String) }, Extra)
  },
  Extra
)

/** The delta events of both styles (text, audio as base64, audio transcript). @category models */
export const realtimeDeltaTypes = {
  text: ["response.text.delta", "response.output_text.delta"],
  audio: ["response.audio.delta", "response.output_audio.delta"],
  transcript: ["response.audio_transcript.delta", "response.output_audio_transcript.delta"]
} as const

/** A text, audio or transcript delta (v1 or v2 name). @category schemas */
export const RealtimeDeltaEvent = Schema.Struct(
  {
    type: Schema.Literal(...realtimeDeltaTypes.text, ...realtimeDeltaTypes.audio, ...realtimeDeltaTypes.transcript),
    event_id: OptString,
    response_id: Schema.optional(Schema.String),
    item_id: Schema.optional(Schema.String),
    output_index: Schema.optional(Schema.Number),
    content_index: Schema.optional(Schema.Number),
    delta: Schema.String
  },
  Extra
)

/** The end of a text part (`text`), v1 or v2 name. @category schemas */
export const RealtimeTextDoneEvent = Schema.Struct(
  { type: Schema.Literal("response.text.done", "response.output_text.done"), event_id: OptString, text: Schema.String },
  Extra
)

/** The end of an audio transcript (`transcript`), v1 or v2 name. @category schemas */
export const RealtimeTranscriptDoneEvent = Schema.Struct(
  {
    type: Schema.Literal("response.audio_transcript.done", "response.output_audio_transcript.done"),
    event_id: OptString,
    transcript: Schema.String
  },
  Extra
)

/** The end of an audio part, v1 or v2 name. @category schemas */
export const RealtimeAudioDoneEvent = Schema.Struct(
  { type: Schema.Literal("response.audio.done", "response.output_audio.done"), event_id: OptString },
  Extra
)

const knownServerTypes: ReadonlySet<string> = new Set([
  ...RealtimeSessionEvent.fields.type.literals,
  ...RealtimeErrorEvent.fields.type.literals,
  ...RealtimeResponseEvent.fields.type.literals,
  ...RealtimeDeltaEvent.fields.type.literals,
  ...RealtimeTextDoneEvent.fields.type.literals,
  ...RealtimeTranscriptDoneEvent.fields.type.literals,
  ...RealtimeAudioDoneEvent.fields.type.literals
])

/** Any other server event (`conversation.item.added`, `rate_limits.updated`, …), kept whole. @category schemas */
export const RealtimeOtherEvent = Schema.Struct(
  { type: Schema.String.pipe(Schema.filter((t) => !knownServerTypes.has(t), { message: () => "a known event type with the wrong fields" })) },
  Extra
)

/** Every realtime server event a client reads, v1 and v2 names, with a catch-all for the rest. @category schemas */
export const RealtimeServerEvent = Schema.Union(
  RealtimeSessionEvent,
  RealtimeErrorEvent,
  RealtimeResponseEvent,
  RealtimeDeltaEvent,
  RealtimeTextDoneEvent,
  RealtimeTranscriptDoneEvent,
  RealtimeAudioDoneEvent,
  RealtimeOtherEvent
)
/** @category models */
export type RealtimeServerEvent = typeof RealtimeServerEvent.Type

const decodeEvent = decodeWith(RealtimeServerEvent, "realtime", "realtime server event")

/**
 * Decodes one server frame (JSON text or an already parsed object). A known type with wrong fields
 * is a `DecodeError`; an unknown type is kept whole. Never throws.
 * @category decoding
 */
export const decodeRealtimeServerEvent = (frame: unknown, options?: DecodeOptions): Effect.Effect<RealtimeServerEvent, DecodeError> =>
  Effect.suspend(() =>
    typeof frame === "string"
      ? Either.flatMap(parseJsonText(frame, "realtime", "realtime server event", options), (json) => decodeEvent(json, options))
      : decodeEvent(frame, options)
  )

const deltaOf = (event: RealtimeServerEvent, types: ReadonlyArray<string>): string | undefined =>
  types.includes(event.type) && "delta" in event && typeof event.delta === "string" ? event.delta : undefined

/** The text delta of `response.text.delta` (v1) or `response.output_text.delta` (v2); else `undefined`. @category accessors */
export const realtimeTextDelta = (event: RealtimeServerEvent): string | undefined => deltaOf(event, realtimeDeltaTypes.text)

/** The base64 audio delta of either style's audio delta event; else `undefined`. @category accessors */
export const realtimeAudioDelta = (event: RealtimeServerEvent): string | undefined => deltaOf(event, realtimeDeltaTypes.audio)

/** The transcript delta of either style's audio transcript delta event; else `undefined`. @category accessors */
export const realtimeTranscriptDelta = (event: RealtimeServerEvent): string | undefined => deltaOf(event, realtimeDeltaTypes.transcript)
