/**
 * Realtime WebSocket messages: which event style (v1 or v2) a model speaks, the `session.update` and
 * other client events checked for that style, and Schemas of the server events a client reads.
 */
import { Effect, Either, Schema } from "effect"
import { DecodeError } from "../errors/GatewayError.js"
import { decodeWith, type DecodeOptions, parseJsonText } from "../wire/WireJson.js"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { realtimeStyles, type RoutingOptions } from "../gateway/Catalog.js"
import { routeForCapability } from "../gateway/Routing.js"
import { extraField, fieldsOf, guardReads, readExtra, refuseUnknownFields, sendable, sendableResult, type WithExtra } from "../validation/Closed.js"
import { type Json, array, at, describe, fail, number, oneOf, optional, copyFields, record, string } from "../validation/Rules.js"
import { conform } from "../validation/Conform.js"

/** The two realtime event styles: v1 (flat session, `modalities`) and v2 (`session.type: "realtime"`). @category models */
export type RealtimeVersion = "v1" | "v2"

/**
 * Options of the realtime builders: the one model catalog (extend it with
 * `extendRouteCatalog([{ match: { exact: id }, capabilities: ["realtime"], realtime: "v2" }])`) and
 * `allowUnknownModels` (an unlisted `gpt-realtime…` id takes its entry's style).
 * @category models
 */
export type RealtimeOptions = RoutingOptions

/** Realtime models and their event style, read from the one model catalog. @category models */
export const realtimeModels: Readonly<Record<string, RealtimeVersion>> = realtimeStyles()

/**
 * The event style of a realtime model, from the catalog: a model of another family is refused naming
 * its family and endpoint, an unlisted one listing the known realtime models (unless `allowUnknownModels`).
 * @category routing
 */
export const realtimeVersion = (model: unknown, options: RealtimeOptions = {}): Effect.Effect<RealtimeVersion, InvalidRequest> =>
  Effect.map(routeForCapability(model, "realtime", options), (route) => (route.shape === "realtime-v2" ? "v2" : "v1"))

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

const Open = Schema.Record({ key: Schema.String, value: Schema.Unknown })
const opt = <S extends Schema.Schema.Any>(s: S) => Schema.optionalWith(s, { exact: true })
const Modalities = Schema.Array(Schema.Literal(...modalityValues))
const TokenCap = Schema.Union(Schema.Int, Schema.Literal("inf"))

/*
 * Closed sessions (protocol-notes §4.2): the top level of each style's session is closed. Open, as
 * upstream leaves them: transcription, turn detection and noise reduction settings, audio formats
 * (v2 objects), `tools` items, `tool_choice` objects, `tracing`, `prompt`, `reasoning`. The v2
 * `audio` object is closed at its first two levels (`input`/`output` and their members).
 */

/** The session of a realtime v1 `session.update` (flat). @category schemas */
export const RealtimeSessionV1 = Schema.Struct({
  model: opt(Schema.String),
  modalities: opt(Modalities),
  instructions: opt(Schema.String),
  voice: opt(Schema.String),
  speed: opt(Schema.Number),
  input_audio_format: opt(Schema.String),
  output_audio_format: opt(Schema.String),
  input_audio_transcription: opt(Schema.NullOr(Open)),
  turn_detection: opt(Schema.NullOr(Open)),
  input_audio_noise_reduction: opt(Schema.NullOr(Open)),
  max_response_output_tokens: opt(TokenCap),
  temperature: opt(Schema.Number),
  tools: opt(Schema.Array(Open)),
  tool_choice: opt(Schema.Union(Schema.String, Open)),
  tracing: opt(Schema.Union(Schema.String, Open, Schema.Null))
})
/** @category models */
export type RealtimeSessionV1 = typeof RealtimeSessionV1.Type

const RealtimeAudioInputV2 = Schema.Struct({
  format: opt(Open),
  transcription: opt(Schema.NullOr(Open)),
  turn_detection: opt(Schema.NullOr(Open)),
  noise_reduction: opt(Schema.NullOr(Open))
})
const RealtimeAudioOutputV2 = Schema.Struct({ format: opt(Open), voice: opt(Schema.String), speed: opt(Schema.Number) })

/** The `audio` object of a v2 session: `input` and `output`, each with its known members. @category schemas */
export const RealtimeAudioV2 = Schema.Struct({ input: opt(RealtimeAudioInputV2), output: opt(RealtimeAudioOutputV2) })

