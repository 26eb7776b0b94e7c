/** The `images` group: POST `/v1/images/generations` (E15) for zeta image models, answered as decoded bytes. */
import * as Effect from "effect/Effect"
import type { RequestError } from "../../core/errors/GatewayError.js"
import { buildImagesBody, decodeImages, type DecodedImages, type ImagesBodyInput } from "../../core/media/Images.js"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import type { CallOptions } from "../CallOptions.js"
import * as GroupContext from "../internal/GroupContext.js"

/** The `images` calls. @category models */
export interface ImagesGroup {
  /**
   * Generates images; each `b64_json` is decoded strictly to bytes, and the answer's `size`,
   * `output_format`, `quality`, `background` and `usage` kept as given.
   */
  readonly generate: (
    body: ImagesBodyInput,
    options?: CallOptions
  ) => Effect.Effect<DecodedImages, RequestError | InvalidRequest>
}

/** Builds the group. @category constructors */
export const make = (ctx: GroupContext.GroupContext): ImagesGroup => ({
  generate: Effect.fnUntraced(function* (body: ImagesBodyInput, options?: CallOptions) {
    const valid = yield* buildImagesBody(body, { allowUnknownModels: ctx.config.allowUnknownModels })
    const answer = yield* ctx.transport.json(GroupContext.post(ctx, "openai", "/v1/images/generations", valid, options))
    return yield* decodeImages(answer.body)
  })
})
