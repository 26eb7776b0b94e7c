/** Live WebSocket messages (zeta live audio): the `setup` message, the other client messages checked, and the server message Schema. */
import { Effect, Either, Schema } from "effect"
import { DecodeError } from "../errors/GatewayError.js"
import { decodeWith, type DecodeOptions, guarded, parseJsonText } from "../wire/WireJson.js"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { routeForCapability } from "../gateway/Routing.js"
import type { RoutingOptions } from "../gateway/Catalog.js"
import { nativeSamplingFields, NativeThinkingConfig } from "../text/native/Native.js"
import { extraField, fieldsOf, guardReads, readExtra, refuseUnknownFields, sendable, sendableResult, type WithExtra } from "../validation/Closed.js"
import { refuseNestedUnknown } from "../validation/NestedFields.js"
import { type Json, describe, fail, isRecord, optional, copyFields } from "../validation/Rules.js"
import { conform } from "../validation/Conform.js"
import { NonBlank, nonEmptyArray, type RuleAnnotation, RuleAnnotationId, withRule } from "../validation/FieldRules.js"

/** The one response modality a live session may ask for. @category models */
export const liveModalities = ["TEXT", "AUDIO"] as const

const Open = Schema.Record({ key: Schema.String, value: Schema.Unknown })
const opt = <S extends Schema.Schema.Any>(s: S) => Schema.optionalWith(s, { exact: true })

/*
 * Closed, from protocol-notes §5.2 (and §2.2/§2.6 for the generation and thinking config the live
 * setup shares with native content): `setup`, its `generationConfig` and `thinkingConfig`. Open, as
 * the notes leave them: `speechConfig`, `systemInstruction` parts, `tools`, `realtimeInputConfig`,
 * the transcription configs, `sessionResumption`, `contextWindowCompression`, `proactivity`.
 */

type LiveModality = (typeof liveModalities)[number]

// "setup.generationConfig.responseModalities: an array of 2 given; a live session takes exactly one of
// TEXT, AUDIO" (rule `exactly-one`; `non-empty` for none).
const exactlyOneModality: RuleAnnotation = {
  rule: (value) => (Array.isArray(value) && value.length === 0 ? "non-empty" : "exactly-one"),
  message: (field, value) =>
    Array.isArray(value) && value.length === 0
      ? `${field} must not be empty`
      : `${field}: ${describe(value)} given; a live session takes exactly one of ${liveModalities.join(", ")}`
}

/** `setup.generationConfig.responseModalities`: exactly one of TEXT, AUDIO. @category schemas */
export const LiveResponseModalities = Schema.Array(Schema.Literal(...liveModalities)).pipe(
  Schema.filter((list): list is readonly [LiveModality] => list.length === 1, { [RuleAnnotationId]: exactlyOneModality })
)

/** `setup.generationConfig`: one response modality, and the sampling and audio settings. @category schemas */
export const LiveGenerationConfig = Schema.Struct({
  responseModalities: opt(LiveResponseModalities),
  speechConfig: opt(Open),
  ...nativeSamplingFields,
  mediaResolution: opt(Schema.String),
  thinkingConfig: opt(NativeThinkingConfig),
  enableAffectiveDialog: opt(Schema.Boolean)
})

/** The `setup` of a live session (the model as `models/<id>`). @category schemas */
export const LiveSetup = Schema.Struct({
  model: NonBlank.pipe(
    withRule((m) => m.startsWith("models/"), { rule: "format", message: (field, value) => `${field}: ${describe(value)} must start with models/` })
  ),
  generationConfig: opt(LiveGenerationConfig),
  systemInstruction: opt(Open),
  tools: opt(Schema.Array(Open)),
  realtimeInputConfig: opt(Open),
  inputAudioTranscription: opt(Open),
  outputAudioTranscription: opt(Open),
  sessionResumption: opt(Open),
  contextWindowCompression: opt(Open),
  proactivity: opt(Open)
})
/** @category models */
export type LiveSetup = typeof LiveSetup.Type

