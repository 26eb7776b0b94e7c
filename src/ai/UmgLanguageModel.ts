/**
 * `UmgLanguageModel`: umg as an Effect AI provider. `layer({ model })` provides `LanguageModel` for
 * any text model umg routes (messages-style, chat, responses, native content) over umg's `Gateway` —
 * its validation before sending, its one retry policy, its typed errors mapped to `AiError` — so a
 * program written against `LanguageModel` runs unchanged, and composes with `ExecutionPlan` fallbacks.
 */
import * as AiError from "effect/ai/AiError"
import * as LanguageModel from "effect/ai/LanguageModel"
import * as AiModel from "effect/ai/Model"
import type * as Response from "effect/ai/Response"
import { addGenAIAnnotations } from "effect/ai/Telemetry"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type { Span } from "effect/Tracer"
import type { ResponseInfo } from "../adapters/CallOptions.js"
import { Gateway, type GatewayService } from "../adapters/Gateway.js"
import { fromScopedPull } from "../adapters/http/ByteSource.js"
import { InvalidRequest } from "../core/errors/InvalidRequest.js"
import { type AnySchema, fitSchema } from "../core/structured/AnySchema.js"
import { parseArguments } from "../core/tools/ToolShape.js"
import { toAiError, type UmgFailure } from "./AiErrors.js"
import { providerKey, type ReadOptions, requestOf, type UmgModelConfig } from "./ProviderRequest.js"
import type { AnswerContent, AnswerEnd, TextAnswer } from "./text/TextAnswer.js"
import { generate, openStream, type TextCall, textCall, textFamilyOf, textPath } from "./text/TextCall.js"
import type { TextFamily } from "./text/TextRequest.js"
import type { TextStreamPart } from "./text/TextStream.js"

/**
 * The model's settings for the calls made within an effect, laid over the layer's `config` (see
 * `withConfigOverride`).
 * @category services
 */
export class Config extends Context.Service<Config, UmgModelConfig>()("umg/ai/UmgLanguageModel/Config") {}

/** `effect` with the model's settings changed for the calls it makes. @category combinators */
export const withConfigOverride =
  (overrides: UmgModelConfig) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, Config>> =>
    Effect.flatMap(Effect.serviceOption(Config), (current) =>
      Effect.provideService(effect, Config, { ...Option.getOrUndefined(current), ...overrides })
    )

/**
 * Structured output's schema transform: umg's fitting for the JSON Schema sent; the schema's JSON
 * codec to read the answer (whose text umg has already given back the schema's shape).
 */
const codecTransformer: LanguageModel.CodecTransformer = (schema) => {
  const fitted = fitSchema(schema as unknown as AnySchema<unknown>)
  if (Result.isFailure(fitted)) throw new Error(fitted.failure.message)
  return {
    codec: Schema.toCodecJson(schema) as unknown as typeof schema,
    jsonSchema: fitted.success.schema as Schema.Json as never
  }
}

const modelMeta = (family: TextFamily, info: ResponseInfo | undefined) => ({
  [providerKey]: { family, ...(info?.requestId === undefined ? {} : { requestId: info.requestId }) }
})

const umgMeta = (fields: Readonly<Record<string, string | undefined>>) => {
  const defined: Record<string, string> = {}
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) defined[k] = v
  return Object.keys(defined).length === 0 ? {} : { metadata: { [providerKey]: defined } }
}

const responseMetadata = (end: AnswerEnd): Response.ResponseMetadataPartEncoded => ({
  type: "response-metadata",
  ...(end.id === undefined ? {} : { id: end.id }),
  ...(end.modelId === undefined ? {} : { modelId: end.modelId }),
  ...(end.timestamp === undefined ? {} : { timestamp: end.timestamp.toISOString() })
})

const int = (n: number | undefined) => (n === undefined ? {} : { total: Math.round(n) })

