/**
 * The `responses` group: OpenAI-style `/v1/responses` (E16; the GPT-5 and o-series route here), one
 * answer or an SSE stream ending with `response.completed`, each body validated by the core first.
 */
import * as Effect from "effect/Effect"
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
import * as GroupContext from "../internal/GroupContext.js"
import type { SseStreamSpec } from "../sse/SseTransport.js"

/** The `responses` calls. @category models */
export interface ResponsesGroup {
  /** POST `/v1/responses`: one response. */
  readonly create: (body: ResponsesBodyInput) => Effect.Effect<ResponsesResponse, RequestError | InvalidRequest>
  /**
   * POST `/v1/responses` with `stream: true`: the decoded events up to the terminal one
   * (`response.completed`, `.failed`, `.incomplete`, or `[DONE]`); a cut or early end fails with
   * `IncompleteStream` carrying the snapshot.
   */
  readonly stream: (
    body: ResponsesBodyInput
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
export const make = (ctx: GroupContext.GroupContext): ResponsesGroup => ({
  create: Effect.fnUntraced(function* (body: ResponsesBodyInput) {
    const valid = yield* buildResponsesBody(
      { ...body, stream: false },
      { allowUnknownModels: ctx.config.allowUnknownModels }
    )
    const answer = yield* ctx.transport.json(GroupContext.post(ctx, "openai", "/v1/responses", valid))
    return yield* Effect.fromResult(decodeResponsesResponse(answer.body))
  }),
  stream: (body) =>
    GroupContext.sse(
      ctx,
      Effect.map(
        buildResponsesBody({ ...body, stream: true }, { allowUnknownModels: ctx.config.allowUnknownModels }),
        (valid) => GroupContext.post(ctx, "openai", "/v1/responses", valid)
      ),
      responsesStreamSpec
    )
})
