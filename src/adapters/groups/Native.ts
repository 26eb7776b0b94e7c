/**
 * The `native` group: zeta's native-content API (E10), `generateContent` and
 * `streamGenerateContent?alt=sse`. The key is carried as the config says (Bearer, `x-vendor-api-key`
 * or `?key=`), and each body is validated by the core before it is sent.
 */
import * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import type { AnySchema } from "../../core/structured/AnySchema.js"
import type { ParseOptions, Parsed, StructuredError, StructuredEvent } from "../structured/Parse.js"
import type { RunToolsMethod } from "../tools/RunTools.js"
import { textHelpers } from "./LoadedOnUse.js"
import type { RequestError, StreamError } from "../../core/errors/GatewayError.js"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { buildNativeBody, parseNativeModel, type NativeBodyInput } from "../../core/text/native/Native.js"
import { isNativeComplete, nativeAccumulator, type NativeSnapshot } from "../../core/text/native/NativeAccumulator.js"
import {
  decodeGenerateContentResponse,
  decodeNativeChunkEither,
  type GenerateContentResponse,
  type NativeChunk
} from "../../core/text/native/NativeResponse.js"
import { nativePaths, routeForCapability } from "../../core/gateway/Routing.js"
import { isRecord } from "../../core/validation/Rules.js"
import type { ResultStream } from "../sse/Consume.js"
import type { CallOptions } from "../CallOptions.js"
import * as GroupContext from "../internal/GroupContext.js"
import type * as HttpAuth from "../http/HttpAuth.js"
import type { TransportRequest } from "../http/HttpTransport.js"
import type { SseStreamSpec } from "../sse/SseTransport.js"

/** A native-content call: the model (it goes in the path) and the body. @category models */
export type NativeRequest = NativeBodyInput & { readonly model: string }

/** The `native` calls. @category models */
export interface NativeCalls {
  /** POST `/v1beta/models/{model}:generateContent`. */
  readonly generate: (
    request: NativeRequest,
    options?: CallOptions
  ) => Effect.Effect<GenerateContentResponse, RequestError | InvalidRequest>
  /**
   * POST `/v1beta/models/{model}:streamGenerateContent?alt=sse`: the chunks; the stream must end with
   * every candidate finished (or the prompt blocked: then the answer is the `promptFeedback`, no
   * candidate, as `generate` gives it), else `IncompleteStream` with the merged snapshot.
   */
  readonly stream: (
    request: NativeRequest,
    options?: CallOptions
  ) => ResultStream<NativeChunk, StreamError | InvalidRequest, GenerateContentResponse>
}

/**
 * The native SSE stream of a request asking `candidates` candidates (`generationConfig.candidateCount`).
 * It has no final event of its own: it is over once that many candidates have each their
 * `finishReason` (a candidate may first appear after the others finished, so the ones seen so far do
 * not tell), or at a blocked prompt (no candidate will come). Nothing more is read then, so a server
 * that keeps the socket open after the last chunk cannot turn a complete answer into an idle timeout.
 * @category models
 */
export const nativeStreamSpec = (
  candidates: number
): SseStreamSpec<NativeChunk, NativeSnapshot, GenerateContentResponse> => ({
  family: "native",
  decode: decodeNativeChunkEither,
  isKeepAlive: (record) => record.event === "ping",
  isFinal: (_chunk, snapshot) => isNativeComplete(snapshot(), candidates),
  accumulator: nativeAccumulator
})

/**
 * The candidates a request asks for: its `generationConfig.candidateCount`, else 1. Read before the
 * body is checked (the stream's spec is made with the call); a value the check refuses never streams.
 */
const candidatesAsked = (input: NativeRequest): number => {
  const config: unknown = isRecord(input) ? input.generationConfig : undefined
  const count = isRecord(config) ? config.candidateCount : undefined
  return typeof count === "number" && Number.isSafeInteger(count) && count > 1 ? count : 1
}

