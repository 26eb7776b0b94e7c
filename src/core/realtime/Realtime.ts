/**
 * Realtime WebSocket messages: which event style (v1 or v2) a model speaks, the `session.update` and
 * other client events checked for that style, and Schemas of the server events a client reads.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { DecodeError } from "../errors/GatewayError.js"
import { decodeWith, type DecodeOptions, guarded, parseJsonText } from "../wire/WireJson.js"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { realtimeStyles, type RoutingOptions } from "../gateway/Catalog.js"
import { routeForCapability } from "../gateway/Routing.js"
import {
  buildWith,
  extraField,
  fieldsOf,
  readExtra,
  refuseUnknownFields,
  sendable,
  sendableResult,
  type WithExtra
} from "../validation/Closed.js"
import { type Json, at, copyFields, describe, fail, isRecord, optional } from "../validation/Rules.js"
import { conform } from "../validation/Conform.js"
import {
  acrossFields,
  NonBlank,
  range,
  type RuleAnnotation,
  RuleAnnotationId,
  withRule
} from "../validation/FieldRules.js"
import { refuseNestedUnknown } from "../validation/NestedFields.js"

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
export const realtimeVersion = (
  model: unknown,
  options: RealtimeOptions = {}
): Effect.Effect<RealtimeVersion, InvalidRequest> => Effect.suspend(() => Effect.fromResult(versionOf(model, options)))

const versionOf = (model: unknown, options: RealtimeOptions): Result.Result<RealtimeVersion, InvalidRequest> =>
  Result.map(routeForCapability(model, "realtime", options), (route) => (route.shape === "realtime-v2" ? "v2" : "v1"))

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

const Open = Schema.Record(Schema.String, Schema.Unknown)
const opt = Schema.optionalKey

const TokenCap = Schema.Union([Schema.Int, Schema.Literal("inf")])
const Modality = Schema.Literals(modalityValues)
type Modality = typeof Modality.Type

// How many modalities a list may hold: "session.modalities must not be empty" (rule `non-empty`),
// "session.output_modalities: 2 items given; allowed: at most 1" (rule `max-items`).
const countRule = (max: number): RuleAnnotation => ({
  rule: (value) => (Array.isArray(value) && value.length === 0 ? "non-empty" : "max-items"),
  message: (field, value) =>
    Array.isArray(value) && value.length === 0
      ? `${field} must not be empty`
      : `${field}: ${Array.isArray(value) ? value.length : 0} items given; allowed: at most ${max}`
})

// A modality listed twice: "session.modalities[1]: \"text\" is listed twice" (rule `unique`).
const listedTwice = (list: ReadonlyArray<Modality>) => {
  const twice = list.findIndex((m, i) => list.indexOf(m) !== i)
  return twice < 0 ? undefined : { key: [twice], detail: describe(list[twice]) }
}

/** v1 `modalities`: text and/or audio, each once. @category schemas */
export const RealtimeModalitiesV1 = acrossFields(
  Schema.Array(Modality).pipe(
    withRule<ReadonlyArray<Modality>>((list) => list.length >= 1 && list.length <= 2, countRule(2))
  ),
  "unique",
  listedTwice,
  (field, detail) => `${field}: ${detail} is listed twice`
)

/** v2 `output_modalities`: exactly one of text, audio (audio includes its transcript). @category schemas */
export const RealtimeOutputModalitiesV2 = Schema.Array(Modality).pipe(
  Schema.refine((list): list is readonly [Modality] => list.length === 1, { [RuleAnnotationId]: countRule(1) })
)

/*
 * Closed sessions (realtime v1/v2): the top level of each style's session is closed. Open, as
 * upstream leaves them: transcription, turn detection and noise reduction settings, audio formats
 * (v2 objects), `tools` items, `tool_choice` objects, `tracing`, `prompt`, `reasoning`. The v2
 * `audio` object is closed at its first two levels (`input`/`output` and their members).
 */

