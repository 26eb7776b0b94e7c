/**
 * The platform's E7 access token, fetched with the configured username and password and cached. It
 * is replaced at most once for all callers that saw it refused (its lifetime is unknown, so a 401 is
 * what says it expired). Single-flight: one fetch at a time, shared through a `Deferred` by every
 * caller that asks meanwhile (its failure too), and a refresh names the token it replaces, so fifty
 * callers refused together cause one E7 request. A fetch no caller waits for any more (the last one's
 * signal aborted) is interrupted, its connection closed.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import { platformEnvelopeError } from "../../core/wire/ErrorEnvelope.js"
import { DecodeError, type PlatformRequestError } from "../../core/errors/GatewayError.js"
import { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { buildPlatformCredentials } from "../../core/platform/Platform.js"
import * as CallOptions from "../CallOptions.js"
import type { GatewayConfig } from "../GatewayConfig.js"
import * as HttpAuth from "./HttpAuth.js"
import type { HttpTransport } from "./HttpTransport.js"

/** A token as the calls use it: the header to send, and a number telling tokens apart. @category models */
export interface PlatformToken {
  readonly auth: HttpAuth.Auth
  /** The E7 `data` (`Bearer …`). */
  readonly value: Redacted.Redacted<string>
  readonly generation: number
}

/** The token service. @category models */
export interface PlatformTokens {
  /**
   * The cached token, fetched first when there is none. (`InvalidRequest` is never its own: a login's
   * options are checked before its fetch, which this may share.)
   */
  readonly current: Effect.Effect<PlatformToken, PlatformRequestError | InvalidRequest>
  /**
   * A token other than `stale`: when the cache still holds `stale`, fetches a new one (once, however
   * many callers ask at the same time); when it holds a newer one, returns that.
   */
  readonly refresh: (stale: PlatformToken) => Effect.Effect<PlatformToken, PlatformRequestError | InvalidRequest>
  /**
   * Fetches a new token now, replacing the cached one; when this call makes the E7 request, it carries
   * `options` (headers, time limit, retries, `onResponse`; the signal is the caller's to race).
   */
  readonly login: (
    options?: CallOptions.CallOptions
  ) => Effect.Effect<PlatformToken, PlatformRequestError | InvalidRequest>
  /** The tokens fetched so far (the last few, with and without `Bearer `): secrets an error must not show. */
  readonly secrets: () => ReadonlyArray<string>
}

/** A token fetch under way: its outcome, how many callers wait for it, and its fiber once forked. */
interface Flight {
  readonly deferred: Deferred.Deferred<PlatformToken, PlatformRequestError | InvalidRequest>
  waiters: number
  fiber: Fiber.Fiber<unknown> | undefined
}

/** How many past tokens stay secrets (a token replaced may still be echoed by a call made with it). */
const KEPT_TOKENS = 4

const TokenEnvelope = Schema.Struct({
  code: Schema.Int,
  msg: Schema.optionalKey(Schema.NullOr(Schema.String)),
  data: Schema.String
})
const decodeEnvelope = Schema.decodeUnknownResult(TokenEnvelope)

/** The E7 path under `{platform_url}`. @category constants */
export const tokenPath = "/prod-api/v3/auth/getToken"

/** The cached token and the fetch in flight, if any. */
type State = {
  readonly token: Option.Option<PlatformToken>
  readonly inflight: Option.Option<Flight>
}

/**
 * The token cache over `fetchToken`, single-flight: `obtain(usable, options)` gives the cached token
 * when `usable` accepts it, else waits for the fetch in flight or starts one.
 */
const singleFlight = (
  fetchToken: (
    options: CallOptions.CallOptions | undefined
  ) => Effect.Effect<PlatformToken, PlatformRequestError | InvalidRequest>
) =>
  Effect.map(Ref.make<State>({ token: Option.none(), inflight: Option.none() }), (state) => {
    /** The state with `flight` no longer the fetch in flight, unless another one has replaced it. */
    const without = (s: State, flight: Flight): State => ({
      token: s.token,
      inflight: Option.isSome(s.inflight) && s.inflight.value === flight ? Option.none() : s.inflight
    })

    /** Forgets `flight` as the fetch in flight, keeping the token it fetched, if any. */
    const settle = (flight: Flight, token: Option.Option<PlatformToken>) =>
      Ref.update(state, (s) => ({ ...without(s, flight), token: Option.isSome(token) ? token : s.token }))

    /**
     * One caller stops waiting for `flight`: when it was the last, the fetch is interrupted (its
     * connection closed) and forgotten, so an aborted call leaves no E7 request open behind it.
     */
    const leave = (flight: Flight) =>
      // Counted and forgotten in one step of the state, as a caller joining counts itself in one: none
      // can join a fetch about to be interrupted.
      Effect.flatMap(
        Ref.modify(state, (s): readonly [Fiber.Fiber<unknown> | undefined, State] => {
          flight.waiters -= 1
          if (flight.waiters > 0 || flight.fiber === undefined) return [undefined, s]
          return [flight.fiber, without(s, flight)]
        }),
        (fiber) => (fiber === undefined ? Effect.void : Fiber.interrupt(fiber))
      )

    /**
     * The cached token when `usable` accepts it; otherwise the fetch in flight, or a new one that
     * this caller starts. The fetch runs detached, so a caller interrupted while waiting does not
     * cancel it for the others; when the last caller waiting for it is interrupted (its signal
     * aborted), the fetch is interrupted too.
     */
    const obtain = (
      usable: (token: PlatformToken) => boolean,
      options?: CallOptions.CallOptions
    ): Effect.Effect<PlatformToken, PlatformRequestError | InvalidRequest> =>
      // Uninterruptible until the wait: a caller counted as waiting always gets to `leave`.
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function* () {
          const mine: Flight = {
            deferred: yield* Deferred.make<PlatformToken, PlatformRequestError | InvalidRequest>(),
            waiters: 1,
            fiber: undefined
          }
          const step = yield* Ref.modify(
            state,
            (
              s
            ): readonly [
              (
                | { readonly _tag: "Have"; readonly token: PlatformToken }
                | { readonly _tag: "Wait"; readonly flight: Flight }
                | { readonly _tag: "Lead" }
              ),
              State
            ] => {
              if (Option.isSome(s.token) && usable(s.token.value)) return [{ _tag: "Have", token: s.token.value }, s]
              if (Option.isSome(s.inflight)) {
                s.inflight.value.waiters += 1
                return [{ _tag: "Wait", flight: s.inflight.value }, s]
              }
              return [{ _tag: "Lead" }, { ...s, inflight: Option.some(mine) }]
            }
          )
          if (step._tag === "Have") return step.token
          const flight = step._tag === "Wait" ? step.flight : mine
          if (step._tag === "Lead")
            mine.fiber = yield* Effect.forkDetach(
              Effect.interruptible(
                Effect.flatMap(Effect.exit(fetchToken(options)), (exit) =>
                  Effect.andThen(
                    settle(mine, Exit.isSuccess(exit) ? Option.some(exit.value) : Option.none()),
                    Deferred.done(mine.deferred, exit)
                  )
                )
              )
            )
          return yield* Effect.onInterrupt(restore(Deferred.await(flight.deferred)), () => leave(flight))
        })
      )
    return obtain
  })

