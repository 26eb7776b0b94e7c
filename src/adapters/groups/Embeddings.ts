/**
 * The `embeddings` group: one text per request (E12), and `embedMany` over many texts. `embedMany`
 * runs through `mapAdaptive` — bounded concurrency that halves on a 429 and grows back slowly,
 * retrying a rate-limited text (the transport's retry rule: the asked wait up to `maxRetryAfterMs`,
 * else a jittered back-off) rather than dropping it, answering in input order.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import {
  buildEmbeddingsBody,
  decodeEmbeddings,
  type DecodedEmbeddings,
  type EmbeddingsBody,
  type EmbeddingsBodyInput
} from "../../core/media/Embeddings.js"
import type { RequestError } from "../../core/errors/GatewayError.js"
import { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { describe } from "../../core/validation/Rules.js"
import { concurrency as concurrencyRange, retryCount, settingOr } from "../../core/validation/Setting.js"
import { type AdaptiveEvent, mapAdaptive, rateLimitOf } from "../concurrency/AdaptiveConcurrency.js"
import type { CallOptions } from "../CallOptions.js"
import * as GroupContext from "../internal/GroupContext.js"

/** The options of `embedMany`: an embeddings body with many inputs. @category models */
export interface EmbedManyOptions extends Omit<EmbeddingsBodyInput, "input"> {
  readonly inputs: ReadonlyArray<string>
  /** Most requests in flight, 1 to 1000 (default: the config's `embedConcurrency`). */
  readonly concurrency?: number | undefined
  /** How many times one text is tried again after a 429, 0 to 100 (default 8); past it the batch fails with `RateLimited`. */
  readonly maxRateLimitRetries?: number | undefined
  /** Called for each vector as it arrives (with its index and progress) and each 429 met (progress bars, umg/rx). */
  readonly onEvent?: ((event: EmbedManyEvent) => void) | undefined
}

/**
 * What `embedMany` reports as it runs: a `result` per text (with its request's `usage` when the
 * gateway gave one), a `rate-limited` notice per 429.
 * @category models
 */
export type EmbedManyEvent =
  | (Extract<AdaptiveEvent<string, Float32Array>, { readonly type: "result" }> & {
      readonly usage?: DecodedEmbeddings["usage"]
    })
  | Extract<AdaptiveEvent<string, Float32Array>, { readonly type: "rate-limited" }>

/** The `embeddings` calls. @category models */
export interface EmbeddingsGroup {
  /** POST `/v1/embeddings` with one `input`. */
  readonly create: (
    body: EmbeddingsBodyInput,
    options?: CallOptions
  ) => Effect.Effect<DecodedEmbeddings, RequestError | InvalidRequest>
  /**
   * One vector per input, in input order; every input is validated before the first request. The
   * call's `options` go with every request (`onResponse` is called for each); its signal aborts the
   * whole batch.
   */
  readonly embedMany: (
    request: EmbedManyOptions,
    options?: CallOptions
  ) => Effect.Effect<ReadonlyArray<Float32Array>, RequestError | InvalidRequest>
}

/** Builds the group. @category constructors */
export const make = (ctx: GroupContext.GroupContext): EmbeddingsGroup => {
  const send = (valid: EmbeddingsBody, onRateLimit: "retry" | "fail", options: CallOptions | undefined) =>
    Effect.flatMap(
      ctx.transport.json({ ...GroupContext.post(ctx, "openai", "/v1/embeddings", valid, options), onRateLimit }),
      (answer) => decodeEmbeddings(answer.body)
    )

  const create = (body: EmbeddingsBodyInput, options?: CallOptions) =>
    Effect.flatMap(buildEmbeddingsBody(body, { allowUnknownModels: ctx.config.allowUnknownModels }), (valid) =>
      send(valid, "retry", options)
    )

  const embedManyOf = Effect.fnUntraced(function* (request: EmbedManyOptions, options: CallOptions | undefined) {
    const { inputs, concurrency, maxRateLimitRetries, onEvent, ...rest } = request
    // From JavaScript a string would be embedded a character at a time, one paid request each.
    if (!Array.isArray(inputs) || "input" in rest)
      return yield* new InvalidRequest({
        field: Array.isArray(inputs) ? "input" : "inputs",
        rule: "type",
        message: Array.isArray(inputs)
          ? "input: embedMany takes its texts in inputs (an array of strings), not input"
          : `inputs: expected an array of strings, got ${describe(inputs)}`
      })
    const bounds = yield* Effect.fromResult(
      Result.all({
        concurrency: settingOr("concurrency", concurrency, concurrencyRange, ctx.config.embedConcurrency),
        maxRetries: settingOr("maxRateLimitRetries", maxRateLimitRetries, retryCount, 8)
      })
    )
    // Validate every text first: a bad input at position 900 must not cost 899 paid requests.
    const bodies = yield* Effect.forEach(inputs, (input, i) =>
      buildEmbeddingsBody({ ...rest, input }, { allowUnknownModels: ctx.config.allowUnknownModels }).pipe(
        // An input's error names its place (`inputs[899] must not be empty`); the others are every input's.
        Effect.mapError((e) =>
          e.field === "input"
            ? new InvalidRequest({
                field: `inputs[${i}]`,
                rule: e.rule,
                message: e.message.replace(/^input\b/, `inputs[${i}]`)
              })
            : e
        )
      )
    )
    const vectors = new Array<Float32Array>(bodies.length)
    yield* mapAdaptive(
      bodies,
      // A 429 comes straight here (not retried by the transport) so the concurrency can shrink at once.
      (body) =>
        // `decodeEmbeddings` answers at least one item.
        Effect.map(send(body, "fail", options), (answer) => ({
          vector: answer.data[0]!.embedding,
          usage: answer.usage
        })),
      {
        concurrency: bounds.concurrency,
        maxRetries: bounds.maxRetries,
        // The answer's headers too: a 429 saying `x-should-retry: false` is not tried again (as in `create`).
        rateLimit: rateLimitOf,
        backoff: {
          baseDelayMs: ctx.config.retryBaseDelayMs,
          maxDelayMs: ctx.config.retryMaxDelayMs,
          maxRetryAfterMs: ctx.config.maxRetryAfterMs
        }
      },
      (event) => {
        const input = inputs[event.index]!
        if (event.type === "rate-limited") {
          onEvent?.({ ...event, input })
          return
        }
        const { vector, usage } = event.result
        vectors[event.index] = vector
        onEvent?.({ ...event, input, result: vector, ...(usage === undefined ? {} : { usage }) })
      }
    )
    return vectors
  })

  const embedMany = (request: EmbedManyOptions, options?: CallOptions) =>
    GroupContext.abortable("openai", options, embedManyOf(request, GroupContext.perRequest(options)))

  return { create, embedMany }
}
