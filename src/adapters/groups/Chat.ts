/**
 * The `chat` group: OpenAI-style chat completions (E16), one answer or an SSE stream ending with
 * `data: [DONE]`, each body validated (and routed) by the core before it is sent.
 */
import * as Effect from "effect/Effect"
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
import * as GroupContext from "../internal/GroupContext.js"
import type { SseStreamSpec } from "../sse/SseTransport.js"

/** The `chat` calls. @category models */
export interface ChatGroup {
  /** POST `/v1/chat/completions`: one completion. */
  readonly create: (body: ChatBodyInput) => Effect.Effect<ChatCompletion, RequestError | InvalidRequest>
  /**
   * POST `/v1/chat/completions` with `stream: true`: the decoded chunks and the final `done`; a cut
   * or a missing `[DONE]` fails with `IncompleteStream` carrying the accumulated snapshot.
   */
  readonly stream: (body: ChatBodyInput) => ResultStream<ChatStreamEvent, StreamError | InvalidRequest, ChatCompletion>
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
export const make = (ctx: GroupContext.GroupContext): ChatGroup => ({
  create: Effect.fnUntraced(function* (body: ChatBodyInput) {
    const valid = yield* buildChatBody(
      { ...body, stream: false },
      { allowUnknownModels: ctx.config.allowUnknownModels }
    )
    const answer = yield* ctx.transport.json(GroupContext.post(ctx, "openai", "/v1/chat/completions", valid))
    return yield* Effect.fromResult(decodeChatCompletion(answer.body))
  }),
  stream: (body) =>
    GroupContext.sse(
      ctx,
      Effect.map(
        buildChatBody({ ...body, stream: true }, { allowUnknownModels: ctx.config.allowUnknownModels }),
        (valid) => GroupContext.post(ctx, "openai", "/v1/chat/completions", valid)
      ),
      chatStreamSpec
    )
})