/** A setup as callers write it for `buildLiveSetup` (the model comes from its own argument), with `extra`. @category models */
export type LiveSetupInput = WithExtra<Omit<LiveSetup, "model"> & { readonly model?: string }>

/** The `setup` client message. @category schemas */
export const LiveSetupMessage = Schema.Struct({ setup: LiveSetup })
/** @category models */
export type LiveSetupMessage = typeof LiveSetupMessage.Type

const setupFields = fieldsOf(LiveSetup)

// The given fields of an object (null means absent), copied without unsafe keys and without `extra`.
const givenFields = (obj: Json): Record<string, unknown> => {
  const out = copyFields(obj, [extraField])
  for (const key of Object.keys(out)) if (out[key] === null) delete out[key]
  return out
}

// A setup checked against its Schema (where its rules live), closed at the top and inside, `extra` merged.
const checkSetup = (setup: Json, path: string, model?: string): Effect.Effect<LiveSetup, InvalidRequest> =>
  Effect.gen(function* () {
    yield* refuseUnknownFields(setup, setupFields, path, "a live setup", true)
    yield* refuseNestedUnknown(LiveSetup, setup, (obj, keys, inner) => refuseUnknownFields(obj, keys, `${path}.${inner}`, `${path}.${inner}`, false))
    const extra = yield* readExtra(setup, setupFields, path)
    const valid = yield* conform(LiveSetup, model === undefined ? givenFields(setup) : { ...givenFields(setup), model }, path)
    return { ...valid, ...extra }
  })

/** `models/<id>` from `<id>` (an id already prefixed is kept). */
const modelPath = (model: string): string => (model.startsWith("models/") ? model : `models/${model}`)

/** Options of `buildLiveSetup`: the one model catalog and `allowUnknownModels`. @category models */
export type LiveOptions = RoutingOptions

/**
 * Builds the first message of a live session: `{setup: {model: "models/<id>", generationConfig?:
 * {responseModalities: [TEXT | AUDIO]}, …}}`. The model must be a live model of the catalog (another
 * family's model names its family and endpoint; an unlisted one is refused unless
 * `allowUnknownModels`); a `setup.model` naming another model is refused; an unknown setup or
 * `generationConfig` field is refused naming the nearest known one (`extra` carries fields umg does
 * not know yet, merged into the setup).
 * @category constructors
 */
export const buildLiveSetup = (model: unknown, setup: unknown = {}, options: LiveOptions = {}): Effect.Effect<LiveSetupMessage, InvalidRequest> =>
  sendableResult(guardReads(Effect.gen(function* () {
    yield* sendable(model, "model")
    yield* sendable(setup, "setup")
    const id = yield* conform(NonBlank, model, "model")
    yield* routeForCapability(id.startsWith("models/") ? id.slice("models/".length) : id, "live", options)
    const obj = yield* conform(Open, setup ?? {}, "setup")
    const given = optional(obj, "model")
    if (given !== undefined && given !== id && given !== modelPath(id))
      return yield* fail("setup.model", "conflict", `setup.model: ${describe(given)} does not match the session's model ${JSON.stringify(modelPath(id))}`)
    return { setup: yield* checkSetup(obj, "setup", modelPath(id)) }
  })))

/** The four client message kinds; each message has exactly one of them as its only top-level key. @category models */
export const liveClientMessageKeys = ["setup", "clientContent", "realtimeInput", "toolResponse"] as const

const MessageKind = Schema.Literal(...liveClientMessageKeys).annotations({
  [RuleAnnotationId]: {
    rule: "one-of",
    message: (field, value) => `${field}: ${describe(value)} is not allowed for a live client message; allowed: ${liveClientMessageKeys.join(", ")}`
  } satisfies RuleAnnotation
})

/** A media blob of `realtimeInput`: base64 `data` and its `mimeType` (other members kept). @category schemas */
export const LiveBlob = Schema.Struct({ data: Schema.String, mimeType: NonBlank }, Open)

const realtimeInputKeys = ["audio", "mediaChunks", "video", "text", "audioStreamEnd", "activityStart", "activityEnd"] as const

