/**
 * The `platform` group: E7 login and the paid submits E4 (text to video), E5 and E6 (Any Shoot),
 * sent with the cached E7 token; a refused token is replaced once and the call tried once more.
 * The platform may answer HTTP 200 with a failing `code`: that is a `PlatformError` too.
 */
import type { Redacted, Result } from "effect"
import * as Effect from "effect/Effect"
import { platformEnvelopeError } from "../../core/wire/ErrorEnvelope.js"
import type { DecodeError, PlatformRequestError } from "../../core/errors/GatewayError.js"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import {
  AnyShootAdvancedResponse,
  AnyShootEasyResponse,
  buildAnyShootAdvancedBody,
  buildAnyShootEasyBody,
  buildPlatformTextToVideoBody,
  PlatformTextToVideoResponse,
  type AnyShootAdvancedInput,
  type AnyShootEasyInput,
  type PlatformTextToVideoInput
} from "../../core/platform/Platform.js"
import { decodeWith } from "../../core/wire/WireJson.js"
import type { CallOptions } from "../CallOptions.js"
import * as GroupContext from "../internal/GroupContext.js"
import type { PlatformTokens } from "../http/PlatformToken.js"

/**
 * The `platform` calls. A submit's options go with the submit (not with the shared token fetch it
 * may wait for); its signal aborts the whole call, the wait for a token included.
 * @category models
 */
export interface PlatformGroup {
  /** Fetches a fresh E7 token (later calls use it); the value stays `Redacted`. */
  readonly login: (
    options?: CallOptions
  ) => Effect.Effect<Redacted.Redacted<string>, PlatformRequestError | InvalidRequest>
  /** E4: `data.task_id` of the submitted text-to-video task. */
  readonly textToVideo: (
    body: PlatformTextToVideoInput,
    options?: CallOptions
  ) => Effect.Effect<{ readonly task_id: string }, PlatformRequestError | InvalidRequest>
  /** E5: `data.url` of the generated image. */
  readonly anyShootEasy: (
    body: AnyShootEasyInput,
    options?: CallOptions
  ) => Effect.Effect<{ readonly url: string }, PlatformRequestError | InvalidRequest>
  /** E6: the task id. */
  readonly anyShootAdvanced: (
    body: AnyShootAdvancedInput,
    options?: CallOptions
  ) => Effect.Effect<string, PlatformRequestError | InvalidRequest>
}

const isRefused = (e: PlatformRequestError | InvalidRequest): boolean =>
  e._tag === "AuthenticationError" || (e._tag === "PlatformError" && e.code === 401)

// Compiled once, not per call.
const decodeTextToVideo = decodeWith(PlatformTextToVideoResponse, "platform", "text-to-video response")
const decodeAnyShootEasy = decodeWith(AnyShootEasyResponse, "platform", "any shoot easy response")
const decodeAnyShootAdvanced = decodeWith(AnyShootAdvancedResponse, "platform", "any shoot advanced response")

/** Builds the group. @category constructors */
export const make = (ctx: GroupContext.GroupContext, tokens: PlatformTokens): PlatformGroup => {
  // No default: without `platformUrl`, `tokens.current` refuses the call before any URL is needed.
  const platformUrl = (path: string) =>
    ctx.config.platformUrl._tag === "Some" ? `${ctx.config.platformUrl.value}${path}` : path

  const call = <A>(
    path: string,
    body: unknown,
    decode: (body: unknown) => Result.Result<A, DecodeError>,
    options: CallOptions | undefined
  ): Effect.Effect<A, PlatformRequestError | InvalidRequest> => {
    const send = Effect.fnUntraced(function* (auth: GroupContext.GroupContext["apiAuth"]) {
      const answer = yield* ctx.transport.platformJson({
        family: "platform",
        method: "POST",
        url: platformUrl(path),
        body,
        auth,
        kind: "paid-submit",
        options: GroupContext.perRequest(options)
      })
      const failed = platformEnvelopeError(answer.body, answer.requestId)
      if (failed !== undefined) return yield* Effect.fail(failed)
      return yield* Effect.fromResult(decode(answer.body))
    })
    return GroupContext.abortable(
      "platform",
      options,
      Effect.gen(function* () {
        const token = yield* tokens.current
        // A refused token proves the call was not acted on: replace the token once, try once more.
        return yield* send(token.auth).pipe(
          Effect.catchIf(isRefused, () => Effect.flatMap(tokens.refresh(token), (fresh) => send(fresh.auth)))
        )
      })
    )
  }

  return {
    login: (options) =>
      GroupContext.abortable(
        "platform",
        options,
        Effect.map(tokens.login(GroupContext.perRequest(options)), (t) => t.value)
      ),
    textToVideo: (body, options) =>
      Effect.flatMap(buildPlatformTextToVideoBody(body), (valid) =>
        Effect.map(call("/prod-api/svc/v4/api/svcVideoCompletions", valid, decodeTextToVideo, options), (r) => r.data)
      ),
    anyShootEasy: (body, options) =>
      Effect.flatMap(buildAnyShootEasyBody(body), (valid) =>
        Effect.map(
          call("/prod-api/svc/v4/api/anyShootEasyModeSubmit", valid, decodeAnyShootEasy, options),
          (r) => r.data
        )
      ),
    anyShootAdvanced: (body, options) =>
      Effect.flatMap(buildAnyShootAdvancedBody(body), (valid) =>
        Effect.map(
          call("/prod-api/svc/v4/api/anyShootAdvancedModeSubmit", valid, decodeAnyShootAdvanced, options),
          (r) => r.data
        )
      )
  }
}
