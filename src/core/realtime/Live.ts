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
import { type Json, array, at, boolean, describe, fail, isRecord, oneOf, optional, copyFields, record, string } from "../validation/Rules.js"
import { conform } from "../validation/Conform.js"

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

/** `setup.generationConfig`: one response modality, and the sampling and audio settings. @category schemas */
export const LiveGenerationConfig = Schema.Struct({
  responseModalities: opt(Schema.Tuple(Schema.Literal(...liveModalities))),
  speechConfig: opt(Open),
  ...nativeSamplingFields,
  mediaResolution: opt(Schema.String),
  thinkingConfig: opt(NativeThinkingConfig),
  enableAffectiveDialog: opt(Schema.Boolean)
})

/** The `setup` of a live session (the model as `models/<id>`). @category schemas */
export const LiveSetup = Schema.Struct({
  model: Schema.String.pipe(Schema.startsWith("models/")),
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

const checkSetup = (model: string, setup: Json, path: string): Effect.Effect<LiveSetup, InvalidRequest> =>
  Effect.gen(function* () {
    yield* refuseUnknownFields(setup, setupFields, path, "a live setup", true)
    yield* refuseNestedUnknown(LiveSetup, setup, (obj, keys, inner) => refuseUnknownFields(obj, keys, `${path}.${inner}`, `${path}.${inner}`, false))
    const extra = yield* readExtra(setup, setupFields, path)
    const out: Record<string, unknown> = { ...copyFields(setup, ["model", "generationConfig", extraField]), model }
    const config = optional(setup, "generationConfig")
    if (config !== undefined) {
      const configPath = at(path, "generationConfig")
      const c = yield* record(config, configPath)
      const cfg: Record<string, unknown> = copyFields(c, ["responseModalities"])
      const modalities = optional(c, "responseModalities")
      if (modalities !== undefined) {
        const field = at(configPath, "responseModalities")
        const list = yield* array(modalities, field, { nonEmpty: true })
        if (list.length !== 1)
          return yield* fail(field, "exactly-one", `${field}: ${describe(modalities)} given; a live session takes exactly one of ${liveModalities.join(", ")}`)
        cfg.responseModalities = [yield* oneOf(list[0], at(field, 0), liveModalities)]
      }
      out.generationConfig = cfg
    }
    const valid = yield* conform(LiveSetup, out, path)
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
    const id = yield* string(model, "model", { nonEmpty: true })
    yield* routeForCapability(id.startsWith("models/") ? id.slice("models/".length) : id, "live", options)
    const obj = yield* record(setup ?? {}, "setup")
    const given = optional(obj, "model")
    if (given !== undefined && given !== id && given !== modelPath(id))
      return yield* fail("setup.model", "conflict", `setup.model: ${describe(given)} does not match the session's model ${JSON.stringify(modelPath(id))}`)
    return { setup: yield* checkSetup(modelPath(id), obj, "setup") }
  })))

/** The four client message kinds; each message has exactly one of them as its only top-level key. @category models */
export const liveClientMessageKeys = ["setup", "clientContent", "realtimeInput", "toolResponse"] as const

const realtimeInputKeys = ["audio", "mediaChunks", "video", "text", "audioStreamEnd", "activityStart", "activityEnd"] as const

// The members of each kind after setup (protocol-notes §5.3), closed at their top (plus `extra`);
// turns, blobs and function responses inside stay open.
const kindFields: Readonly<Record<(typeof liveClientMessageKeys)[number], ReadonlyArray<string>>> = {
  setup: [],
  clientContent: ["turns", "turnComplete"],
  realtimeInput: realtimeInputKeys,
  toolResponse: ["functionResponses"]
}

const blob = (value: unknown, field: string) =>
  Effect.gen(function* () {
    const b = yield* record(value, field)
    yield* string(optional(b, "data"), at(field, "data"))
    yield* string(optional(b, "mimeType"), at(field, "mimeType"), { nonEmpty: true })
  })

/**
 * Validates one client message: exactly one top-level key of `setup` | `clientContent` |
 * `realtimeInput` | `toolResponse`, and that kind's shape (`setup.model`, `clientContent.turns`,
 * `realtimeInput` blobs `{data, mimeType}`, `toolResponse.functionResponses`). Returns it sanitized.
 * @category constructors
 */
export const validateLiveClientMessage = (message: unknown): Effect.Effect<Json, InvalidRequest> =>
  guardReads(Effect.gen(function* () {
    yield* sendable(message, "")
    const obj = yield* record(message, "")
    const keys = Object.keys(obj)
    if (keys.length !== 1)
      return yield* fail(
        "(message)",
        "exactly-one",
        `a live message has exactly one top-level key of ${liveClientMessageKeys.join(", ")}; got ${
          keys.length === 0 ? "none" : keys.slice(0, 5).map((k) => describe(k)).join(", ")
        }`
      )
    const kind = yield* oneOf(keys[0], "(message)", liveClientMessageKeys, "a live client message")
    const body = yield* record(obj[kind], kind)
    if (kind !== "setup") yield* refuseUnknownFields(body, kindFields[kind], kind, `a ${kind} message`, true)
    switch (kind) {
      case "setup": {
        const model = yield* string(optional(body, "model"), "setup.model", { nonEmpty: true })
        if (!model.startsWith("models/")) return yield* fail("setup.model", "format", `setup.model: ${describe(model)} must start with models/`)
        return { setup: yield* checkSetup(model, body, "setup") }
      }
      case "clientContent": {
        const turns = optional(body, "turns")
        if (turns !== undefined) for (const [i, t] of (yield* array(turns, "clientContent.turns")).entries()) yield* record(t, at("clientContent.turns", i))
        const complete = optional(body, "turnComplete")
        if (complete !== undefined) yield* boolean(complete, "clientContent.turnComplete")
        break
      }
      case "realtimeInput": {
        const present = realtimeInputKeys.filter((k) => optional(body, k) !== undefined)
        if (present.length === 0)
          return yield* fail("realtimeInput", "required", `realtimeInput needs one of ${realtimeInputKeys.join(", ")}`)
        for (const k of ["audio", "video"] as const) if (optional(body, k) !== undefined) yield* blob(body[k], `realtimeInput.${k}`)
        const chunks = optional(body, "mediaChunks")
        if (chunks !== undefined)
          for (const [i, c] of (yield* array(chunks, "realtimeInput.mediaChunks")).entries()) yield* blob(c, at("realtimeInput.mediaChunks", i))
        const text = optional(body, "text")
        if (text !== undefined) yield* string(text, "realtimeInput.text")
        break
      }
      case "toolResponse": {
        const responses = yield* array(optional(body, "functionResponses"), "toolResponse.functionResponses", { nonEmpty: true })
        for (const [i, r] of responses.entries()) yield* record(r, at("toolResponse.functionResponses", i))
        break
      }
    }
    return { [kind]: { ...copyFields(body, [extraField]), ...(yield* readExtra(body, kindFields[kind], kind)) } }
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
