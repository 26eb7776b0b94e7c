/** Live WebSocket messages (zeta live audio): the `setup` message, the other client messages checked, and the server message Schema. */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { DecodeError } from "../errors/GatewayError.js"
import { decodeWith, type DecodeOptions, guarded, parseJsonText } from "../wire/WireJson.js"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { routeForCapability } from "../gateway/Routing.js"
import type { RoutingOptions } from "../gateway/Catalog.js"
import { nativeSamplingFields, NativeThinkingConfig } from "../text/native/Native.js"
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
import { refuseNestedUnknown } from "../validation/NestedFields.js"
import { type Json, describe, fail, isRecord, optional, copyFields } from "../validation/Rules.js"
import { conform } from "../validation/Conform.js"
import { NonBlank, nonEmptyArray, type RuleAnnotation, RuleAnnotationId, withRule } from "../validation/FieldRules.js"

/** The one response modality a live session may ask for. @category models */
export const liveModalities = ["TEXT", "AUDIO"] as const

const Open = Schema.Record(Schema.String, Schema.Unknown)
const opt = Schema.optionalKey

/*
 * Closed, from the live protocol's setup (and the native-content request for the generation and
 * thinking config the live setup shares): `setup`, its `generationConfig` and `thinkingConfig`. Open,
 * as upstream leaves them: `speechConfig`, `systemInstruction` parts, `tools`, `realtimeInputConfig`,
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
export const LiveResponseModalities = Schema.Array(Schema.Literals(liveModalities)).pipe(
  Schema.refine((list): list is readonly [LiveModality] => list.length === 1, {
    [RuleAnnotationId]: exactlyOneModality
  })
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
    withRule<string>((m) => m.startsWith("models/"), {
      rule: "format",
      message: (field, value) => `${field}: ${describe(value)} must start with models/`
    })
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
const checkSetup = (setup: Json, path: string, model?: string): Result.Result<LiveSetup, InvalidRequest> =>
  Result.gen(function* () {
    yield* refuseUnknownFields(setup, setupFields, path, "a live setup", true)
    yield* refuseNestedUnknown(LiveSetup, setup, (obj, keys, inner) =>
      refuseUnknownFields(obj, keys, `${path}.${inner}`, `${path}.${inner}`, false)
    )
    const extra = yield* readExtra(setup, setupFields, path)
    const valid = yield* conform(
      LiveSetup,
      model === undefined ? givenFields(setup) : { ...givenFields(setup), model },
      path
    )
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
export const buildLiveSetup = (
  model: unknown,
  setup: unknown = {},
  options: LiveOptions = {}
): Effect.Effect<LiveSetupMessage, InvalidRequest> =>
  sendableResult(
    buildWith(() =>
      Result.gen(function* () {
        yield* sendable(model, "model")
        yield* sendable(setup, "setup")
        const id = yield* conform(NonBlank, model, "model")
        yield* routeForCapability(id.startsWith("models/") ? id.slice("models/".length) : id, "live", options)
        const obj = yield* conform(Open, setup ?? {}, "setup")
        const given = optional(obj, "model")
        if (given !== undefined && given !== id && given !== modelPath(id))
          return yield* fail(
            "setup.model",
            "conflict",
            `setup.model: ${describe(given)} does not match the session's model ${JSON.stringify(modelPath(id))}`
          )
        return { setup: yield* checkSetup(obj, "setup", modelPath(id)) }
      })
    )
  )

/** The four client message kinds; each message has exactly one of them as its only top-level key. @category models */
export const liveClientMessageKeys = ["setup", "clientContent", "realtimeInput", "toolResponse"] as const

const MessageKind = Schema.Literals(liveClientMessageKeys).annotate({
  [RuleAnnotationId]: {
    rule: "one-of",
    message: (field, value) =>
      `${field}: ${describe(value)} is not allowed for a live client message; allowed: ${liveClientMessageKeys.join(", ")}`
  } satisfies RuleAnnotation
})

/** A media blob of `realtimeInput`: base64 `data` and its `mimeType` (other members kept). @category schemas */
export const LiveBlob = Schema.StructWithRest(Schema.Struct({ data: Schema.String, mimeType: NonBlank }), [Open])

const realtimeInputKeys = [
  "audio",
  "mediaChunks",
  "video",
  "text",
  "audioStreamEnd",
  "activityStart",
  "activityEnd"
] as const

/*
 * The members of each kind after setup (the live protocol), closed at their top (plus `extra`);
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
  withRule<{ readonly [K in (typeof realtimeInputKeys)[number]]?: unknown }>(
    (input) => realtimeInputKeys.some((k) => input[k] !== undefined),
    {
      rule: "required",
      message: (field) => `${field} needs one of ${realtimeInputKeys.join(", ")}`
    }
  )
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
 * (a null member is absent). With `setupSent`, a `setup` is refused (field `setup`, rule
 * `after-setup`): the server would end the session with 1007 for it.
 * @category constructors
 */
