/** The `rerank` group: POST `/v1/rerank` (E13), validated before sending, results checked against the documents. */
import * as Effect from "effect/Effect"
import type { RequestError } from "../../core/errors/GatewayError.js"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { buildRerankBody, decodeRerank, type RerankBodyInput, type RerankResponse } from "../../core/media/Rerank.js"
import type { CallOptions } from "../CallOptions.js"
import * as GroupContext from "../internal/GroupContext.js"

/** The `rerank` calls. @category models */
export interface RerankGroup {
  /** POST `/v1/rerank`. */
  readonly create: (
    body: RerankBodyInput,
    options?: CallOptions
  ) => Effect.Effect<RerankResponse, RequestError | InvalidRequest>
}

/** Builds the group. @category constructors */
export const make = (ctx: GroupContext.GroupContext): RerankGroup => ({
  create: Effect.fnUntraced(function* (body: RerankBodyInput, options?: CallOptions) {
    const valid = yield* buildRerankBody(body, { allowUnknownModels: ctx.config.allowUnknownModels })
    const answer = yield* ctx.transport.json(GroupContext.post(ctx, "openai", "/v1/rerank", valid, options))
    return yield* decodeRerank(answer.body, valid.documents.length)
  })
})