/*
 * The members of each kind after setup (protocol-notes §5.3), closed at their top (plus `extra`);
 * turns, blobs and function responses inside stay open.
 */

/** `clientContent`: turns (open) and whether the turn is complete. @category schemas */
export const LiveClientContent = Schema.Struct({ turns: opt(Schema.Array(Open)), turnComplete: opt(Schema.Boolean) })

/** `realtimeInput`: at least one of its members; blobs are `{data, mimeType}`. @category schemas */
export const LiveRealtimeInput = Schema.Struct({
  audio: opt(LiveBlob),
  mediaChunks: opt(Schema.Array(LiveBlob)),
  video: opt(LiveBlob),
  text: opt(Schema.String),
  audioStreamEnd: opt(Schema.Unknown),
  activityStart: opt(Schema.Unknown),
  activityEnd: opt(Schema.Unknown)
}).pipe(
  Schema.filter((input) => realtimeInputKeys.some((k) => input[k] !== undefined), {
    [RuleAnnotationId]: { rule: "required", message: (field) => `${field} needs one of ${realtimeInputKeys.join(", ")}` } satisfies RuleAnnotation
  })
)

/** `toolResponse`: a non-empty list of function responses (open). @category schemas */
export const LiveToolResponse = Schema.Struct({ functionResponses: nonEmptyArray(Open) })

const kindFields = {
  clientContent: fieldsOf(LiveClientContent),
  realtimeInput: fieldsOf(LiveRealtimeInput),
  toolResponse: fieldsOf(LiveToolResponse)
} as const

/**
 * Validates one client message: exactly one top-level key of `setup` | `clientContent` |
 * `realtimeInput` | `toolResponse`, and that kind's Schema (`setup.model`, `clientContent.turns`,
 * `realtimeInput` blobs `{data, mimeType}`, `toolResponse.functionResponses`). Returns it sanitized
 * (a null member is absent).
 * @category constructors
 */
export const validateLiveClientMessage = (message: unknown): Effect.Effect<Json, InvalidRequest> =>
  guardReads(Effect.gen(function* () {
    yield* sendable(message, "")
    const obj = yield* conform(Open, message, "")
    const keys = Object.keys(obj)
    if (keys.length !== 1)
      return yield* fail(
        "(message)",
        "exactly-one",
        `a live message has exactly one top-level key of ${liveClientMessageKeys.join(", ")}; got ${
          keys.length === 0 ? "none" : keys.slice(0, 5).map((k) => describe(k)).join(", ")
        }`
      )
    const kind = yield* conform(MessageKind, keys[0], "(message)")
    const body = yield* conform(Open, obj[kind], kind)
    if (kind === "setup") return { setup: yield* checkSetup(body, "setup") }
    yield* refuseUnknownFields(body, kindFields[kind], kind, `a ${kind} message`, true)
    const extra = yield* readExtra(body, kindFields[kind], kind)
    const given = givenFields(body)
    const valid =
      kind === "clientContent"
        ? yield* conform(LiveClientContent, given, kind)
        : kind === "realtimeInput"
          ? yield* conform(LiveRealtimeInput, given, kind)
          : yield* conform(LiveToolResponse, given, kind)
    return { [kind]: { ...valid, ...extra } }
  }))

// ---- server messages ----------------------------------------------------------------------------

const Extra = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** A part of a model turn: text, inline audio (`inlineData`), or anything newer (kept). @category schemas */
export const LivePart = Schema.Struct(
  {
    text: Schema.optional(Schema.String),
    thought: Schema.optional(Schema.Boolean),
    inlineData: Schema.optional(Schema.Struct({ mimeType: Schema.String, data: Schema.String }, Extra))
  },
  Extra
)

const Transcription = Schema.Struct({ text: Schema.optional(Schema.String), finished: Schema.optional(Schema.Boolean) }, Extra)