const finishPart = (
  end: AnswerEnd,
  family: TextFamily,
  info: ResponseInfo | undefined
): Response.FinishPartEncoded => ({
  type: "finish",
  reason: end.finish.unified,
  usage: {
    inputTokens: {
      ...int(end.usage.inputTokens),
      ...(end.usage.inputNoCache === undefined ? {} : { uncached: end.usage.inputNoCache }),
      ...(end.usage.cacheRead === undefined ? {} : { cacheRead: end.usage.cacheRead }),
      ...(end.usage.cacheWrite === undefined ? {} : { cacheWrite: end.usage.cacheWrite })
    },
    outputTokens: {
      ...int(end.usage.outputTokens),
      ...(end.usage.reasoningTokens === undefined ? {} : { reasoning: end.usage.reasoningTokens }),
      ...(end.usage.outputTokens === undefined
        ? {}
        : { text: end.usage.outputTokens - (end.usage.reasoningTokens ?? 0) })
    }
  },
  ...(info === undefined ? {} : { response: { status: info.status, headers: { ...info.headers } } }),
  metadata: modelMeta(family, info)
})

/** A call's arguments as its tool's parameters, or the failure of arguments that are not JSON. */
const paramsOf = (read: ReadOptions, name: string, text: string): Effect.Effect<unknown, AiError.AiError> => {
  const parsed = parseArguments(text)
  if (parsed.malformed !== undefined)
    return Effect.fail(
      AiError.make({
        module: "UmgLanguageModel",
        method: "toolCall",
        reason: new AiError.ToolParameterValidationError({ toolName: name, description: parsed.malformed })
      })
    )
  const tool = read.tools.get(name)
  return Effect.succeed(tool === undefined ? parsed.input : tool.params(parsed.input))
}

const contentParts = (
  read: ReadOptions,
  content: ReadonlyArray<AnswerContent>
): Effect.Effect<Array<Response.PartEncoded>, AiError.AiError> =>
  Effect.forEach(content, (c): Effect.Effect<Response.PartEncoded, AiError.AiError> => {
    switch (c.type) {
      case "text":
        return Effect.succeed({ type: "text", text: c.text })
      case "reasoning":
        return Effect.succeed({
          type: "reasoning",
          text: c.text,
          ...umgMeta({ signature: c.signature, redactedData: c.redactedData })
        })
      case "tool-call":
        return Effect.map(paramsOf(read, c.name, c.arguments), (params) => ({
          type: "tool-call",
          id: c.id,
          name: c.name,
          params,
          providerExecuted: false,
          ...umgMeta({ thoughtSignature: c.thoughtSignature })
        }))
    }
  })

const streamPart = (
  read: ReadOptions,
  part: TextStreamPart,
  family: TextFamily,
  info: () => ResponseInfo | undefined
): Effect.Effect<ReadonlyArray<Response.StreamPartEncoded>, AiError.AiError> => {
  switch (part.type) {
    case "text-start":
    case "text-end":
    case "reasoning-start":
      return Effect.succeed([{ type: part.type, id: part.id }])
    case "text-delta":
    case "reasoning-delta":
      return Effect.succeed([{ type: part.type, id: part.id, delta: part.delta }])
    case "reasoning-end":
      return Effect.succeed([
        {
          type: "reasoning-end",
          id: part.id,
          ...umgMeta({ signature: part.signature, redactedData: part.redactedData })
        }
      ])
    case "tool-input-start":
      return Effect.succeed([{ type: "tool-params-start", id: part.id, name: part.name }])
    case "tool-input-delta":
      return Effect.succeed([{ type: "tool-params-delta", id: part.id, delta: part.delta }])
    case "tool-input-end":
      return Effect.succeed([{ type: "tool-params-end", id: part.id }])
    case "tool-call":
      return Effect.map(paramsOf(read, part.name, part.arguments), (params) => [
        {
          type: "tool-call",
          id: part.id,
          name: part.name,
          params,
          providerExecuted: false,
          ...umgMeta({ thoughtSignature: part.thoughtSignature })
        }
      ])
    case "finish":
      return Effect.succeed([responseMetadata(part.end), finishPart(part.end, family, info())])
  }
}

const annotateRequest = (span: Span, read: ReadOptions) =>
  addGenAIAnnotations(span, {
    provider: { name: "umg" },
    operation: { name: "chat" },
    request: {
      model: read.request.model,
      temperature: read.request.temperature,
      topP: read.request.topP,
      topK: read.request.topK,
      maxTokens: read.request.maxOutputTokens,
      stopSequences: read.request.stopSequences
    }
  })

const annotateResponse = (span: Span, end: AnswerEnd) =>
  addGenAIAnnotations(span, {
    response: { id: end.id, model: end.modelId, finishReasons: end.finish.raw === undefined ? [] : [end.finish.raw] },
    usage: { inputTokens: end.usage.inputTokens, outputTokens: end.usage.outputTokens }
  })