/** The session of a realtime v1 `session.update` (flat). @category schemas */
export const RealtimeSessionV1 = Schema.Struct({
  model: opt(Schema.String),
  modalities: opt(RealtimeModalitiesV1),
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
  tool_choice: opt(Schema.Union([Schema.String, Open])),
  tracing: opt(Schema.Union([Schema.String, Open, Schema.Null]))
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
  type: Schema.Literal("realtime").annotate({
    [RuleAnnotationId]: {
      rule: "one-of",
      message: (field, value) =>
        `${field}: ${describe(value)} is not allowed for realtime v2 session.update; allowed: realtime`
    } satisfies RuleAnnotation
  }),
  model: opt(Schema.String),
  output_modalities: opt(RealtimeOutputModalitiesV2),
  audio: opt(RealtimeAudioV2),
  instructions: opt(Schema.String),
  max_output_tokens: opt(TokenCap),
  tools: opt(Schema.Array(Open)),
  tool_choice: opt(Schema.Union([Schema.String, Open])),
  tracing: opt(Schema.Union([Schema.String, Open, Schema.Null])),
  include: opt(Schema.Array(Schema.String)),
  prompt: opt(Schema.NullOr(Open)),
  truncation: opt(Schema.Union([Schema.String, Open])),
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
  | WithExtra<
      Omit<RealtimeSessionV2, "type"> & {
        readonly type?: "realtime"
        readonly modalities?: ReadonlyArray<"text" | "audio">
      }
    >

/** The `response` of a `response.create` event, per style (realtime v1/v2); its members stay open. */
const responseFields: Readonly<Record<RealtimeVersion, ReadonlyArray<string>>> = {
  v1: [
    "modalities",
    "voice",
    "output_audio_format",
    "temperature",
    "max_response_output_tokens",
    "instructions",
    "tools",
    "tool_choice",
    "conversation",
    "input",
    "metadata"
  ],
  v2: [
    "output_modalities",
    "audio",
    "max_output_tokens",
    "instructions",
    "tools",
    "tool_choice",
    "conversation",
    "input",
    "metadata",
    "prompt",
    "parallel_tool_calls",
    "reasoning"
  ]
}

const checkRenames = (
  obj: Json,
  path: string,
  renames: Readonly<Record<string, string>>,
  version: RealtimeVersion,
  skip: ReadonlyArray<string> = []
): Result.Result<void, InvalidRequest> => {
  for (const key of Object.keys(renames)) {
    if (skip.includes(key) || optional(obj, key) === undefined) continue
    const field = at(path, key)
    return fail(field, "wrong-version", `${field} is not part of realtime ${version}; use ${renames[key]} instead`)
  }
  return Result.void
}

/**
 * The output modalities of a v1-style or v2-style config, translated for `version`. For v2, a v1
 * `modalities` is translated to `output_modalities` only when it names one modality (unambiguous);
 * `["text", "audio"]` is refused, because v2 takes exactly one (`["audio"]` includes the transcript).
 */
const outputModalities = (
  obj: Json,
  path: string,
  version: RealtimeVersion
): Result.Result<Record<string, unknown>, InvalidRequest> =>
  Result.gen(function* () {
    const v1 = optional(obj, "modalities")
    const v2 = optional(obj, "output_modalities")
    if (version === "v1")
      return v1 === undefined ? {} : { modalities: yield* conform(RealtimeModalitiesV1, v1, at(path, "modalities")) }
    if (v1 !== undefined && v2 !== undefined)
      return yield* fail(
        at(path, "modalities"),
        "wrong-version",
        `${at(path, "modalities")} is not part of realtime v2; give output_modalities only`
      )
    if (v2 !== undefined)
      return { output_modalities: yield* conform(RealtimeOutputModalitiesV2, v2, at(path, "output_modalities")) }
    if (v1 === undefined) return {}
    const list = yield* conform(RealtimeModalitiesV1, v1, at(path, "modalities"))
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
  event_id: Schema.optionalKey(Schema.String),
  session: Schema.Union([RealtimeSessionV2, RealtimeSessionV1])
})
/** @category models */
export type RealtimeSessionUpdate = typeof RealtimeSessionUpdate.Type

const sessionFieldsV1 = fieldsOf(RealtimeSessionV1)
const sessionFieldsV2 = fieldsOf(RealtimeSessionV2)

const checkSession = (
  session: Json,
  path: string,
  version: RealtimeVersion
): Result.Result<RealtimeSessionV1 | RealtimeSessionV2, InvalidRequest> =>
  Result.gen(function* () {
    const rest = copyFields(session, ["modalities", "output_modalities", "type", extraField])
    if (version === "v1") {
      yield* checkRenames(session, path, v2Only, "v1")
      yield* refuseUnknownFields(session, sessionFieldsV1, path, "a realtime v1 session", true)
      const extra = yield* readExtra(session, sessionFieldsV1, path)
      const valid = yield* conform(
        RealtimeSessionV1,
        { ...rest, ...(yield* outputModalities(session, path, "v1")) },
        path
      )
      return { ...valid, ...extra }
    }
    yield* checkRenames(session, path, movedInV2, "v2")
    yield* refuseUnknownFields(session, [...sessionFieldsV2, "modalities"], path, "a realtime v2 session", true)
    // Inside: the `audio` object is closed at its first two levels (its Schema says which).
    yield* refuseNestedUnknown(RealtimeSessionV2, session, (obj, keys, inner) =>
      refuseUnknownFields(obj, keys, at(path, inner), at(path, inner), false)
    )
    const extra = yield* readExtra(session, [...sessionFieldsV2, "modalities"], path)
    const type = optional(session, "type")
    const valid = yield* conform(
      RealtimeSessionV2,
      { type: type ?? "realtime", ...rest, ...(yield* outputModalities(session, path, "v2")) },
      path
    )
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
  sendableResult(
    buildWith(() =>
      Result.gen(function* () {
        yield* sendable(model, "model")
        yield* sendable(session, "session")
        const version = yield* versionOf(model, options)
        const obj = yield* conform(Open, session ?? {}, "session")
        return { type: "session.update" as const, session: yield* checkSession(obj, "session", version) }
      })
    )
  )

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
 * The client event types of each style (realtime v1/v2): v2 has every v1 event but
 * `transcription_session.update` (a `session.update` with `type: "transcription"` replaces it).
 * @category models
 */
export const realtimeClientEventTypes: Readonly<Record<RealtimeVersion, ReadonlyArray<string>>> = {
  v1: v1ClientEventTypes,
  v2: v1ClientEventTypes.filter((type) => type !== "transcription_session.update")
}

const NonNegativeInt = Schema.Int.pipe(range({ min: 0 }))

/**
 * Each client event's Schema (realtime v1/v2), its rules with it: closed at the top (besides
 * `type` and `event_id`); `item` (conversation items) and the `transcription_session.update` session
 * stay open, as upstream leaves them. The `session.update` session and the `response.create` response
 * are checked by their style's rules (`checkSession`, the v1/v2 response fields).
 */
const clientEvent = <F extends Schema.Struct.Fields>(fields: F) =>
  Schema.Struct({ type: Schema.String, event_id: opt(Schema.String), ...fields })
const clientEventSchemas = {
  "session.update": clientEvent({ session: Open }),
  "transcription_session.update": clientEvent({ session: Open }),
  "input_audio_buffer.append": clientEvent({ audio: NonBlank }),
  "input_audio_buffer.commit": clientEvent({}),
  "input_audio_buffer.clear": clientEvent({}),
  "output_audio_buffer.clear": clientEvent({}),
  "conversation.item.create": clientEvent({ item: Open, previous_item_id: opt(Schema.String) }),
  "conversation.item.retrieve": clientEvent({ item_id: NonBlank }),
  "conversation.item.truncate": clientEvent({
    item_id: NonBlank,
    content_index: NonNegativeInt,
    audio_end_ms: NonNegativeInt
  }),
  "conversation.item.delete": clientEvent({ item_id: NonBlank }),
  "response.create": clientEvent({ response: opt(Open) }),
  "response.cancel": clientEvent({ response_id: opt(Schema.String) })
} as const

type ClientEventType = keyof typeof clientEventSchemas

const eventTypeRule = (version: RealtimeVersion): RuleAnnotation => ({
  rule: "one-of",
  message: (field, value) =>
    `${field}: ${describe(value)} is not allowed for realtime ${version}; allowed: ${realtimeClientEventTypes[version].join(", ")}`
})

// The event type a style takes: "type: \"x\" is not allowed for realtime v2; allowed: session.update, …".
const isClientEventType = (type: string): type is ClientEventType => Object.hasOwn(clientEventSchemas, type)
const eventTypeSchema = (version: RealtimeVersion) =>
  Schema.Struct({
    type: Schema.String.annotate({ [RuleAnnotationId]: eventTypeRule(version) }).pipe(
      Schema.refine(
        (type): type is ClientEventType => realtimeClientEventTypes[version].includes(type) && isClientEventType(type),
        {
          [RuleAnnotationId]: eventTypeRule(version)
        }
      )
    )
  })
const eventTypes = { v1: eventTypeSchema("v1"), v2: eventTypeSchema("v2") }

// The given fields of an event (null means absent), copied without unsafe keys.
const givenFields = (obj: Json): Json => {
  const out = copyFields(obj, [extraField])
  for (const key of Object.keys(out)) if (out[key] === null) delete out[key]
  return out
}

/**
 * Validates one client event for the model's style: a known `type`, then that event's Schema (only
 * its fields, plus `extra`, merged; its required fields `audio`, `item`, `item_id`, `content_index`,
 * `audio_end_ms`, …) and, for `session.update` and `response.create`, the v1/v2 field names. Returns
 * the event sanitized (unsafe keys dropped; a null top-level field is absent).
 * @category constructors
 */
export const validateRealtimeClientEvent = (
  model: unknown,
  event: unknown,
  options: RealtimeOptions = {}
): Effect.Effect<Json, InvalidRequest> =>
  buildWith(() =>
    Result.gen(function* () {
      yield* sendable(model, "model")
      yield* sendable(event, "")
      const version = yield* versionOf(model, options)
      const obj = yield* conform(Open, event, "")
      const { type } = yield* conform(eventTypes[version], { type: optional(obj, "type") }, "")
      const schema: Schema.Codec<Json, Json> = clientEventSchemas[type]
      const known = fieldsOf(clientEventSchemas[type])
      yield* refuseUnknownFields(obj, known, "", `a ${type} event`)
      const extra = yield* readExtra(obj, known)
      const out: Record<string, unknown> = { ...(yield* conform(schema, givenFields(obj), "")) }
      if (type === "session.update")
        out.session = yield* checkSession(yield* conform(Open, out.session, "session"), "session", version)
      if (type === "response.create" && out.response !== undefined) {
        const r = yield* conform(Open, out.response, "response")
        const rest = copyFields(r, ["modalities", "output_modalities"])
        if (version === "v1") yield* checkRenames(r, "response", v2Only, "v1", ["type"])
        else yield* checkRenames(r, "response", movedInV2, "v2")
        yield* refuseUnknownFields(
          r,
          [...responseFields[version], ...(version === "v2" ? ["modalities"] : [])],
          "response",
          `a realtime ${version} response`,
          false
        )
        out.response = { ...rest, ...(yield* outputModalities(r, "response", version)) }
      }
      return { ...out, ...extra }
    })
  )

// ---- server events -------------------------------------------------------------------------------

const Extra = Schema.Record(Schema.String, Schema.Unknown)
const OptString = Schema.optionalKey(Schema.NullOr(Schema.String))
// An event object: its known fields, and whatever else the server sent kept.
const event = <F extends Schema.Struct.Fields>(fields: F) => Schema.StructWithRest(Schema.Struct(fields), [Extra])

/** `session.created` / `session.updated`: the session as the server now holds it. @category schemas */
export const RealtimeSessionEvent = event({
  type: Schema.Literals(["session.created", "session.updated"]),
  event_id: OptString,
  session: Extra
})

/** `error`: the session stays open; `error.event_id` names the client event that caused it. @category schemas */
export const RealtimeErrorEvent = event({
  type: Schema.Literal("error"),
  event_id: OptString,
  error: event({ type: Schema.String, message: Schema.String, code: OptString, param: OptString, event_id: OptString })
})

/** `response.created` / `response.done` with the response object (`id`, `status`, `output`, `usage`, …). @category schemas */
export const RealtimeResponseEvent = event({
  type: Schema.Literals(["response.created", "response.done"]),
  event_id: OptString,
  response: event({ id: Schema.optionalKey(Schema.String), status: Schema.optionalKey(Schema.String) })
})

/** The delta events of both styles (text, audio as base64, audio transcript). @category models */
export const realtimeDeltaTypes = {
  text: ["response.text.delta", "response.output_text.delta"],
  audio: ["response.audio.delta", "response.output_audio.delta"],
  transcript: ["response.audio_transcript.delta", "response.output_audio_transcript.delta"]
} as const

/** A text, audio or transcript delta (v1 or v2 name). @category schemas */
export const RealtimeDeltaEvent = event({
  type: Schema.Literals([...realtimeDeltaTypes.text, ...realtimeDeltaTypes.audio, ...realtimeDeltaTypes.transcript]),
  event_id: OptString,
  response_id: Schema.optionalKey(Schema.String),
  item_id: Schema.optionalKey(Schema.String),
  output_index: Schema.optionalKey(Schema.Number),
  content_index: Schema.optionalKey(Schema.Number),
  delta: Schema.String
})

/** The end of a text part (`text`), v1 or v2 name. @category schemas */
export const RealtimeTextDoneEvent = event({
  type: Schema.Literals(["response.text.done", "response.output_text.done"]),
  event_id: OptString,
  text: Schema.String
})

/** The end of an audio transcript (`transcript`), v1 or v2 name. @category schemas */
export const RealtimeTranscriptDoneEvent = event({
  type: Schema.Literals(["response.audio_transcript.done", "response.output_audio_transcript.done"]),
  event_id: OptString,
  transcript: Schema.String
})

/** The end of an audio part, v1 or v2 name. @category schemas */
export const RealtimeAudioDoneEvent = event({
  type: Schema.Literals(["response.audio.done", "response.output_audio.done"]),
  event_id: OptString
})

const knownServerTypes: ReadonlySet<string> = new Set<string>([
  ...RealtimeSessionEvent.schema.fields.type.literals,
  RealtimeErrorEvent.schema.fields.type.literal,
  ...RealtimeResponseEvent.schema.fields.type.literals,
  ...RealtimeDeltaEvent.schema.fields.type.literals,
  ...RealtimeTextDoneEvent.schema.fields.type.literals,
  ...RealtimeTranscriptDoneEvent.schema.fields.type.literals,
  ...RealtimeAudioDoneEvent.schema.fields.type.literals
])

/** Any other server event (`conversation.item.added`, `rate_limits.updated`, …), kept whole. @category schemas */
export const RealtimeOtherEvent = event({
  type: Schema.String.check(
    Schema.makeFilter((t) => !knownServerTypes.has(t), { message: "a known event type with the wrong fields" })
  )
})

/** Every realtime server event a client reads, v1 and v2 names, with a catch-all for the rest. @category schemas */
export const RealtimeServerEvent = Schema.Union([
  RealtimeSessionEvent,
  RealtimeErrorEvent,
  RealtimeResponseEvent,
  RealtimeDeltaEvent,
  RealtimeTextDoneEvent,
  RealtimeTranscriptDoneEvent,
  RealtimeAudioDoneEvent,
  RealtimeOtherEvent
])
/** @category models */
export type RealtimeServerEvent = typeof RealtimeServerEvent.Type

/** The server events this library models (every member but `RealtimeOtherEvent`). @category models */
export type RealtimeKnownEvent =
  | typeof RealtimeSessionEvent.Type
  | typeof RealtimeErrorEvent.Type
  | typeof RealtimeResponseEvent.Type
  | typeof RealtimeDeltaEvent.Type
  | typeof RealtimeTextDoneEvent.Type
  | typeof RealtimeTranscriptDoneEvent.Type
  | typeof RealtimeAudioDoneEvent.Type

/**
 * Narrows an event to a known type, as `event.type === type` cannot (`RealtimeOtherEvent`'s `type` is
 * any string, so `event.error` would stay `unknown`). Sound: the catch-all never decodes a known
 * `type`. An intersection rather than `Extract`, since one member holds several types.
 * @category guards
 */
export const isRealtimeEvent = <K extends RealtimeKnownEvent["type"]>(
  event: RealtimeServerEvent,
  type: K
): event is RealtimeKnownEvent & { readonly type: K } => event.type === type

const what = "realtime server event"
const decodeEvent = decodeWith(RealtimeServerEvent, "realtime", what)

// Every server event is an object with a string `type`: anything else (an array of 100 000 objects, a
// number) is refused by that look alone, before the Schema walks the value.
const shapeOf = (json: unknown): string | undefined =>
  !isRecord(json)
    ? `expected a JSON object, got ${Array.isArray(json) ? "an array" : json === null ? "null" : `a ${typeof json}`}`
    : typeof json["type"] !== "string"
      ? "expected an event with a string type"
      : undefined

const decodeFrame = (
  frame: unknown,
  options: DecodeOptions | undefined
): Result.Result<RealtimeServerEvent, DecodeError> => {
  let json = frame
  if (typeof frame === "string") {
    const parsed = parseJsonText(frame, "realtime", what, options)
    if (Result.isFailure(parsed)) return Result.fail(parsed.failure)
    json = parsed.success
  }
  const wrong = shapeOf(json)
  return wrong === undefined
    ? decodeEvent(json, options)
    : Result.fail(new DecodeError({ family: "realtime", what, message: `${what}: ${wrong}` }))
}

/**
 * Decodes one server frame (JSON text or an already parsed object). A known type with wrong fields
 * is a `DecodeError`; an unknown type is kept whole; a frame that is no object with a string `type`
 * is refused before the Schema runs. Never throws.
 * @category decoding
 */
export const decodeRealtimeServerEvent = (
  frame: unknown,
  options?: DecodeOptions
): Effect.Effect<RealtimeServerEvent, DecodeError> =>
  Effect.suspend(() => Effect.fromResult(guarded("realtime", what, decodeFrame, frame, options)))

const deltaOf = (event: RealtimeServerEvent, types: ReadonlyArray<string>): string | undefined =>
  types.includes(event.type) && "delta" in event && typeof event.delta === "string" ? event.delta : undefined

/** The text delta of `response.text.delta` (v1) or `response.output_text.delta` (v2); else `undefined`. @category accessors */
export const realtimeTextDelta = (event: RealtimeServerEvent): string | undefined =>
  deltaOf(event, realtimeDeltaTypes.text)

/** The base64 audio delta of either style's audio delta event; else `undefined`. @category accessors */
export const realtimeAudioDelta = (event: RealtimeServerEvent): string | undefined =>
  deltaOf(event, realtimeDeltaTypes.audio)

/** The transcript delta of either style's audio transcript delta event; else `undefined`. @category accessors */
export const realtimeTranscriptDelta = (event: RealtimeServerEvent): string | undefined =>
  deltaOf(event, realtimeDeltaTypes.transcript)
