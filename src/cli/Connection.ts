/**
 * Which gateway a command talks to: the one in `UMG_BASE_URL`/`UMG_API_KEY`, or an embedded
 * emulator (fast timings) when `--emulator` is given — said on stderr, so nobody mistakes emulator
 * answers for a real gateway's. Without either, a command refuses to run (exit 2) rather than fake.
 */
import { Options } from "@effect/cli"
import { Context, Effect, Layer, Option } from "effect"
import { Gateway } from "../adapters/Gateway.js"
import type { GatewayConfigInput } from "../adapters/GatewayConfig.js"
import { InvalidRequest } from "../core/errors/InvalidRequest.js"
import type { Emulator } from "../emulator/index.js"
import * as Output from "./Output.js"

/** The options every gateway command takes. @category options */
export const commonOptions = {
  json: Options.boolean("json").pipe(Options.withDescription("machine-readable output on stdout (JSON or JSON lines)")),
  emulator: Options.boolean("emulator").pipe(
    Options.withDescription("use an embedded emulator even when UMG_BASE_URL is set")
  )
}

/** The parsed common options. @category models */
export interface CommonOptions {
  readonly json: boolean
  readonly emulator: boolean
}

/** Where the command is connected. @category models */
export interface ConnectionInfo {
  readonly baseUrl: string
  /** The embedded emulator, when the command runs against one (its counters prove what was sent). */
  readonly embedded: Option.Option<Emulator>
  /** The interval between two video polls: the spec's 5 s on a gateway, short on the fast emulator. */
  readonly pollIntervalMs: number
  /** The settings the gateway layer was built from (secrets are redacted by the adapters). */
  readonly config: GatewayConfigInput
}

/** The connection of the running command. @category services */
export class Connection extends Context.Tag("umg/cli/Connection")<Connection, ConnectionInfo>() {}

// The fast emulator finishes a video task in about half a second; polling it every 5 s would make
// the demo crawl, so against it (and only it) the poll interval is short.
const EMULATOR_POLL_MS = 100

/** Starts an emulator with fast timings, stopped when the scope closes. @category constructors */
export const embeddedEmulator: Effect.Effect<Emulator, never, import("effect").Scope.Scope> = Effect.acquireRelease(
  // Loaded on demand: a command against a real gateway never loads the emulator.
  Effect.promise(() => import("../emulator/index.js").then((m) => m.startEmulator({ fast: true }))),
  (emulator) => Effect.promise(() => emulator.close())
)

/** The settings of a gateway client for an embedded emulator. @category constructors */
export const emulatorConfig = (emulator: Emulator): GatewayConfigInput => ({
  baseUrl: emulator.url,
  apiKey: emulator.apiKey,
  platformUrl: emulator.platformUrl,
  platformUsername: emulator.platform.username,
  platformPassword: emulator.platform.password,
  minPollIntervalMs: EMULATOR_POLL_MS,
  retryBaseDelayMs: 50
})

/**
 * The video poll interval against `UMG_BASE_URL`: 5 s (the spec's 3–5 s rule) unless
 * `UMG_POLL_INTERVAL_MS` asks for less — meant for an emulator with fast timings, not a gateway.
 * `undefined` when the variable is not an integer from 10 to 5000.
 */
export const pollIntervalFromEnv = (): number | undefined => {
  const raw = process.env.UMG_POLL_INTERVAL_MS
  if (raw === undefined || raw === "") return 5_000
  const n = Number(raw)
  return Number.isInteger(n) && n >= 10 && n <= 5_000 ? n : undefined
}