/** What the model is made of. @category models */
export interface UmgLanguageModelOptions {
  readonly model: string
  readonly config?: UmgModelConfig | undefined
}

const notText = (model: string): InvalidRequest =>
  new InvalidRequest({
    field: "model",
    rule: "route",
    message: `model: ${JSON.stringify(model)} is not a text model; umg routes it to another capability (an embedding, image, speech, rerank or video model)`
  })

/**
 * The `LanguageModel` service of a model, over the `Gateway` in context.
 * @category constructors
 */
export const make = Effect.fnUntraced(function* (options: UmgLanguageModelOptions) {
  const gateway: GatewayService = yield* Gateway
  const { model } = options
  const family = textFamilyOf(model)
  const configOf = Effect.map(Effect.serviceOption(Config), (o) => ({ ...options.config, ...Option.getOrUndefined(o) }))
  const fail = (method: string, stream: boolean) => (error: UmgFailure) =>
    toAiError(error, "UmgLanguageModel", method, family === undefined ? "" : textPath(family, model, stream))

  const prepare = (providerOptions: LanguageModel.ProviderOptions, method: string, stream: boolean) =>
    Effect.gen(function* () {
      if (family === undefined) return yield* Effect.fail(notText(model))
      const read = yield* requestOf(model, providerOptions, yield* configOf)
      const call: TextCall = yield* Effect.fromResult(textCall(family, read.request, stream))
      annotateRequest(providerOptions.span, read)
      return { read, call, family }
    }).pipe(Effect.mapError(fail(method, stream)))

  return yield* LanguageModel.make({
    codecTransformer,
    generateText: (providerOptions) =>
      Effect.gen(function* () {
        const { read, call, family } = yield* prepare(providerOptions, "generateText", false)
        let info: ResponseInfo | undefined
        const { answer } = yield* generate(gateway, call, read.request, { onResponse: (i) => (info = i) }).pipe(
          Effect.mapError(fail("generateText", false))
        )
        annotateResponse(providerOptions.span, answer)
        return yield* answerParts(read, answer, family, info)
      }),
    streamText: (providerOptions) =>
      Stream.unwrap(
        Effect.map(prepare(providerOptions, "streamText", true), ({ read, call, family }) => {
          let info: ResponseInfo | undefined
          return fromScopedPull(
            Effect.map(openStream(gateway, call, read.request, { onResponse: (i) => (info = i) }), (pull) =>
              Effect.flatMap(pull, (chunk) =>
                Effect.map(
                  Effect.forEach(chunk, (part) => {
                    if (part.type === "finish") annotateResponse(providerOptions.span, part.end)
                    return streamPart(read, part, family, () => info)
                  }),
                  (parts) =>
                    parts.flat() as unknown as readonly [
                      Response.StreamPartEncoded,
                      ...Array<Response.StreamPartEncoded>
                    ]
                )
              )
            )
          ).pipe(Stream.mapError((e) => (AiError.isAiError(e) ? e : fail("streamText", true)(e))))
        })
      )
  })
})

const answerParts = (
  read: ReadOptions,
  answer: TextAnswer,
  family: TextFamily,
  info: ResponseInfo | undefined
): Effect.Effect<Array<Response.PartEncoded>, AiError.AiError> =>
  Effect.map(contentParts(read, answer.content), (content) => [
    responseMetadata(answer),
    ...content,
    finishPart(answer, family, info)
  ])

/**
 * A layer of `LanguageModel` for a model, over the `Gateway` in context:
 * `UmgLanguageModel.layer({ model: "epsilon-sonnet-4-5" }).pipe(Layer.provide(Gateway.layerFromEnv))`.
 * @category layers
 */
export const layer = (options: UmgLanguageModelOptions): Layer.Layer<LanguageModel.LanguageModel, never, Gateway> =>
  Layer.effect(LanguageModel.LanguageModel, make(options))

/**
 * The model as an Effect AI `Model` (provider `umg`): a layer that also names the provider and model,
 * for `ExecutionPlan` steps and `Effect.withExecutionPlan`.
 * @category constructors
 */
export const model = (
  model: string,
  config?: UmgModelConfig
): AiModel.Model<"umg", LanguageModel.LanguageModel, Gateway> => AiModel.make("umg", model, layer({ model, config }))
