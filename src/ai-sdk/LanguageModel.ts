/**
 * umg's AI SDK language model (provider specification v4) for one model id. The model is routed to
 * the family umg routes it to (messages-style, chat, responses, native content), with `doGenerate`
 * and `doStream` over the `Gateway` service: its validation before sending, its retries and its typed
 * errors.
 */
import type {
  JSONObject,
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4GenerateResult,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage,
  SharedV4ProviderMetadata,
  SharedV4Warning
} from "@ai-sdk/provider"
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type { ResponseInfo } from "../adapters/CallOptions.js"
import type { GatewayService } from "../adapters/Gateway.js"
import type { AnswerContent, AnswerEnd, TextUsage } from "../ai/text/TextAnswer.js"
import { generate, openStream, type TextCall, textCall, textPath } from "../ai/text/TextCall.js"
import type { TextFamily } from "../ai/text/TextRequest.js"
import type { TextStreamPart } from "../ai/text/TextStream.js"
import type { TextWarning } from "../ai/text/Turns.js"
import { toSdkError } from "./Errors.js"
import type { ProviderRuntime } from "./ProviderRuntime.js"
import { providerKey, requestOf } from "./Prompt.js"

/** What a language model needs from its provider. @category models */
export interface LanguageModelContext {
  readonly provider: string
  readonly baseUrl: string
  readonly runtime: ProviderRuntime
}

/** The AI SDK usage of umg's usage. @category getters */
export const usageOf = (usage: TextUsage): LanguageModelV4Usage => ({
  inputTokens: {
    total: usage.inputTokens,
    noCache: usage.inputNoCache,
    cacheRead: usage.cacheRead,
    cacheWrite: usage.cacheWrite
  },
  outputTokens: {
    total: usage.outputTokens,
    text:
      usage.outputTokens === undefined
        ? undefined
        : usage.outputTokens - (usage.reasoningTokens === undefined ? 0 : usage.reasoningTokens),
    reasoning: usage.reasoningTokens
  },
  ...(isJsonObject(usage.raw) ? { raw: usage.raw } : {})
})

const isJsonObject = (u: unknown): u is JSONObject => typeof u === "object" && u !== null && !Array.isArray(u)

/** `providerMetadata.umg`: the family served and the gateway's request id. */
const metadataOf = (family: TextFamily, response: ResponseInfo | undefined): SharedV4ProviderMetadata => ({
  [providerKey]: {
    family,
    ...(response?.requestId === undefined ? {} : { requestId: response.requestId })
  }
})

const umg = (fields: Readonly<Record<string, string | undefined>>): SharedV4ProviderMetadata | undefined => {
  const defined: JSONObject = {}
  for (const [k, v] of Object.entries(fields)) if (v !== undefined) defined[k] = v
  return Object.keys(defined).length === 0 ? undefined : { [providerKey]: defined }
}

const contentOf = (c: AnswerContent): LanguageModelV4Content => {
  switch (c.type) {
    case "text": {
      const meta = umg({ thoughtSignature: c.thoughtSignature })
      return { type: "text", text: c.text, ...(meta === undefined ? {} : { providerMetadata: meta }) }
    }
    case "reasoning": {
      const meta = umg({ signature: c.signature, redactedData: c.redactedData, thoughtSignature: c.thoughtSignature })
      return { type: "reasoning", text: c.text, ...(meta === undefined ? {} : { providerMetadata: meta }) }
    }
    case "tool-call": {
      const meta = umg({ thoughtSignature: c.thoughtSignature })
      return {
        type: "tool-call",
        toolCallId: c.id,
        toolName: c.name,
        input: c.arguments,
        ...(meta === undefined ? {} : { providerMetadata: meta })
      }
    }
  }
}

/**
 * A warning of umg's as the AI SDK's: `unsupported` where it names a setting the family does not
 * take, `compatibility` where a setting is sent in a form the model takes (a reasoning effort fitted).
 */
const warningOf = (warning: TextWarning): SharedV4Warning =>
  warning.feature === undefined
    ? { type: "other", message: warning.message }
    : {
        type: warning.kind ?? "unsupported",
        feature: warning.feature,
        ...(warning.details === undefined ? {} : { details: warning.details })
      }

const warningsOf = (call: TextCall, read: ReadonlyArray<SharedV4Warning>): Array<SharedV4Warning> => [
  ...read,
  ...call.warnings.map(warningOf)
]

const responseMetadata = (end: AnswerEnd) => ({
  ...(end.id === undefined ? {} : { id: end.id }),
  ...(end.modelId === undefined ? {} : { modelId: end.modelId }),
  ...(end.timestamp === undefined ? {} : { timestamp: end.timestamp })
})

/**
 * Gives the AI SDK stream parts of umg's text stream parts to `enqueue`. Text, reasoning and tool-input
 * parts other than the tool input's start and the text and reasoning ends (which carry their
 * signatures) are the specification's parts already (the same fields): they go as they are.
 */
