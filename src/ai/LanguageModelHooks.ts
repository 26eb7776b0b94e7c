/**
 * The hooks umg gives Effect AI's `LanguageModel.make` for one model. `generateText` and `streamText`
 * run over umg's `Gateway` and read its answers as Effect AI's encoded parts (what could not be sent
 * as asked is logged as a warning); structured output gets umg's schema transform.
 * `UmgLanguageModel.make` makes these hooks into the service.
 */
import * as AiError from "effect/ai/AiError"
import type * as LanguageModel from "effect/ai/LanguageModel"
import type * as Response from "effect/ai/Response"
import type * as Arr from "effect/Array"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type { Span } from "effect/Tracer"
import type { ResponseInfo } from "../adapters/CallOptions.js"
import type { GatewayService } from "../adapters/Gateway.js"
import { fromScopedPull } from "../adapters/http/ByteSource.js"
import { UsageOnOuterSpan } from "../adapters/internal/Telemetry.js"
import { InvalidRequest } from "../core/errors/InvalidRequest.js"
import { type AnySchema, fitSchema } from "../core/structured/AnySchema.js"
import { parseArguments } from "../core/tools/ToolShape.js"
import { toAiError, type UmgFailure } from "./AiErrors.js"
import { providerKey, type ReadOptions, requestOf, type UmgModelConfig } from "./ProviderRequest.js"
import type { AnswerContent, AnswerEnd, TextAnswer } from "./text/TextAnswer.js"
import { generate, openStream, type TextCall, textCall, textFamilyOf, textPath } from "./text/TextCall.js"
import type { TextFamily, TextRequest } from "./text/TextRequest.js"
import type { TextStreamPart } from "./text/TextStream.js"

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
const paramsOf = (read: ReadOptions, name: string, text: string): Result.Result<unknown, AiError.AiError> => {
  const parsed = parseArguments(text)
  if (parsed.malformed !== undefined)
    return Result.fail(
      AiError.make({
        module: "UmgLanguageModel",
        method: "toolCall",
        reason: new AiError.ToolParameterValidationError({ toolName: name, description: parsed.malformed })
      })
    )
  const tool = read.tools.get(name)
  return Result.succeed(tool === undefined ? parsed.input : tool.params(parsed.input))
}

const contentParts = (
  read: ReadOptions,
  content: ReadonlyArray<AnswerContent>
): Effect.Effect<Array<Response.PartEncoded>, AiError.AiError> =>
  Effect.forEach(content, (c): Effect.Effect<Response.PartEncoded, AiError.AiError> => {
    switch (c.type) {
      case "text":
        return Effect.succeed({ type: "text", text: c.text, ...umgMeta({ thoughtSignature: c.thoughtSignature }) })
      case "reasoning":
        return Effect.succeed({
          type: "reasoning",
          text: c.text,
          ...umgMeta({ signature: c.signature, redactedData: c.redactedData, thoughtSignature: c.thoughtSignature })
        })
      case "tool-call":
        return Effect.map(Effect.fromResult(paramsOf(read, c.name, c.arguments)), (params) => ({
          type: "tool-call",
          id: c.id,
          name: c.name,
          params,
          providerExecuted: false,
          ...umgMeta({ thoughtSignature: c.thoughtSignature })
        }))
    }
  })

/**
 * Pushes the Effect AI stream parts of umg's text stream parts onto `out`, or gives the failure of a
 * call whose arguments are not JSON. Text and reasoning parts other than their ends are Effect AI's
 * encoded parts already (the same fields): they go as they are; the ends carry their signatures.
 */
const pushStreamParts = (
  read: ReadOptions,
  chunk: ReadonlyArray<TextStreamPart>,
  family: TextFamily,
  info: ResponseInfo | undefined,
  span: Span,
  out: Array<Response.StreamPartEncoded>
): AiError.AiError | undefined => {
  for (let i = 0; i < chunk.length; i++) {
    const part = chunk[i]!
    switch (part.type) {
      case "text-delta":
      case "text-start":
      case "reasoning-start":
      case "reasoning-delta":
        out.push(part)
        break
      case "text-end":
        out.push({ type: "text-end", id: part.id, ...umgMeta({ thoughtSignature: part.thoughtSignature }) })
        break
      case "reasoning-end":
        out.push({
          type: "reasoning-end",
          id: part.id,
          ...umgMeta({
            signature: part.signature,
            redactedData: part.redactedData,
            thoughtSignature: part.thoughtSignature
          })
        })
        break
      case "tool-input-start":
        out.push({ type: "tool-params-start", id: part.id, name: part.name })
        break
      case "tool-input-delta":
        out.push({ type: "tool-params-delta", id: part.id, delta: part.delta })
        break
      case "tool-input-end":
        out.push({ type: "tool-params-end", id: part.id })
        break
      case "tool-call": {
        const params = paramsOf(read, part.name, part.arguments)
        if (Result.isFailure(params)) return params.failure
        out.push({
          type: "tool-call",
          id: part.id,
          name: part.name,
          params: params.success,
          providerExecuted: false,
          ...umgMeta({ thoughtSignature: part.thoughtSignature })
        })
        break
      }
      case "finish":
        annotateResponse(span, part.end)
        out.push(responseMetadata(part.end), finishPart(part.end, family, info))
    }
  }
  return undefined
}

/** A GenAI span attribute, left out when its value is null or undefined (as `addGenAIAnnotations` does). */
const attribute = (span: Span, key: string, value: unknown): void => {
  if (value !== undefined && value !== null) span.attribute(key, value)
}

