/**
 * The `messages` group: epsilon's messages-style API (E8 create, SSE stream, E9 count tokens), each
 * body validated by the core before it is sent.
 */
import * as Effect from "effect/Effect"
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
import { decodeWith } from "../../core/wire/WireJson.js"
import type { ResultStream } from "../sse/Consume.js"
import * as GroupContext from "../internal/GroupContext.js"
import type { SseStreamSpec } from "../sse/SseTransport.js"

/** The answer of E9. @category models */
export interface TokenCount {
  readonly input_tokens: number
}

/** The `messages` calls. @category models */
export interface MessagesGroup {
  /** POST `/v1/messages`: one complete message. */
  readonly create: (body: MessagesBodyInput) => Effect.Effect<Message, RequestError | InvalidRequest>
  /**
   * POST `/v1/messages` with `stream: true`: the decoded events (pings dropped), ending after
   * `message_stop`; a cut or early end fails with `IncompleteStream` whose `partial` is the
   * accumulated snapshot.
   */
  readonly stream: (body: MessagesBodyInput) => ResultStream<MessagesEvent, StreamError | InvalidRequest, Message>
  /** POST `/v1/messages/count_tokens`. */
  readonly countTokens: (body: CountTokensBodyInput) => Effect.Effect<TokenCount, RequestError | InvalidRequest>
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
export const make = (ctx: GroupContext.GroupContext): MessagesGroup => ({
  create: Effect.fnUntraced(function* (body: MessagesBodyInput) {
    const valid = yield* buildMessagesBody(
      { ...body, stream: false },
      { allowUnknownModels: ctx.config.allowUnknownModels }
    )
    const answer = yield* ctx.transport.json(GroupContext.post(ctx, "messages", "/v1/messages", valid))
    return yield* Effect.fromResult(decodeMessage(answer.body))
  }),
  stream: (body) =>
    GroupContext.sse(
      ctx,
      Effect.map(
        buildMessagesBody({ ...body, stream: true }, { allowUnknownModels: ctx.config.allowUnknownModels }),
        (valid) => GroupContext.post(ctx, "messages", "/v1/messages", valid)
      ),
      messagesStreamSpec
    ),
  countTokens: Effect.fnUntraced(function* (body: CountTokensBodyInput) {
    const valid = yield* buildCountTokensBody(body, { allowUnknownModels: ctx.config.allowUnknownModels })
    const answer = yield* ctx.transport.json(GroupContext.post(ctx, "count_tokens", "/v1/messages/count_tokens", valid))
    return yield* Effect.fromResult(decodeTokenCount(answer.body))
  })
})