/** The session of a realtime v2 `session.update` (nested, `type: "realtime"`). @category schemas */
export const RealtimeSessionV2 = Schema.Struct({
  type: Schema.Literal("realtime"),
  model: opt(Schema.String),
  output_modalities: opt(Schema.Tuple(Schema.Literal(...modalityValues))),
  audio: opt(RealtimeAudioV2),
  instructions: opt(Schema.String),
  max_output_tokens: opt(TokenCap),
  tools: opt(Schema.Array(Open)),
  tool_choice: opt(Schema.Union(Schema.String, Open)),
  tracing: opt(Schema.Union(Schema.String, Open, Schema.Null)),
  include: opt(Schema.Array(Schema.String)),
  prompt: opt(Schema.NullOr(Open)),
  truncation: opt(Schema.Union(Schema.String, Open)),
  reasoning: opt(Open),
  parallel_tool_calls: opt(Schema.Boolean)
})
/** @category models */
export type RealtimeSessionV2 = typeof RealtimeSessionV2.Type

/**
 * A session as callers write it for `buildSessionUpdate`: either style's fields (v2's `type` may be
 * left out), plus `extra` for fields umg does not know yet (merged into the session).
 * @category models
 */
export type RealtimeSessionInput =
  | WithExtra<RealtimeSessionV1>
  | WithExtra<Omit<RealtimeSessionV2, "type"> & { readonly type?: "realtime"; readonly modalities?: ReadonlyArray<"text" | "audio"> }>

/** The `response` of a `response.create` event, per style (protocol-notes §4.2); its members stay open. */
const responseFields: Readonly<Record<RealtimeVersion, ReadonlyArray<string>>> = {
  v1: ["modalities", "voice", "output_audio_format", "temperature", "max_response_output_tokens", "instructions", "tools", "tool_choice", "conversation", "input", "metadata"],
  v2: ["output_modalities", "audio", "max_output_tokens", "instructions", "tools", "tool_choice", "conversation", "input", "metadata", "prompt", "parallel_tool_calls", "reasoning"]
}

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

/** A `session.update` client event, v1 or v2 session. @category schemas */
export const RealtimeSessionUpdate = Schema.Struct({
  type: Schema.Literal("session.update"),
  event_id: Schema.optional(Schema.String),
  session: Schema.Union(RealtimeSessionV2, RealtimeSessionV1)
})
/** @category models */
export type RealtimeSessionUpdate = typeof RealtimeSessionUpdate.Type

const sessionFieldsV1 = fieldsOf(RealtimeSessionV1)
const sessionFieldsV2 = fieldsOf(RealtimeSessionV2)

// The v2 `audio` object, closed at its first two levels.
const checkAudio = (session: Json, path: string): Effect.Effect<void, InvalidRequest> =>
  Effect.gen(function* () {
    const audio = optional(session, "audio")
    if (audio === undefined) return
    const audioPath = at(path, "audio")
    const a = yield* record(audio, audioPath)
    yield* refuseUnknownFields(a, fieldsOf(RealtimeAudioV2), audioPath, "audio", false)
    for (const side of ["input", "output"] as const) {
      const inner = optional(a, side)
      if (inner === undefined) continue
      const innerPath = at(audioPath, side)
      const fields = fieldsOf(side === "input" ? RealtimeAudioInputV2 : RealtimeAudioOutputV2)
      yield* refuseUnknownFields(yield* record(inner, innerPath), fields, innerPath, innerPath, false)
    }
  })

const checkSession = (session: Json, path: string, version: RealtimeVersion): Effect.Effect<RealtimeSessionV1 | RealtimeSessionV2, InvalidRequest> =>
  Effect.gen(function* () {
    const rest = copyFields(session, ["modalities", "output_modalities", "type", extraField])
    if (version === "v1") {
      yield* checkRenames(session, path, v2Only, "v1")
      yield* refuseUnknownFields(session, sessionFieldsV1, path, "a realtime v1 session", true)
      const extra = yield* readExtra(session, sessionFieldsV1, path)
      const valid = yield* conform(RealtimeSessionV1, { ...rest, ...(yield* outputModalities(session, path, "v1")) }, path)
      return { ...valid, ...extra }
    }
    yield* checkRenames(session, path, movedInV2, "v2")
    yield* refuseUnknownFields(session, [...sessionFieldsV2, "modalities"], path, "a realtime v2 session", true)
    const type = optional(session, "type")
    if (type !== undefined) yield* oneOf(type, at(path, "type"), ["realtime"], "realtime v2 session.update")
    yield* checkAudio(session, path)
    const extra = yield* readExtra(session, [...sessionFieldsV2, "modalities"], path)
    const valid = yield* conform(RealtimeSessionV2, { type: "realtime", ...rest, ...(yield* outputModalities(session, path, "v2")) }, path)
    return { ...valid, ...extra }
  })