/**
 * The request's GenAI span attributes: the names, values and order `addGenAIAnnotations` writes for
 * `{ provider: { name }, operation: { name }, request: { model, temperature, topP, topK, maxTokens,
 * stopSequences } }`, with its keys written out instead of converted from camelCase on every call.
 * @category telemetry
 */
export const annotateRequest = (span: Span, request: TextRequest): void => {
  span.attribute("gen_ai.provider.name", "umg")
  span.attribute("gen_ai.operation.name", "chat")
  attribute(span, "gen_ai.request.model", request.model)
  attribute(span, "gen_ai.request.temperature", request.temperature)
  attribute(span, "gen_ai.request.top_p", request.topP)
  attribute(span, "gen_ai.request.top_k", request.topK)
  attribute(span, "gen_ai.request.max_tokens", request.maxOutputTokens)
  attribute(span, "gen_ai.request.stop_sequences", request.stopSequences)
}

/**
 * The answer's GenAI span attributes: the names, values and order `addGenAIAnnotations` writes for
 * `{ response: { id, model, finishReasons }, usage: { inputTokens, outputTokens } }`.
 * @category telemetry
 */
export const annotateResponse = (span: Span, end: AnswerEnd): void => {
  attribute(span, "gen_ai.response.id", end.id)
  attribute(span, "gen_ai.response.model", end.modelId)
  span.attribute("gen_ai.response.finish_reasons", end.finish.raw === undefined ? [] : [end.finish.raw])
  attribute(span, "gen_ai.usage.input_tokens", end.usage.inputTokens)
  attribute(span, "gen_ai.usage.output_tokens", end.usage.outputTokens)
}

/**
 * What of a call could not be sent as asked, logged as warnings (Effect AI's responses have no
 * warnings; the AI SDK gives the same ones as the call's `warnings`).
 */
const logWarnings = (model: string, call: TextCall): Effect.Effect<void> =>
  Effect.forEach(call.warnings, (warning) => Effect.logWarning(`umg: ${warning.message}`), { discard: true }).pipe(
    Effect.annotateLogs({ model, family: call.family })
  )

const notText = (model: string): InvalidRequest =>
  new InvalidRequest({
    field: "model",
    rule: "route",
    message: `model: ${JSON.stringify(model)} is not a text model; umg routes it to another capability (an embedding, image, speech, rerank or video model)`
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
 * The `LanguageModel.make` hooks of `model` over `gateway`; `configOf` gives the model's settings,
 * read when each call is made.
 * @category constructors
 */
export const languageModelHooks = (
  gateway: GatewayService,
  model: string,
  configOf: Effect.Effect<UmgModelConfig>
): Parameters<typeof LanguageModel.make>[0] => {
  const family = textFamilyOf(model)
  const fail = (method: string, stream: boolean) => (error: UmgFailure) =>
    toAiError(error, "UmgLanguageModel", method, family === undefined ? "" : textPath(family, model, stream))

  // Plain steps, not `Effect.gen`: every call of the model goes through here.
  const prepare = (providerOptions: LanguageModel.ProviderOptions, method: string, stream: boolean) => {
    if (family === undefined) return Effect.fail(fail(method, stream)(notText(model)))
    const prepared = Effect.flatMap(configOf, (config) =>
      Effect.flatMap(requestOf(model, providerOptions, config), (read) => {
        const call: Result.Result<TextCall, InvalidRequest> = textCall(family, read.request, stream)
        if (Result.isFailure(call)) return Effect.fail(call.failure)
        annotateRequest(providerOptions.span, read.request)
        const ready = Effect.succeed({ read, call: call.success, family })
        return call.success.warnings.length === 0 ? ready : Effect.andThen(logWarnings(model, call.success), ready)
      })
    )
    return Effect.mapError(prepared, fail(method, stream))
  }

  return {
    codecTransformer,
    generateText: (providerOptions) =>
      Effect.gen(function* () {
        const { read, call, family } = yield* prepare(providerOptions, "generateText", false)
        let info: ResponseInfo | undefined
        const { answer } = yield* generate(gateway, call, read.request, { onResponse: (i) => (info = i) }).pipe(
          // Effect AI's span carries the usage (annotateResponse): the gateway's span inside it does not.
          Effect.provideService(UsageOnOuterSpan, true),
          Effect.mapError(fail("generateText", false))
        )
        annotateResponse(providerOptions.span, answer)
        return yield* answerParts(read, answer, family, info)
      }),
    streamText: (providerOptions) =>
      Stream.unwrap(
        Effect.map(prepare(providerOptions, "streamText", true), ({ read, call, family }) => {
          let info: ResponseInfo | undefined
          // One array of parts per chunk, mapped in place: no effect per part.
          const partsOf = (chunk: ReadonlyArray<TextStreamPart>) => {
            const out: Array<Response.StreamPartEncoded> = []
            const failure = pushStreamParts(read, chunk, family, info, providerOptions.span, out)
            return failure === undefined
              ? Effect.succeed(out as unknown as Arr.NonEmptyReadonlyArray<Response.StreamPartEncoded>)
              : Effect.fail(failure)
          }
          return fromScopedPull(
            Effect.map(
              Effect.provideService(
                openStream(gateway, call, read.request, { onResponse: (i) => (info = i) }),
                UsageOnOuterSpan,
                true
              ),
              ({ pull }) => Effect.flatMap(pull, partsOf)
            )
          ).pipe(Stream.mapError((e) => (AiError.isAiError(e) ? e : fail("streamText", true)(e))))
        })
      )
  }
}