const authOf = (ctx: GroupContext.GroupContext): HttpAuth.Auth => {
  switch (ctx.config.nativeAuth) {
    case "x-vendor-api-key":
      return { _tag: "Header", header: "x-vendor-api-key", value: ctx.config.apiKey }
    case "query":
      return { _tag: "Query", name: "key", value: ctx.config.apiKey }
    case "bearer":
      return ctx.apiAuth
  }
}

const request = Effect.fnUntraced(function* (
  ctx: GroupContext.GroupContext,
  input: NativeRequest,
  stream: boolean,
  options: CallOptions | undefined
): Effect.fn.Return<TransportRequest, InvalidRequest> {
  const { model, ...rest } = input
  const routing = { allowUnknownModels: ctx.config.allowUnknownModels }
  // The catalog lists base ids: a thinking suffix (`-thinking-high`, `-nothinking`, …) is routed by
  // its base, and the full id goes in the path.
  const { base } = yield* Effect.fromResult(parseNativeModel(model))
  yield* Effect.fromResult(routeForCapability(base, "native", routing))
  const body = yield* buildNativeBody(model, rest, routing)
  const paths = nativePaths(model)
  return {
    family: "native",
    method: "POST",
    url: ctx.gatewayUrl(stream ? paths.stream : paths.generate),
    body,
    auth: authOf(ctx),
    kind: "idempotent",
    options
  } satisfies TransportRequest
})

/** Builds the group. @category constructors */
export const make = (ctx: GroupContext.GroupContext): NativeCalls => ({
  generate: Effect.fnUntraced(function* (input: NativeRequest, options?: CallOptions) {
    const answer = yield* ctx.transport.json(yield* request(ctx, input, false, options))
    return yield* Effect.fromResult(decodeGenerateContentResponse(answer.body))
  }),
  stream: (input, options) =>
    GroupContext.sse(ctx, request(ctx, input, true, options), nativeStreamSpec(candidatesAsked(input)))
})

/**
 * The `native` group: its calls, plus structured output (`parse`, `parseStream`) and the tool
 * loop (`runTools`) built on them.
 * @category models
 */
export interface NativeGroup extends NativeCalls {
  /**
   * `generate` with structured output: sends the family's mechanism for `schema` (an Effect Schema
   * or any Standard Schema) and gives the decoded value with the raw answer; an answer that does not
   * match fails with `OutputMismatch` (raw text kept), a schema JSON Schema cannot express is refused
   * before sending with `SchemaNotExpressible`.
   */
  readonly parse: <A>(
    body: NativeRequest,
    schema: AnySchema<A>,
    options?: ParseOptions
  ) => Effect.Effect<Parsed<A, GenerateContentResponse>, RequestError | InvalidRequest | StructuredError>
  /** `stream` with structured output: `Partial` values as they grow, then the `Final` decoded value. */
  readonly parseStream: <A>(
    body: NativeRequest,
    schema: AnySchema<A>,
    options?: ParseOptions
  ) => Stream.Stream<StructuredEvent<A, GenerateContentResponse>, StreamError | InvalidRequest | StructuredError>
  /**
   * The tool loop: sends `body` with the tools, runs the handlers of the calls the model makes (bounded
   * concurrency), sends the results back, until the model stops or `maxSteps`; every step is an element.
   */
  readonly runTools: RunToolsMethod<NativeRequest, GenerateContentResponse, RequestError | InvalidRequest>
}

/** The group from its (traced) calls: structured output and the tool loop added on top. @category constructors */
export const withHelpers = (calls: NativeCalls): NativeGroup => ({
  ...calls,
  // Structured output and the tool loop: their module (JSON Schema, partial JSON, the loop) loads on first use.
  ...textHelpers((module): Pick<NativeGroup, "parse" | "parseStream" | "runTools"> => ({
    parse: module.nativeParse(calls.generate),
    parseStream: module.nativeParseStream(calls.stream),
    runTools: (body, config, options) => module.nativeRunTools(calls, body, config, options)
  }))
})
