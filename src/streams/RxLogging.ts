/**
 * How much umg/rx logs, and where: `createGateway`'s `logLevel` and `logger` options (or `UMG_LOG`).
 * They become the layer its runtime runs every call with: the minimum Effect log level, and a logger
 * that hands each line to the user's `console`-like object.
 */
import * as Cause from "effect/Cause"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import type * as LogLevel from "effect/LogLevel"
import * as References from "effect/References"
import * as Result from "effect/Result"
import * as GatewayConfig from "../adapters/GatewayConfig.js"
import { InvalidRequest } from "../core/errors/InvalidRequest.js"
import { checkLogLevel, type GatewayLogLevel, minimumLogLevelOf } from "../core/validation/LogLevelSetting.js"

/**
 * Where umg/rx writes its log lines: any object with `console`'s four methods (`console` itself,
 * pino, winston, …). Each line is one call, `logger.debug("umg: response", { … })`: the message,
 * then its facts as one object.
 * @category models
 */
export interface GatewayLogger {
  readonly debug: (message: string, ...rest: ReadonlyArray<unknown>) => void
  readonly info: (message: string, ...rest: ReadonlyArray<unknown>) => void
  readonly warn: (message: string, ...rest: ReadonlyArray<unknown>) => void
  readonly error: (message: string, ...rest: ReadonlyArray<unknown>) => void
}

/** `createGateway`'s logging options. @category models */
export interface RxLogOptions {
  /**
   * How much umg logs: `debug` adds a line per request sent, answer, retry, stream end and WebSocket
   * open/close (never a header, credential or body); `off` logs nothing. Default: `UMG_LOG` when
   * set, else Effect's default (`info`).
   */
  readonly logLevel?: GatewayLogLevel | undefined
  /** Where the lines go. Default: Effect's console logger. */
  readonly logger?: GatewayLogger | undefined
}

const methods = ["debug", "info", "warn", "error"] as const

/** The logger's method for an Effect level. */
const methodOf = (level: LogLevel.LogLevel): (typeof methods)[number] =>
  level === "Fatal" || level === "Error" ? "error" : level === "Warn" ? "warn" : level === "Info" ? "info" : "debug"

/**
 * An Effect logger handing each line to `target`: the message, its other parts, its annotations, its
 * cause. A logger that throws, or whose promise rejects (an async one), loses that line and nothing
 * more: a line is written in the fiber of the call it tells of, which must not fail for it.
 */
const loggerOf = (target: GatewayLogger): Logger.Logger<unknown, void> =>
  Logger.make(({ logLevel, message, fiber, cause }) => {
    const parts: ReadonlyArray<unknown> = Array.isArray(message) ? message : [message]
    const [first, ...rest] = parts
    const annotations = fiber.getRef(References.CurrentLogAnnotations)
    const extra = [
      ...rest,
      ...(Object.keys(annotations).length > 0 ? [annotations] : []),
      ...(cause.reasons.length > 0 ? [Cause.pretty(cause)] : [])
    ]
    try {
      const written: unknown = target[methodOf(logLevel)](typeof first === "string" ? first : String(first), ...extra)
      if (typeof (written as PromiseLike<unknown> | undefined)?.then === "function")
        (written as PromiseLike<unknown>).then(undefined, () => {})
    } catch {
      // The line is lost; the call goes on.
    }
  })

/** The level set by the option, else by `UMG_LOG`; a wrong one is an `InvalidRequest` naming it (thrown, as a wrong setting is). */
const levelOf = (options: RxLogOptions): GatewayLogLevel | undefined => {
  if (options.logLevel !== undefined) {
    const checked = checkLogLevel("logLevel", options.logLevel)
    if (Result.isFailure(checked)) throw checked.failure
    return checked.success
  }
  // The environment as it is now (Effect's default provider keeps the one it first read).
  const read = Effect.runSync(Effect.result(GatewayConfig.logLevelFromEnv.parse(ConfigProvider.fromEnv())))
  if (Result.isSuccess(read)) return read.success
  const problem = GatewayConfig.envProblemOf(read.failure)
  throw new InvalidRequest({
    field: "UMG_LOG",
    rule: problem?.rule ?? "one-of",
    message: problem?.message ?? `UMG_LOG cannot be read: ${read.failure.message}`
  })
}

/**
 * The layer a `createGateway` runtime adds for its logging: the minimum level of the option or of
 * `UMG_LOG`, and the user's logger in place of Effect's; empty when neither is given. Throws
 * `InvalidRequest` (rule `one-of`, or `type` for a logger without the four methods).
 * @category constructors
 */
export const logLayer = (options: RxLogOptions): Layer.Layer<never> => {
  const level = levelOf(options)
  const target = options.logger
  if (target !== undefined && !methods.every((m) => typeof (target as Partial<GatewayLogger>)[m] === "function"))
    throw new InvalidRequest({
      field: "logger",
      rule: "type",
      message: `logger: not a logger; allowed: an object with ${methods.join(", ")} methods (console, pino, …)`
    })
  return Layer.mergeAll(
    level === undefined ? Layer.empty : Layer.succeed(References.MinimumLogLevel)(minimumLogLevelOf(level)),
    target === undefined ? Layer.empty : Logger.layer([loggerOf(target)])
  )
}
