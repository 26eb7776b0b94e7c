/**
 * Which gateway a command talks to: the one in `UMG_BASE_URL`/`UMG_API_KEY`, or an embedded
 * emulator (fast timings) when `--emulator` is given. The emulator is named on stderr, so nobody
 * mistakes its answers for a real gateway's. Without either, a command refuses to run (exit 2)
 * rather than fake.
 */
import { type Config, Context, Effect, Layer, Option, Result, type Scope } from "effect"
import { Gateway } from "../../adapters/Gateway.js"
import * as GatewayConfig from "../../adapters/GatewayConfig.js"
import type { GatewayConfigInput } from "../../adapters/GatewayConfig.js"
import { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import type { RoutingOptions } from "../../core/gateway/Catalog.js"
import type { Emulator } from "../../emulator/index.js"
import type { CommonOptions } from "./CommonOptions.js"
import * as Output from "./Output.js"

export type { CommonOptions } from "./CommonOptions.js"

/** Where the command is connected. @category models */
export interface ConnectionInfo {
  readonly baseUrl: string
  /** The embedded emulator, when the command runs against one (its counters prove what was sent). */
  readonly embedded: Option.Option<Emulator>
  /** The interval between two video polls: the contract's 5 s on a gateway, short on the fast emulator. */
  readonly pollIntervalMs: number
  /** The settings the gateway layer was built from (secrets are redacted by the adapters). */
  readonly config: GatewayConfigInput
}

/** The connection of the running command. @category services */
export class Connection extends Context.Service<Connection, ConnectionInfo>()("umg/cli/Connection") {}

// The fast emulator finishes a video task in about half a second; polling it every 5 s would make
// the demo crawl, so against it (and only it) the poll interval is short.
const EMULATOR_POLL_MS = 100

/** Starts an emulator with fast timings, stopped when the scope closes. @category constructors */
export const embeddedEmulator: Effect.Effect<Emulator, never, Scope.Scope> = Effect.acquireRelease(
  // Loaded on demand: a command against a real gateway never loads the emulator.
  Effect.promise(() => import("../../emulator/index.js").then((m) => m.startEmulator({ fast: true }))),
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
 * The settings of `UMG_*`, read and checked by the one environment reader (`GatewayConfig.envSettings`);
 * a missing or wrong variable is an `InvalidRequest` naming it (exit 2). Without `UMG_BASE_URL` the
 * message also offers `--emulator`.
 */
const envInvalid = (error: Config.ConfigError): InvalidRequest => {
  const problem = GatewayConfig.envProblemOf(error)
  if (problem === undefined)
    return new InvalidRequest({
      field: "environment",
      rule: "config",
      message: `the UMG_* environment cannot be read: ${error.message}`
    })
  return new InvalidRequest({
    field: problem.variable,
    rule: problem.rule,
    message:
      problem.variable === "UMG_BASE_URL" && problem.rule === "required"
        ? "UMG_BASE_URL is not set: set UMG_BASE_URL (and UMG_API_KEY) to your gateway, or pass --emulator to use an embedded emulator"
        : problem.message
  })
}

const envConfig: Effect.Effect<GatewayConfig.EnvSettings, InvalidRequest> = Effect.mapError(
  GatewayConfig.envSettings,
  envInvalid
)

/**
 * Whether model ids the catalog does not list may be sent: `--allow-unknown-models`, or
 * `UMG_ALLOW_UNKNOWN_MODELS` (a wrong value is an `InvalidRequest` naming it, exit 2). Read before
 * connecting, so that a command checks its request the way the gateway layer will.
 * @category constructors
 */
export const routing = (options: CommonOptions): Effect.Effect<RoutingOptions, InvalidRequest> =>
  options.allowUnknownModels === true
    ? Effect.succeed({ allowUnknownModels: true })
    : Effect.map(Effect.mapError(GatewayConfig.allowUnknownModelsFromEnv, envInvalid), (allowUnknownModels) => ({
        allowUnknownModels
      }))

/**
 * Whether the environment names a gateway: `UMG_BASE_URL` set and not empty, as the one environment
 * reader sees it (a gateway named with other variables wrong still counts: using it then fails, naming them).
 * @category constructors
 */
export const gatewayIsSet: Effect.Effect<boolean> = Effect.map(Effect.result(GatewayConfig.envSettings), (read) => {
  if (Result.isSuccess(read)) return true
  const problem = GatewayConfig.envProblemOf(read.failure)
  return !(problem?.variable === "UMG_BASE_URL" && problem.rule === "required")
})

/**
 * The connection and the `Gateway` built on it for one command run. An embedded emulator lives as
 * long as the layer.
 * @category layers
 */
export const layer = (options: CommonOptions): Layer.Layer<Connection | Gateway, InvalidRequest> => {
  const connection = Layer.effect(
    Connection,
    Effect.gen(function* () {
      const allowUnknownModels = (yield* routing(options)).allowUnknownModels === true
      // Answers from an emulator are never given as a gateway's: without a gateway, only --emulator runs one.
      if (!options.emulator) {
        const { input, pollIntervalMs } = yield* envConfig
        return {
          baseUrl: input.baseUrl,
          embedded: Option.none(),
          pollIntervalMs,
          config: allowUnknownModels ? { ...input, allowUnknownModels } : input
        }
      }
      const emulator = yield* embeddedEmulator
      yield* Output.note(
        Output.errColour.dim(
          `umg: using an embedded emulator at ${emulator.url} (fast timings): its answers are made up, not a gateway's`
        )
      )
      return {
        baseUrl: emulator.url,
        embedded: Option.some(emulator),
        pollIntervalMs: EMULATOR_POLL_MS,
        config: allowUnknownModels ? { ...emulatorConfig(emulator), allowUnknownModels } : emulatorConfig(emulator)
      }
    })
  )
  const gateway = Layer.unwrap(Effect.map(Connection, (c) => Gateway.layer(c.config)))
  return Layer.provideMerge(gateway, connection)
}

/** Runs a command's program against the connection its options choose. @category constructors */
export const run = <A, E>(
  options: CommonOptions,
  program: Effect.Effect<A, E, Connection | Gateway>
): Effect.Effect<A, E | InvalidRequest> => Effect.provide(program, layer(options))