const emitParts = (
  chunk: ReadonlyArray<TextStreamPart>,
  family: TextFamily,
  response: () => ResponseInfo | undefined,
  enqueue: (part: LanguageModelV4StreamPart) => void
): void => {
  for (let i = 0; i < chunk.length; i++) {
    const part = chunk[i]!
    switch (part.type) {
      case "text-delta":
      case "text-start":
      case "reasoning-start":
      case "reasoning-delta":
      case "tool-input-delta":
      case "tool-input-end":
        enqueue(part)
        break
      case "text-end": {
        const meta = umg({ thoughtSignature: part.thoughtSignature })
        enqueue({ type: "text-end", id: part.id, ...(meta === undefined ? {} : { providerMetadata: meta }) })
        break
      }
      case "reasoning-end": {
        const meta = umg({
          signature: part.signature,
          redactedData: part.redactedData,
          thoughtSignature: part.thoughtSignature
        })
        enqueue({ type: "reasoning-end", id: part.id, ...(meta === undefined ? {} : { providerMetadata: meta }) })
        break
      }
      case "tool-input-start":
        enqueue({ type: "tool-input-start", id: part.id, toolName: part.name })
        break
      case "tool-call": {
        const meta = umg({ thoughtSignature: part.thoughtSignature })
        enqueue({
          type: "tool-call",
          toolCallId: part.id,
          toolName: part.name,
          input: part.arguments,
          ...(meta === undefined ? {} : { providerMetadata: meta })
        })
        break
      }
      case "finish":
        enqueue({ type: "response-metadata", ...responseMetadata(part.end) })
        enqueue({
          type: "finish",
          usage: usageOf(part.end.usage),
          finishReason: part.end.finish,
          providerMetadata: metadataOf(family, response())
        })
    }
  }
}

const noUsage: TextUsage = {
  inputTokens: undefined,
  inputNoCache: undefined,
  cacheRead: undefined,
  cacheWrite: undefined,
  outputTokens: undefined,
  reasoningTokens: undefined,
  raw: undefined
}

/**
 * The parts that end a stream that failed while reading, in the official providers' order: the error,
 * the ends of the segments and tool inputs under way (`pending`), then `finish` with the reason `error`.
 */
const failedParts = (
  error: unknown,
  pending: ReadonlyArray<TextStreamPart>,
  family: TextFamily,
  response: () => ResponseInfo | undefined
): Array<LanguageModelV4StreamPart> => {
  const out: Array<LanguageModelV4StreamPart> = [{ type: "error", error }]
  emitParts(pending, family, response, (part) => out.push(part))
  out.push({
    type: "finish",
    usage: usageOf(noUsage),
    finishReason: { unified: "error", raw: undefined },
    providerMetadata: metadataOf(family, response())
  })
  return out
}

const httpUrl = /^https?:\/\/.*$/

/**
 * The files a family's body takes by URL, which the AI SDK then leaves as URLs for umg to send (it
 * downloads any other and umg sends it inline): images for chat; images and PDFs for messages-style
 * and responses, as `@ai-sdk/openai` and `@ai-sdk/anthropic` declare. Native content takes none: a
 * `fileData` URI must be one its provider serves, so the AI SDK downloads it.
 */
const supportedUrlsOf = (family: TextFamily): Record<string, Array<RegExp>> =>
  family === "chat"
    ? { "image/*": [httpUrl] }
    : family === "messages" || family === "responses"
      ? { "image/*": [httpUrl], "application/pdf": [httpUrl] }
      : {}

/**
 * The language model of `modelId` served by `family`.
 * @category constructors
 */
export const makeLanguageModel = (ctx: LanguageModelContext, modelId: string, family: TextFamily): LanguageModelV4 => {
  const prepareCall = (options: LanguageModelV4CallOptions, stream: boolean) => {
    const read = requestOf(modelId, options)
    const call = Result.flatMap(read, (r) => textCall(family, r.request, stream))
    const prepared = ctx.runtime.prepare(options)
    const site = {
      url: ctx.baseUrl + textPath(family, modelId, stream),
      requestBody: Result.isSuccess(call) ? call.success.body : undefined,
      signal: prepared.signal
    }
    if (Result.isFailure(read)) throw toSdkError(read.failure, site)
    if (Result.isFailure(call)) throw toSdkError(call.failure, site)
    return {
      request: read.success.request,
      warnings: warningsOf(call.success, read.success.warnings),
      call: call.success,
      prepared,
      site
    }
  }

  const doGenerate = async (options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> => {
    const { request, warnings, call, prepared, site } = prepareCall(options, false)
    const { answer, raw } = await ctx.runtime.run(site, (g) => generate(g, call, request, prepared.options))
    const info = prepared.response()
    return {
      content: answer.content.map(contentOf),
      finishReason: answer.finish,
      usage: usageOf(answer.usage),
      providerMetadata: metadataOf(family, info),
      request: { url: site.url, body: call.body },
      response: {
        ...responseMetadata(answer),
        ...(info === undefined ? {} : { headers: { ...info.headers } }),
        body: raw
      },
      warnings
    }
  }

  const doStream = async (options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> => {
    const { request, warnings, call, prepared, site } = prepareCall(options, true)
    // What the stream has under way, for its end should it fail.
    let pending = (): ReadonlyArray<TextStreamPart> => []
    const open = (g: GatewayService) =>
      Effect.map(openStream(g, call, request, prepared.options), (opened) => {
        pending = opened.pending
        return opened.pull
      })
    const stream = await ctx.runtime.stream(site, open, {
      first: (): ReadonlyArray<LanguageModelV4StreamPart> => [{ type: "stream-start", warnings }],
      emit: (chunk, enqueue) => emitParts(chunk, family, prepared.response, enqueue),
      onError: (error) => failedParts(error, pending(), family, prepared.response)
    })
    const info = prepared.response()
    return {
      stream,
      request: { url: site.url, body: call.body },
      ...(info === undefined ? {} : { response: { headers: { ...info.headers } } })
    }
  }

  return {
    specificationVersion: "v4",
    provider: `${ctx.provider}.${family}`,
    modelId,
    supportedUrls: supportedUrlsOf(family),
    doGenerate,
    doStream
  }
}