const envConfig = (baseUrl: string): Effect.Effect<GatewayConfigInput, InvalidRequest> => {
  const env = process.env
  const apiKey = env.UMG_API_KEY ?? ""
  if (apiKey === "") {
    return Effect.fail(
      new InvalidRequest({ field: "UMG_API_KEY", rule: "required", message: "UMG_API_KEY must be set when UMG_BASE_URL is set" })
    )
  }
  const optional = (name: string, key: keyof GatewayConfigInput) => {
    const value = env[name]
    return value !== undefined && value !== "" ? { [key]: value } : {}
  }
  const interval = pollIntervalFromEnv()
  if (interval === undefined) {
    return Effect.fail(
      new InvalidRequest({
        field: "UMG_POLL_INTERVAL_MS",
        rule: "range",
        message: `UMG_POLL_INTERVAL_MS: ${JSON.stringify(env.UMG_POLL_INTERVAL_MS)} is not allowed; allowed: an integer from 10 to 5000 (milliseconds)`
      })
    )
  }
  // Every numeric UMG_* variable is checked, and named, rather than silently ignored.
  const numbers: Record<string, number> = {}
  for (const [name, key, min, max] of [
    ["UMG_TIMEOUT_MS", "timeoutMs", 1, 3_600_000],
    ["UMG_MAX_RETRIES", "maxRetries", 0, 20]
  ] as const) {
    const raw = env[name]
    if (raw === undefined || raw === "") continue
    const n = Number(raw)
    if (!/^\d+$/.test(raw.trim()) || !Number.isInteger(n) || n < min || n > max)
      return Effect.fail(
        new InvalidRequest({ field: name, rule: "range", message: `${name}: ${JSON.stringify(raw.slice(0, 40))} is not allowed; allowed: an integer from ${min} to ${max}` })
      )
    numbers[key] = n
  }
  if (!/^https?:\/\/[^\s/]+/.test(baseUrl))
    return Effect.fail(
      new InvalidRequest({ field: "UMG_BASE_URL", rule: "url", message: `UMG_BASE_URL: ${JSON.stringify(baseUrl.slice(0, 80))} is not an http(s) URL, e.g. https://gateway.example.com` })
    )
  return Effect.succeed({
    baseUrl,
    apiKey,
    ...numbers,
    minPollIntervalMs: Math.min(interval, 3_000),
    ...optional("UMG_PLATFORM_URL", "platformUrl"),
    ...optional("UMG_PLATFORM_USERNAME", "platformUsername"),
    ...optional("UMG_PLATFORM_PASSWORD", "platformPassword")
  } as GatewayConfigInput)
}

/**
 * The connection and the `Gateway` built on it for one command run. An embedded emulator lives as
 * long as the layer.
 * @category layers
 */
export const layer = (options: CommonOptions): Layer.Layer<Connection | Gateway, InvalidRequest> => {
  const connection = Layer.scoped(
    Connection,
    Effect.gen(function* () {
      const baseUrl = process.env.UMG_BASE_URL ?? ""
      if (!options.emulator && baseUrl !== "") {
        const config = yield* envConfig(baseUrl)
        return { baseUrl, embedded: Option.none(), pollIntervalMs: pollIntervalFromEnv() ?? 5_000, config }
      }
      // Answers from an emulator are never given as a gateway's: without a gateway, only --emulator runs one.
      if (!options.emulator)
        return yield* Effect.fail(
          new InvalidRequest({
            field: "UMG_BASE_URL",
            rule: "required",
            message: "UMG_BASE_URL is not set: set UMG_BASE_URL (and UMG_API_KEY) to your gateway, or pass --emulator to use an embedded emulator"
          })
        )
      const emulator = yield* embeddedEmulator
      yield* Output.note(Output.errColour.dim(`umg: using an embedded emulator at ${emulator.url} (fast timings): its answers are made up, not a gateway's`))
      return { baseUrl: emulator.url, embedded: Option.some(emulator), pollIntervalMs: EMULATOR_POLL_MS, config: emulatorConfig(emulator) }
    })
  )
  const gateway = Layer.unwrapEffect(Effect.map(Connection, (c) => Gateway.layer(c.config)))
  return Layer.provideMerge(gateway, connection)
}

/** Runs a command's program against the connection its options choose. @category constructors */
export const run = <A, E>(
  options: CommonOptions,
  program: Effect.Effect<A, E, Connection | Gateway>
): Effect.Effect<A, E | InvalidRequest> => Effect.provide(program, layer(options))
