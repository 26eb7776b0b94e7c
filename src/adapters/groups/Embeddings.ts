/**
 * The `embeddings` group: one text per request (E12), and `embedMany` over many texts with bounded
 * concurrency that halves on a 429 and grows back slowly, retrying a rate-limited text rather than
 * dropping it, and answering in input order.
 */
import { Duration, Effect, Ref } from "effect"
import { buildEmbeddingsBody, decodeEmbeddings, type DecodedEmbeddings, type EmbeddingsBody, type EmbeddingsBodyInput } from "../../core/media/Embeddings.js"
import type { GatewayError } from "../../core/errors/GatewayError.js"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { backoffMs, defaultRetryBudget } from "../../core/gateway/RetryPolicy.js"
import * as GroupContext from "../GroupContext.js"

/** The options of `embedMany`: an embeddings body with many inputs. @category models */
export interface EmbedManyOptions extends Omit<EmbeddingsBodyInput, "input"> {
  readonly inputs: ReadonlyArray<string>
  /** Most requests in flight (default: the config's `embedConcurrency`). */
  readonly concurrency?: number
  /** How many times one text is tried again after a 429 that outlasted the transport's retries (default 8). */
  readonly maxRateLimitRetries?: number
}

/** The `embeddings` calls. @category models */
export interface EmbeddingsGroup {
  /** POST `/v1/embeddings` with one `input`. */
  readonly create: (body: EmbeddingsBodyInput) => Effect.Effect<DecodedEmbeddings, GatewayError | InvalidRequest>
  /** One vector per input, in input order; every input is validated before the first request. */
  readonly embedMany: (options: EmbedManyOptions) => Effect.Effect<ReadonlyArray<Float32Array>, GatewayError | InvalidRequest>
}

// An additive-increase, multiplicative-decrease limit on requests in flight.
const makeLimiter = (max: number) =>
  Effect.gen(function* () {
    const state = yield* Ref.make({ limit: max, inFlight: 0, successes: 0 })
    const waiters: Array<() => void> = []
    const wake = () => {
      const next = waiters.shift()
      if (next) next()
    }
    const acquire: Effect.Effect<void> = Effect.suspend(() =>
      Ref.modify(state, (s) => (s.inFlight < s.limit ? [true, { ...s, inFlight: s.inFlight + 1 }] : [false, s]))
    ).pipe(
      Effect.flatMap((ok) =>
        ok ? Effect.void : Effect.zipRight(Effect.async<void>((resume) => void waiters.push(() => resume(Effect.void))), acquire)
      )
    )
    const release = (outcome: "ok" | "rate-limited" | "other") =>
      Ref.update(state, (s) => {
        if (outcome === "rate-limited") return { limit: Math.max(1, Math.floor(s.limit / 2)), inFlight: s.inFlight - 1, successes: 0 }
        if (outcome === "ok") {
          const successes = s.successes + 1
          // Grow by one after as many successes in a row as the current limit.
          return successes >= s.limit && s.limit < max
            ? { limit: s.limit + 1, inFlight: s.inFlight - 1, successes: 0 }
            : { ...s, inFlight: s.inFlight - 1, successes }
        }
        return { ...s, inFlight: s.inFlight - 1 }
      }).pipe(Effect.zipRight(Effect.sync(() => {
        // Wake everyone waiting: each re-checks the limit.
        for (let i = waiters.length; i > 0; i--) wake()
      })))
    return { acquire, release, limit: Effect.map(Ref.get(state), (s) => s.limit) }
  })

/** Builds the group. @category constructors */
export const make = (ctx: GroupContext.GroupContext): EmbeddingsGroup => {
  const send = (valid: EmbeddingsBody, onRateLimit: "retry" | "fail") =>
    Effect.flatMap(ctx.transport.json({ ...GroupContext.post(ctx, "openai", "/v1/embeddings", valid), onRateLimit }), (answer) =>
      decodeEmbeddings(answer.body)
    )

  const create = (body: EmbeddingsBody) => Effect.flatMap(buildEmbeddingsBody(body, { allowUnknownModels: ctx.config.allowUnknownModels }), (valid) => send(valid, "retry"))

  const embedMany = (options: EmbedManyOptions) =>
    Effect.gen(function* () {
      const { inputs, concurrency, maxRateLimitRetries, ...rest } = options
      // Validate every text first: a bad input at position 900 must not cost 899 paid requests.
      const bodies = yield* Effect.forEach(inputs, (input) => buildEmbeddingsBody({ ...rest, input }, { allowUnknownModels: ctx.config.allowUnknownModels }))
      const max = Math.max(1, Math.floor(concurrency ?? ctx.config.embedConcurrency))
      const limiter = yield* makeLimiter(max)
      const retries = maxRateLimitRetries ?? 8
      const one = (body: EmbeddingsBody, attempt: number): Effect.Effect<Float32Array, GatewayError | InvalidRequest> =>
        Effect.acquireUseRelease(
          limiter.acquire,
          // A 429 comes straight here (not retried by the transport) so the limit can shrink at once.
          () => Effect.either(send(body, "fail")),
          (_, exit) =>
            limiter.release(
              exit._tag === "Success" && exit.value._tag === "Left" && exit.value.left._tag === "RateLimited"
                ? "rate-limited"
                : exit._tag === "Success" && exit.value._tag === "Right"
                  ? "ok"
                  : "other"
            )
        ).pipe(
          Effect.flatMap((result) => {
            if (result._tag === "Right") {
              const vector = result.right.data[0]?.embedding
              return vector !== undefined ? Effect.succeed(vector) : Effect.die(new Error("unreachable: decoded embeddings without data"))
            }
            const error = result.left
            if (error._tag !== "RateLimited" || attempt >= retries) return Effect.fail(error)
            const wait = error.retryAfterMs ?? backoffMs(attempt, { ...defaultRetryBudget, baseDelayMs: ctx.config.retryBaseDelayMs, maxDelayMs: ctx.config.retryMaxDelayMs }, 0)
            return Effect.zipRight(Effect.sleep(Duration.millis(wait)), one(body, attempt + 1))
          })
        )
      return yield* Effect.forEach(bodies, (body) => one(body, 0), { concurrency: max })
    })

  return { create, embedMany }
}
