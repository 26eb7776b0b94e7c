/**
 * The `responses` group: OpenAI-style `/v1/responses` (E16; the GPT-5 and o-series route here), one
 * answer or an SSE stream ending with `response.completed`, each body validated by the core first.
 */
import * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import type { AnySchema } from "../../core/structured/AnySchema.js"
import type { ParseOptions, Parsed, StructuredError, StructuredEvent } from "../structured/Parse.js"
import type { RunToolsMethod } from "../tools/RunTools.js"
import { textHelpers } from "./LoadedOnUse.js"
import type { RequestError, StreamError } from "../../core/errors/GatewayError.js"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { buildResponsesBody, type ResponsesBodyInput } from "../../core/text/responses/ResponsesBody.js"
import { responsesAccumulator } from "../../core/text/responses/ResponsesAccumulator.js"
import {
  decodeResponsesEventEither,
  decodeResponsesResponse,
  type ResponsesEvent,
  type ResponsesResponse
} from "../../core/text/responses/ResponsesResponse.js"
import type { ResultStream } from "../sse/Consume.js"
import type { CallOptions } from "../CallOptions.js"
import * as GroupContext from "../internal/GroupContext.js"
import type { SseStreamSpec } from "../sse/SseTransport.js"

/** The `responses` calls. @category models */
export interface ResponsesCalls {
  /** POST `/v1/responses`: one response. */
  readonly create: (
    body: ResponsesBodyInput,
    options?: CallOptions
  ) => Effect.Effect<ResponsesResponse, RequestError | InvalidRequest>
  /**
   * POST `/v1/responses` with `stream: true`: the decoded events up to the terminal one
   * (`response.completed`, `.failed`, `.incomplete`, or `[DONE]`); a cut or early end fails with
   * `IncompleteStream` carrying the snapshot.
   */
  readonly stream: (
    body: ResponsesBodyInput,
    options?: CallOptions
  ) => ResultStream<ResponsesEvent, StreamError | InvalidRequest, ResponsesResponse>
}

const TERMINAL = new Set(["response.completed", "response.failed", "response.incomplete", "done"])

/** The responses SSE stream. @category models */
export const responsesStreamSpec: SseStreamSpec<
  ResponsesEvent,
  typeof responsesAccumulator.initial,
  ResponsesResponse
> = {
  family: "openai",
  decode: decodeResponsesEventEither,
  isKeepAlive: (record) => record.event === "ping",
  isFinal: (event) => TERMINAL.has(event.type),
  accumulator: responsesAccumulator
}

/** Builds the group. @category constructors */
export const make = (ctx: GroupContext.GroupContext): ResponsesCalls => ({
  create: Effect.fnUntraced(function* (body: ResponsesBodyInput, options?: CallOptions) {
    const valid = yield* buildResponsesBody(GroupContext.withStream(body, false), {
      allowUnknownModels: ctx.config.allowUnknownModels
    })
    const answer = yield* ctx.transport.json(GroupContext.post(ctx, "openai", "/v1/responses", valid, options))
    return yield* Effect.fromResult(decodeResponsesResponse(answer.body))
  }),
  stream: (body, options) =>
    GroupContext.sse(
      ctx,
      Effect.map(
        buildResponsesBody(GroupContext.withStream(body, true), { allowUnknownModels: ctx.config.allowUnknownModels }),
        (valid) => GroupContext.post(ctx, "openai", "/v1/responses", valid, options)
      ),
      responsesStreamSpec
    )
})

/**
 * The `responses` group: its calls, plus structured output (`parse`, `parseStream`) and the tool
 * loop (`runTools`) built on them.
 * @category models
 */
export interface ResponsesGroup extends ResponsesCalls {
  /**
   * `create` with structured output: sends the family's mechanism for `schema` (an Effect Schema
   * or any Standard Schema) and gives the decoded value with the raw answer; an answer that does not
   * match fails with `OutputMismatch` (raw text kept), a schema JSON Schema cannot express is refused
   * before sending with `SchemaNotExpressible`.
   */
  readonly parse: <A>(
    body: ResponsesBodyInput,
    schema: AnySchema<A>,
    options?: ParseOptions
  ) => Effect.Effect<Parsed<A, ResponsesResponse>, RequestError | InvalidRequest | StructuredError>
  /** `stream` with structured output: `Partial` values as they grow, then the `Final` decoded value. */
  readonly parseStream: <A>(
    body: ResponsesBodyInput,
    schema: AnySchema<A>,
    options?: ParseOptions
  ) => Stream.Stream<StructuredEvent<A, ResponsesResponse>, StreamError | InvalidRequest | StructuredError>
  /**
   * The tool loop: sends `body` with the tools, runs the handlers of the calls the model makes (bounded
   * concurrency), sends the results back, until the model stops or `maxSteps`; every step is an element.
   */
  readonly runTools: RunToolsMethod<ResponsesBodyInput, ResponsesResponse, RequestError | InvalidRequest>
}

/** The group from its (traced) calls: structured output and the tool loop added on top. @category constructors */
export const withHelpers = (calls: ResponsesCalls): ResponsesGroup => ({
  ...calls,
  // Structured output and the tool loop: their module (JSON Schema, partial JSON, the loop) loads on first use.
  ...textHelpers((module): Pick<ResponsesGroup, "parse" | "parseStream" | "runTools"> => ({
    parse: module.responsesParse(calls.create),
    parseStream: module.responsesParseStream(calls.stream),
    runTools: (body, config, options) => module.responsesRunTools(calls, body, config, options)
  }))
})