export const validateLiveClientMessage = (
  message: unknown,
  options?: { readonly setupSent?: boolean }
): Effect.Effect<Json, InvalidRequest> =>
  buildWith(() =>
    Result.gen(function* () {
      yield* sendable(message, "")
      const obj = yield* conform(Open, message, "")
      const keys = Object.keys(obj)
      if (keys.length !== 1)
        return yield* fail(
          "(message)",
          "exactly-one",
          `a live message has exactly one top-level key of ${liveClientMessageKeys.join(", ")}; got ${
            keys.length === 0
              ? "none"
              : keys
                  .slice(0, 5)
                  .map((k) => describe(k))
                  .join(", ")
          }`
        )
      const kind = yield* conform(MessageKind, keys[0], "(message)")
      if (kind === "setup" && options?.setupSent === true)
        return yield* fail(
          "setup",
          "after-setup",
          `setup is sent once, as the session's first message, and it was; after it a live message is one of ${liveClientMessageKeys
            .filter((k) => k !== "setup")
            .join(", ")}`
        )
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
    })
  )

// ---- server messages ----------------------------------------------------------------------------

const Extra = Schema.Record(Schema.String, Schema.Unknown)
// An object of the server's: its known members, and whatever else it sent kept.
const kept = <F extends Schema.Struct.Fields>(fields: F) => Schema.StructWithRest(Schema.Struct(fields), [Extra])
const optional_ = Schema.optionalKey

/** A part of a model turn: text, inline audio (`inlineData`), or anything newer (kept). @category schemas */
export const LivePart = kept({
  text: optional_(Schema.String),
  thought: optional_(Schema.Boolean),
  inlineData: optional_(kept({ mimeType: Schema.String, data: Schema.String }))
})

const Transcription = kept({ text: optional_(Schema.String), finished: optional_(Schema.Boolean) })

/** `serverContent`: a piece of the model's turn and the turn's lifecycle flags. @category schemas */
export const LiveServerContent = kept({
  modelTurn: optional_(kept({ role: optional_(Schema.String), parts: optional_(Schema.Array(LivePart)) })),
  generationComplete: optional_(Schema.Boolean),
  turnComplete: optional_(Schema.Boolean),
  interrupted: optional_(Schema.Boolean),
  inputTranscription: optional_(Transcription),
  outputTranscription: optional_(Transcription)
})

/** A live server message: one or more of its known members; unknown members are kept. @category schemas */
export const LiveServerMessage = kept({
  setupComplete: optional_(Extra),
  serverContent: optional_(LiveServerContent),
  toolCall: optional_(
    kept({
      functionCalls: Schema.Array(kept({ id: optional_(Schema.String), name: Schema.String, args: optional_(Extra) }))
    })
  ),
  toolCallCancellation: optional_(kept({ ids: Schema.Array(Schema.String) })),
  usageMetadata: optional_(
    kept({
      promptTokenCount: optional_(Schema.Number),
      responseTokenCount: optional_(Schema.Number),
      totalTokenCount: optional_(Schema.Number)
    })
  ),
  goAway: optional_(kept({ timeLeft: optional_(Schema.String) })),
  sessionResumptionUpdate: optional_(
    kept({ newHandle: optional_(Schema.String), resumable: optional_(Schema.Boolean) })
  )
})
/** @category models */
export type LiveServerMessage = typeof LiveServerMessage.Type

const decodeMessage = decodeWith(LiveServerMessage, "live", "live server message")

/**
 * Decodes one server frame: JSON text, UTF-8 bytes (servers may send JSON in binary frames) or a
 * parsed object. Fails with `DecodeError`, never throws.
 * @category decoding
 */
export const decodeLiveServerMessage = (
  frame: unknown,
  options?: DecodeOptions
): Effect.Effect<LiveServerMessage, DecodeError> =>
  Effect.suspend(() =>
    Effect.fromResult(
      guarded("live", "live server message", (): Result.Result<LiveServerMessage, DecodeError> => {
        const failWith = (message: string) =>
          Result.fail(new DecodeError({ family: "live", what: "live server message", message }))
        let json = frame
        if (typeof frame === "string" || frame instanceof Uint8Array) {
          let text: string
          try {
            text = typeof frame === "string" ? frame : new TextDecoder("utf-8", { fatal: true }).decode(frame)
          } catch {
            return failWith("live server message: the frame is not UTF-8 text")
          }
          const parsed = parseJsonText(text, "live", "live server message", options)
          if (Result.isFailure(parsed)) return Result.fail(parsed.failure)
          json = parsed.success
        }
        if (!isRecord(json))
          return failWith(
            `live server message: expected a JSON object, got ${Array.isArray(json) ? "an array" : json === null ? "null" : `a ${typeof json}`}`
          )
        return decodeMessage(json, options)
      })
    )
  )

/** The text of a message's model turn (thought parts left out), or `undefined` when it has none. @category accessors */
export const liveText = (message: LiveServerMessage): string | undefined => {
  const parts = message.serverContent?.modelTurn?.parts ?? []
  const texts = parts.filter((p) => p.text !== undefined && p.thought !== true).map((p) => p.text as string)
  return texts.length === 0 ? undefined : texts.join("")
}

/** The base64 audio chunks (`inlineData` with an `audio/…` type) of a message's model turn. @category accessors */
export const liveAudioChunks = (
  message: LiveServerMessage
): ReadonlyArray<{ readonly mimeType: string; readonly data: string }> =>
  (message.serverContent?.modelTurn?.parts ?? []).flatMap((p) =>
    p.inlineData !== undefined && p.inlineData.mimeType.startsWith("audio/")
      ? [{ mimeType: p.inlineData.mimeType, data: p.inlineData.data }]
      : []
  )