/** `serverContent`: a piece of the model's turn and the turn's lifecycle flags. @category schemas */
export const LiveServerContent = Schema.Struct(
  {
    modelTurn: Schema.optional(Schema.Struct({ role: Schema.optional(Schema.String), parts: Schema.optional(Schema.Array(LivePart)) }, Extra)),
    generationComplete: Schema.optional(Schema.Boolean),
    turnComplete: Schema.optional(Schema.Boolean),
    interrupted: Schema.optional(Schema.Boolean),
    inputTranscription: Schema.optional(Transcription),
    outputTranscription: Schema.optional(Transcription)
  },
  Extra
)

/** A live server message: one or more of its known members; unknown members are kept. @category schemas */
export const LiveServerMessage = Schema.Struct(
  {
    setupComplete: Schema.optional(Extra),
    serverContent: Schema.optional(LiveServerContent),
    toolCall: Schema.optional(
      Schema.Struct(
        { functionCalls: Schema.Array(Schema.Struct({ id: Schema.optional(Schema.String), name: Schema.String, args: Schema.optional(Extra) }, Extra)) },
        Extra
      )
    ),
    toolCallCancellation: Schema.optional(Schema.Struct({ ids: Schema.Array(Schema.String) }, Extra)),
    usageMetadata: Schema.optional(
      Schema.Struct(
        {
          promptTokenCount: Schema.optional(Schema.Number),
          responseTokenCount: Schema.optional(Schema.Number),
          totalTokenCount: Schema.optional(Schema.Number)
        },
        Extra
      )
    ),
    goAway: Schema.optional(Schema.Struct({ timeLeft: Schema.optional(Schema.String) }, Extra)),
    sessionResumptionUpdate: Schema.optional(
      Schema.Struct({ newHandle: Schema.optional(Schema.String), resumable: Schema.optional(Schema.Boolean) }, Extra)
    )
  },
  Extra
)
/** @category models */
export type LiveServerMessage = typeof LiveServerMessage.Type

const decodeMessage = decodeWith(LiveServerMessage, "live", "live server message")

/**
 * Decodes one server frame: JSON text, UTF-8 bytes (servers may send JSON in binary frames) or a
 * parsed object. Fails with `DecodeError`, never throws.
 * @category decoding
 */
export const decodeLiveServerMessage = (frame: unknown, options?: DecodeOptions): Effect.Effect<LiveServerMessage, DecodeError> =>
  Effect.suspend(() =>
    guarded("live", "live server message", (): Either.Either<LiveServerMessage, DecodeError> => {
      const failWith = (message: string) => Either.left(new DecodeError({ family: "live", what: "live server message", message }))
      let json = frame
      if (typeof frame === "string" || frame instanceof Uint8Array) {
        let text: string
        try {
          text = typeof frame === "string" ? frame : new TextDecoder("utf-8", { fatal: true }).decode(frame)
        } catch {
          return failWith("live server message: the frame is not UTF-8 text")
        }
        const parsed = parseJsonText(text, "live", "live server message", options)
        if (Either.isLeft(parsed)) return Either.left(parsed.left)
        json = parsed.right
      }
      if (!isRecord(json)) return failWith(`live server message: expected a JSON object, got ${Array.isArray(json) ? "an array" : json === null ? "null" : `a ${typeof json}`}`)
      return decodeMessage(json, options)
    })
  )

/** The text of a message's model turn (thought parts left out), or `undefined` when it has none. @category accessors */
export const liveText = (message: LiveServerMessage): string | undefined => {
  const parts = message.serverContent?.modelTurn?.parts ?? []
  const texts = parts.filter((p) => p.text !== undefined && p.thought !== true).map((p) => p.text as string)
  return texts.length === 0 ? undefined : texts.join("")
}

/** The base64 audio chunks (`inlineData` with an `audio/…` type) of a message's model turn. @category accessors */
export const liveAudioChunks = (message: LiveServerMessage): ReadonlyArray<{ readonly mimeType: string; readonly data: string }> =>
  (message.serverContent?.modelTurn?.parts ?? []).flatMap((p) =>
    p.inlineData !== undefined && p.inlineData.mimeType.startsWith("audio/") ? [{ mimeType: p.inlineData.mimeType, data: p.inlineData.data }] : []
  )
