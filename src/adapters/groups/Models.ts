/**
 * The `models` group: lists the models a key can use (GET `/v1/models`, E11) and checks one. The list
 * comes in the caller's chosen format, normalised to the four fields of a model record, every page
 * followed, cached for a while; `has(id)` fails fast with `ModelNotAvailable` when the key cannot use
 * a model.
 */
import * as Cache from "effect/Cache"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Redacted from "effect/Redacted"
import { ModelNotAvailable, type ModelCheckError, type RequestError } from "../../core/errors/GatewayError.js"
import { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import {
  decodeModelList,
  modelListFormats,
  modelListHeaders,
  type ModelListFormat,
  type ModelRecord
} from "../../core/gateway/Models.js"
import { describe } from "../../core/validation/Rules.js"
import type { CallOptions } from "../CallOptions.js"
import * as GroupContext from "../internal/GroupContext.js"

/** Options of `models.list`. @category models */
export interface ListModelsOptions {
  /** The answer format asked for (default `openai`); every format is normalised the same way. */
  readonly format?: ModelListFormat | undefined
  /** Ask the gateway again instead of using the cached list. */
  readonly refresh?: boolean | undefined
}

/**
 * The `models` calls. The call's own options, past a signal, ask the gateway (every page carries
 * them) rather than read the cached list; a signal alone aborts a cached read too.
 * @category models
 */
export interface ModelsGroup {
  /** Every model this key may use. */
  readonly list: (
    options?: ListModelsOptions,
    callOptions?: CallOptions
  ) => Effect.Effect<ReadonlyArray<ModelRecord>, RequestError | InvalidRequest>
  /** Succeeds when the key may use `id`; otherwise fails with `ModelNotAvailable`. */
  readonly has: (id: string, options?: CallOptions) => Effect.Effect<void, ModelCheckError | InvalidRequest>
}

/** How long a fetched list is reused. */
const CACHE_TTL = Duration.minutes(5)
const MAX_PAGES = 50

/** Builds the group (its cache lives as long as the gateway service). @category constructors */
export const make = (ctx: GroupContext.GroupContext): Effect.Effect<ModelsGroup> =>
  Effect.gen(function* () {
    const fetchAll = Effect.fnUntraced(function* (format: ModelListFormat, options: CallOptions | undefined) {
      const out: Array<ModelRecord> = []
      let cursor: string | undefined
      for (let page = 0; page < MAX_PAGES; page++) {
        const query =
          cursor === undefined
            ? ""
            : format === "messages"
              ? `?after_id=${encodeURIComponent(cursor)}`
              : `?pageToken=${encodeURIComponent(cursor)}`
        const answer = yield* ctx.transport.json({
          family: "openai",
          method: "GET",
          url: ctx.gatewayUrl(`/v1/models${query}`),
          auth: {
            _tag: "Headers",
            headers: Redacted.make(modelListHeaders(format, Redacted.value(ctx.config.apiKey)))
          },
          kind: "idempotent",
          options
        })
        const list = yield* decodeModelList(format, answer.body)
        out.push(...list.data)
        if (!list.hasMore || list.nextCursor === undefined) break
        cursor = list.nextCursor
      }
      return out as ReadonlyArray<ModelRecord>
    })
    // One cache for the three formats: concurrent reads of a stale format share one fetch; a failure
    // is not kept (no time to live: the next call asks again); `refresh` asks the gateway itself,
    // never waits behind another caller's fetch, and leaves its answer for the next read.
    const cache = yield* Cache.makeWith((format: ModelListFormat) => fetchAll(format, undefined), {
      capacity: 3,
      timeToLive: (exit) => (Exit.isSuccess(exit) ? CACHE_TTL : Duration.zero)
    })
    const list = (options: ListModelsOptions = {}, callOptions?: CallOptions) => {
      const format = options.format ?? "openai"
      if (!(modelListFormats as ReadonlyArray<string>).includes(format))
        return Effect.fail(
          new InvalidRequest({
            field: "format",
            rule: "one-of",
            message: `format: ${describe(format)} is not allowed; allowed: ${modelListFormats.join(", ")}`
          })
        )
      const perRequest = GroupContext.perRequest(callOptions)
      // An option given as `undefined` is one not given: it does not make the read a fresh one.
      const fresh =
        options.refresh === true ||
        (perRequest !== undefined && Object.values(perRequest).some((value) => value !== undefined))
      return GroupContext.abortable(
        "openai",
        callOptions,
        fresh
          ? Effect.tap(fetchAll(format, perRequest), (models) => Cache.set(cache, format, models))
          : Cache.get(cache, format)
      )
    }
    const has = (id: string, options?: CallOptions) =>
      Effect.flatMap(list({}, options), (models) =>
        models.some((m) => m.id === id)
          ? Effect.void
          : Effect.fail(
              new ModelNotAvailable({
                family: "openai",
                model: id,
                message: `model ${JSON.stringify(id)} is not available for this key (not in GET /v1/models)`
              })
            )
      )
    return { list, has }
  })
