/**
 * The `messages` group: epsilon's messages-style API (E8 create, SSE stream, E9 count tokens), each
 * body validated by the core before it is sent.
 */
import * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import type { AnySchema } from "../../core/structured/AnySchema.js"
import type { ParseOptions, Parsed, StructuredError, StructuredEvent } from "../structured/Parse.js"
import type { RunToolsMethod } from "../tools/RunTools.js"
import { textHelpers } from "./LoadedOnUse.js"
import * as Schema from "effect/Schema"
import type { RequestError, StreamError } from "../../core/errors/GatewayError.js"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import {
  buildCountTokensBody,
  buildMessagesBody,
  type CountTokensBodyInput,
  type MessagesBodyInput
} from "../../core/text/messages/Messages.js"
import { messagesAccumulator } from "../../core/text/messages/MessagesAccumulator.js"
import { decodeMessagesEventEither, type MessagesEvent } from "../../core/text/messages/MessagesEvents.js"
import { decodeMessage, type Message } from "../../core/text/messages/MessagesResponse.js"
import { countTokensEnvelopeError } from "../../core/wire/ErrorEnvelope.js"
import { decodeWith } from "../../core/wire/WireJson.js"
import type { ResultStream } from "../sse/Consume.js"
import type { CallOptions } from "../CallOptions.js"
import * as GroupContext from "../internal/GroupContext.js"
import type { SseStreamSpec } from "../sse/SseTransport.js"

/** The answer of E9. @category models */
export interface TokenCount {
  readonly input_tokens: number
}

/** The `messages` calls. @category models */
export interface MessagesCalls {
  /** POST `/v1/messages`: one complete message. */
  readonly create: (
    body: MessagesBodyInput,
    options?: CallOptions
  ) => Effect.Effect<Message, RequestError | InvalidRequest>
  /**
   * POST `/v1/messages` with `stream: true`: the decoded events (pings dropped), ending after
   * `message_stop`; a cut or early end fails with `IncompleteStream` whose `partial` is the
   * accumulated snapshot.
   */
  readonly stream: (
    body: MessagesBodyInput,
    options?: CallOptions
  ) => ResultStream<MessagesEvent, StreamError | InvalidRequest, Message>
  /** POST `/v1/messages/count_tokens`. */
  readonly countTokens: (
    body: CountTokensBodyInput,
    options?: CallOptions
  ) => Effect.Effect<TokenCount, RequestError | InvalidRequest>
}

const decodeTokenCount = decodeWith(
  Schema.Struct({ input_tokens: Schema.Number }),
  "count_tokens",
  "count_tokens response"
)

/** The messages-style SSE stream: pings are keep-alives, `message_stop` is final. @category models */
export const messagesStreamSpec: SseStreamSpec<MessagesEvent, typeof messagesAccumulator.initial, Message> = {
  family: "messages",
  decode: decodeMessagesEventEither,
  isKeepAlive: (record) => record.event === "ping",
  isFinal: (event) => event.type === "message_stop",
  accumulator: messagesAccumulator
}

/** Builds the group. @category constructors */
export const make = (ctx: GroupContext.GroupContext): MessagesCalls => ({
  create: Effect.fnUntraced(function* (body: MessagesBodyInput, options?: CallOptions) {
    const valid = yield* buildMessagesBody(GroupContext.withStream(body, false), {
      allowUnknownModels: ctx.config.allowUnknownModels
    })
    const answer = yield* ctx.transport.json(GroupContext.post(ctx, "messages", "/v1/messages", valid, options))
    return yield* Effect.fromResult(decodeMessage(answer.body))
  }),
  stream: (body, options) =>
    GroupContext.sse(
      ctx,
      Effect.map(
        buildMessagesBody(GroupContext.withStream(body, true), { allowUnknownModels: ctx.config.allowUnknownModels }),
        (valid) => GroupContext.post(ctx, "messages", "/v1/messages", valid, options)
      ),
      messagesStreamSpec
    ),
  countTokens: Effect.fnUntraced(function* (body: CountTokensBodyInput, options?: CallOptions) {
    const valid = yield* buildCountTokensBody(body, { allowUnknownModels: ctx.config.allowUnknownModels })
    const answer = yield* ctx.transport.json(
      GroupContext.post(ctx, "count_tokens", "/v1/messages/count_tokens", valid, options)
    )
    // The contract gives no status for count tokens' error envelopes: one under a 2xx is its typed error.
    const failed = countTokensEnvelopeError({
      status: answer.status,
      headers: { ...answer.headers },
      body: answer.body
    })
    if (failed !== undefined) return yield* Effect.fail(failed)
    return yield* Effect.fromResult(decodeTokenCount(answer.body))
  })
})

/**
 * The `messages` group: its calls, plus structured output (`parse`, `parseStream`) and the tool
 * loop (`runTools`) built on them.
 * @category models
 */
export interface MessagesGroup extends MessagesCalls {
  /**
   * `create` with structured output: sends the family's mechanism for `schema` (an Effect Schema
   * or any Standard Schema) and gives the decoded value with the raw answer; an answer that does not
   * match fails with `OutputMismatch` (raw text kept), a schema JSON Schema cannot express is refused
   * before sending with `SchemaNotExpressible`.
   */
  readonly parse: <A>(
    body: MessagesBodyInput,
    schema: AnySchema<A>,
    options?: ParseOptions
  ) => Effect.Effect<Parsed<A, Message>, RequestError | InvalidRequest | StructuredError>
  /** `stream` with structured output: `Partial` values as they grow, then the `Final` decoded value. */
  readonly parseStream: <A>(
    body: MessagesBodyInput,
    schema: AnySchema<A>,
    options?: ParseOptions
  ) => Stream.Stream<StructuredEvent<A, Message>, StreamError | InvalidRequest | StructuredError>
  /**
   * The tool loop: sends `body` with the tools, runs the handlers of the calls the model makes (bounded
   * concurrency), sends the results back, until the model stops or `maxSteps`; every step is an element.
   */
  readonly runTools: RunToolsMethod<MessagesBodyInput, Message, RequestError | InvalidRequest>
}

/** The group from its (traced) calls: structured output and the tool loop added on top. @category constructors */
export const withHelpers = (calls: MessagesCalls): MessagesGroup => ({
  ...calls,
  // Structured output and the tool loop: their module (JSON Schema, partial JSON, the loop) loads on first use.
  ...textHelpers((module): Pick<MessagesGroup, "parse" | "parseStream" | "runTools"> => ({
    parse: module.messagesParse(calls.create),
    parseStream: module.messagesParseStream(calls.stream),
    runTools: (body, config, options) => module.messagesRunTools(calls, body, config, options)
  }))
})
