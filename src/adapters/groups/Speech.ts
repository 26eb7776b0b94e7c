/** The `speech` group: POST `/v1/audio/speech` (E14), the audio whole (bytes and content type) or as a byte stream. */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { RequestError } from "../../core/errors/GatewayError.js"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { buildSpeechBody, speechContentType, speechFormatOf, type SpeechBodyInput } from "../../core/media/Speech.js"
import type { CallOptions } from "../CallOptions.js"
import * as GroupContext from "../internal/GroupContext.js"

/** Synthesised audio. @category models */
export interface SpeechAudio {
  readonly bytes: Uint8Array
  /** The answer's `content-type`, or the one of the requested format when the gateway sent none. */
  readonly contentType: string
}

/** The `speech` calls. @category models */
export interface SpeechGroup {
  /** The whole audio. */
  readonly create: (
    body: SpeechBodyInput,
    options?: CallOptions
  ) => Effect.Effect<SpeechAudio, RequestError | InvalidRequest>
  /**
   * The audio as it arrives (interrupting the stream aborts the request). The call's `timeoutMs` (else
   * `streamFirstByteTimeoutMs`) bounds the wait for the answer's headers and then for its first bytes,
   * the layer's `streamIdleTimeoutMs` every gap after; past one, the stream fails with a `TimeoutError`
   * and the connection is closed.
   */
  readonly stream: (
    body: SpeechBodyInput,
    options?: CallOptions
  ) => Stream.Stream<Uint8Array, RequestError | InvalidRequest>
}

/** Builds the group. @category constructors */
export const make = (ctx: GroupContext.GroupContext): SpeechGroup => ({
  create: Effect.fnUntraced(function* (body: SpeechBodyInput, options?: CallOptions) {
    const valid = yield* buildSpeechBody(body, { allowUnknownModels: ctx.config.allowUnknownModels })
    const answer = yield* ctx.transport.bytes(GroupContext.post(ctx, "openai", "/v1/audio/speech", valid, options))
    const declared = answer.headers["content-type"]
    return { bytes: answer.bytes, contentType: declared ?? speechContentType(speechFormatOf(valid)) }
  }),
  stream: (body, options) =>
    Stream.unwrap(
      Effect.flatMap(buildSpeechBody(body, { allowUnknownModels: ctx.config.allowUnknownModels }), (valid) =>
        ctx.transport.open(GroupContext.post(ctx, "openai", "/v1/audio/speech", valid, options))
      )
    )
})