/**
 * Builds the `session.update` event for the model's style: v1 `{type, session: {modalities, …}}`
 * (flat, no `session.type`), v2 `{type, session: {type: "realtime", output_modalities?, …}}` (never
 * `modalities`). Fields of the other style are refused with a message naming the right field; an
 * unknown session field is refused naming the nearest known one (`session.extra` carries fields umg
 * does not know yet); the model must be a realtime model of the catalog.
 * @category constructors
 */
export const buildSessionUpdate = (
  model: unknown,
  session: unknown,
  options: RealtimeOptions = {}
): Effect.Effect<RealtimeSessionUpdate, InvalidRequest> =>
  sendableResult(guardReads(Effect.gen(function* () {
    yield* sendable(model, "model")
    yield* sendable(session, "session")
    const version = yield* realtimeVersion(model, options)
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

/**
 * The top-level fields of each client event (protocol-notes §4.3), besides `type` and `event_id`.
 * Closed at the top; `item` (conversation items) and the `transcription_session.update` session stay
 * open, as the notes leave them.
 */
const clientEventFields: Readonly<Record<string, ReadonlyArray<string>>> = {
  "session.update": ["session"],
  "transcription_session.update": ["session"],
  "input_audio_buffer.append": ["audio"],
  "input_audio_buffer.commit": [],
  "input_audio_buffer.clear": [],
  "output_audio_buffer.clear": [],
  "conversation.item.create": ["item", "previous_item_id"],
  "conversation.item.retrieve": ["item_id"],
  "conversation.item.truncate": ["item_id", "content_index", "audio_end_ms"],
  "conversation.item.delete": ["item_id"],
  "response.create": ["response"],
  "response.cancel": ["response_id"]
}

const requiredField = (obj: Json, key: string) =>
  optional(obj, key) === undefined ? fail(key, "required", `${key} is required`) : Effect.succeed(obj[key])

/**
 * Validates one client event for the model's style: a known `type`, only that event's fields (plus
 * `extra`, merged), its required fields (`audio`, `item`, `item_id`, `content_index`,
 * `audio_end_ms`, …) and, for `session.update` and `response.create`, the v1/v2 field names.
 * Returns the event sanitized (unsafe keys dropped).
 * @category constructors
 */
export const validateRealtimeClientEvent = (
  model: unknown,
  event: unknown,
  options: RealtimeOptions = {}
): Effect.Effect<Json, InvalidRequest> =>
  guardReads(Effect.gen(function* () {
    yield* sendable(model, "model")
    yield* sendable(event, "")
    const version = yield* realtimeVersion(model, options)
    const obj = yield* record(event, "")
    const type = yield* oneOf(optional(obj, "type"), "type", realtimeClientEventTypes[version], `realtime ${version}`)
    const known = ["type", "event_id", ...(clientEventFields[type] ?? [])]
    yield* refuseUnknownFields(obj, known, "", `a ${type} event`)
    const extra = yield* readExtra(obj, known)
    const eventId = optional(obj, "event_id")
    if (eventId !== undefined) yield* string(eventId, "event_id")
    const out = copyFields(obj, [extraField])
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
        const rest = copyFields(r, ["modalities", "output_modalities"])
        if (version === "v1") yield* checkRenames(r, "response", v2Only, "v1", ["type"])
        else yield* checkRenames(r, "response", movedInV2, "v2")
        yield* refuseUnknownFields(r, [...responseFields[version], ...(version === "v2" ? ["modalities"] : [])], "response", `a realtime ${version} response`, false)
        out.response = { ...rest, ...(yield* outputModalities(r, "response", version)) }
        break
      }
      case "response.cancel": {
        const id = optional(obj, "response_id")
        if (id !== undefined) yield* string(id, "response_id")
        break
      }
    }
    return { ...out, ...extra }
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
