/**
 * The `chat` group: OpenAI-style chat completions (E16), one answer or an SSE stream ending with
 * `data: [DONE]`, each body validated (and routed) by the core before it is sent.
 */
import * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import type { AnySchema } from "../../core/structured/AnySchema.js"
import type { ParseOptions, Parsed, StructuredError, StructuredEvent } from "../structured/Parse.js"
import type { RunToolsMethod } from "../tools/RunTools.js"
import { textHelpers } from "./LoadedOnUse.js"
import { chatAccumulator, type ChatSnapshot } from "../../core/text/chat/ChatAccumulator.js"
import {
  decodeChatCompletion,
  decodeChatEventEither,
  type ChatCompletion,
  type ChatStreamEvent
} from "../../core/text/chat/ChatResponse.js"
import type { RequestError, StreamError } from "../../core/errors/GatewayError.js"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { buildChatBody, type ChatBodyInput } from "../../core/text/chat/ChatBody.js"
import type { ResultStream } from "../sse/Consume.js"
import type { CallOptions } from "../CallOptions.js"
import * as GroupContext from "../internal/GroupContext.js"
import type { SseStreamSpec } from "../sse/SseTransport.js"

/** The `chat` calls. @category models */
export interface ChatCalls {
  /** POST `/v1/chat/completions`: one completion. */
  readonly create: (
    body: ChatBodyInput,
    options?: CallOptions
  ) => Effect.Effect<ChatCompletion, RequestError | InvalidRequest>
  /**
   * POST `/v1/chat/completions` with `stream: true`: the decoded chunks and the final `done`; a cut
   * or a missing `[DONE]` fails with `IncompleteStream` carrying the accumulated snapshot.
   */
  readonly stream: (
    body: ChatBodyInput,
    options?: CallOptions
  ) => ResultStream<ChatStreamEvent, StreamError | InvalidRequest, ChatCompletion>
}

/** The chat SSE stream: `[DONE]` is final. @category models */
export const chatStreamSpec: SseStreamSpec<ChatStreamEvent, ChatSnapshot, ChatCompletion> = {
  family: "openai",
  decode: decodeChatEventEither,
  isKeepAlive: (record) => record.event === "ping",
  isFinal: (event) => event.type === "done",
  accumulator: chatAccumulator
}

/** Builds the group. @category constructors */
export const make = (ctx: GroupContext.GroupContext): ChatCalls => ({
  create: Effect.fnUntraced(function* (body: ChatBodyInput, options?: CallOptions) {
    const valid = yield* buildChatBody(GroupContext.withStream(body, false), {
      allowUnknownModels: ctx.config.allowUnknownModels
    })
    const answer = yield* ctx.transport.json(GroupContext.post(ctx, "openai", "/v1/chat/completions", valid, options))
    return yield* Effect.fromResult(decodeChatCompletion(answer.body))
  }),
  stream: (body, options) =>
    GroupContext.sse(
      ctx,
      Effect.map(
        buildChatBody(GroupContext.withStream(body, true), { allowUnknownModels: ctx.config.allowUnknownModels }),
        (valid) => GroupContext.post(ctx, "openai", "/v1/chat/completions", valid, options)
      ),
      chatStreamSpec
    )
})

/**
 * The `chat` group: its calls, plus structured output (`parse`, `parseStream`) and the tool
 * loop (`runTools`) built on them.
 * @category models
 */
export interface ChatGroup extends ChatCalls {
  /**
   * `create` with structured output: sends the family's mechanism for `schema` (an Effect Schema
   * or any Standard Schema) and gives the decoded value with the raw answer; an answer that does not
   * match fails with `OutputMismatch` (raw text kept), a schema JSON Schema cannot express is refused
   * before sending with `SchemaNotExpressible`.
   */
  readonly parse: <A>(
    body: ChatBodyInput,
    schema: AnySchema<A>,
    options?: ParseOptions
  ) => Effect.Effect<Parsed<A, ChatCompletion>, RequestError | InvalidRequest | StructuredError>
  /** `stream` with structured output: `Partial` values as they grow, then the `Final` decoded value. */
  readonly parseStream: <A>(
    body: ChatBodyInput,
    schema: AnySchema<A>,
    options?: ParseOptions
  ) => Stream.Stream<StructuredEvent<A, ChatCompletion>, StreamError | InvalidRequest | StructuredError>
  /**
   * The tool loop: sends `body` with the tools, runs the handlers of the calls the model makes (bounded
   * concurrency), sends the results back, until the model stops or `maxSteps`; every step is an element.
   */
  readonly runTools: RunToolsMethod<ChatBodyInput, ChatCompletion, RequestError | InvalidRequest>
}

/** The group from its (traced) calls: structured output and the tool loop added on top. @category constructors */
export const withHelpers = (calls: ChatCalls): ChatGroup => ({
  ...calls,
  // Structured output and the tool loop: their module (JSON Schema, partial JSON, the loop) loads on first use.
  ...textHelpers((module): Pick<ChatGroup, "parse" | "parseStream" | "runTools"> => ({
    parse: module.chatParse(calls.create),
    parseStream: module.chatParseStream(calls.stream),
    runTools: (body, config, options) => module.chatRunTools(calls, body, config, options)
  }))
})