/** Builds the token service. @category constructors */
export const make = (config: GatewayConfig, transport: HttpTransport): Effect.Effect<PlatformTokens> =>
  Effect.gen(function* () {
    let generation = 0
    const fetched: Array<string> = []

    const fetchToken = Effect.fnUntraced(function* (
      options: CallOptions.CallOptions | undefined
    ): Effect.fn.Return<PlatformToken, PlatformRequestError | InvalidRequest> {
      if (
        Option.isNone(config.platformUrl) ||
        Option.isNone(config.platformUsername) ||
        Option.isNone(config.platformPassword)
      ) {
        // A setting left out, not a refused credential: nothing is sent, and the message names the
        // settings and their variables.
        const missing = (
          [
            ["platformUrl", Option.isNone(config.platformUrl), "UMG_PLATFORM_URL"],
            ["platformUsername", Option.isNone(config.platformUsername), "UMG_PLATFORM_USERNAME"],
            ["platformPassword", Option.isNone(config.platformPassword), "UMG_PLATFORM_PASSWORD"]
          ] as const
        ).filter(([, absent]) => absent)
        return yield* Effect.fail(
          new InvalidRequest({
            field: missing[0]![0],
            rule: "required",
            message: `${missing.map(([name, , variable]) => `${name} (${variable})`).join(", ")} not set: the platform endpoints need platformUrl, platformUsername and platformPassword; nothing was sent`
          })
        )
      }
      // An empty or non-string setting is the caller's to fix, not the gateway's to refuse: named as
      // the setting, the password never shown.
      const credentials = yield* buildPlatformCredentials({
        username: config.platformUsername.value,
        password: Redacted.value(config.platformPassword.value)
      }).pipe(
        Effect.mapError((e) => {
          const setting = e.field === "password" ? "platformPassword" : "platformUsername"
          return new InvalidRequest({
            field: setting,
            rule: e.rule,
            message: `${e.message.replace(/^(username|password)\b/, setting)}; nothing was sent`
          })
        })
      )
      const answer = yield* transport.platformJson({
        family: "platform",
        method: "POST",
        url: `${config.platformUrl.value}${tokenPath}`,
        body: credentials,
        auth: HttpAuth.none,
        // Asking for a token twice costs nothing.
        kind: "idempotent",
        ...(options === undefined ? {} : { options })
      })
      const failed = platformEnvelopeError(answer.body, answer.requestId)
      if (failed !== undefined) return yield* Effect.fail(failed)
      const envelope = decodeEnvelope(answer.body)
      if (Result.isFailure(envelope) || envelope.success.data.trim() === "") {
        // The message never quotes the body: it would hold the token.
        return yield* Effect.fail(
          new DecodeError({
            family: "platform",
            what: "token response",
            message: "the token response has no token in data"
          })
        )
      }
      generation += 1
      const data = envelope.success.data
      fetched.unshift(data, data.replace(/^bearer\s+/i, ""))
      fetched.length = Math.min(fetched.length, 2 * KEPT_TOKENS)
      const value = Redacted.make(data)
      return { auth: HttpAuth.platformToken(value), value, generation }
    })

    const obtain = yield* singleFlight(fetchToken)
    const current = obtain(() => true)
    const refresh = (stale: PlatformToken) => obtain((token) => token.generation !== stale.generation)
    // A login replaces whatever is cached: no cached token is usable unless it came after this call.
    // The options are checked first: a fetch other callers may wait on never fails for one caller's headers.
    const login = (options?: CallOptions.CallOptions) =>
      Effect.flatMap(
        options === undefined ? Effect.succeed(undefined) : Effect.fromResult(CallOptions.check(options)),
        (checked) =>
          Effect.suspend(() => {
            const floor = generation
            return obtain((token) => token.generation > floor, checked)
          })
      )

    return { current, refresh, login, secrets: () => fetched }
  })
