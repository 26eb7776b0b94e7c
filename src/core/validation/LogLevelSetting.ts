/**
 * The one rule of umg's log level setting (`createGateway`'s `logLevel`, the `UMG_LOG` variable). It
 * holds the names the official SDKs use (`debug`, `info`, `warn`, `error`, `off`), what each is as an
 * Effect `LogLevel`, and the check of a given value. Kept in the core so that the CLI reads it at start
 * without loading the adapters.
 */
import type * as LogLevel from "effect/LogLevel"
import * as Result from "effect/Result"
import { InvalidRequest } from "../errors/InvalidRequest.js"

/**
 * How much umg logs: `debug` adds a line per request, answer, retry, stream end and WebSocket
 * open/close; `off` logs nothing. The names of openai-node's and @anthropic-ai/sdk's `logLevel`.
 * @category models
 */
export type GatewayLogLevel = "debug" | "info" | "warn" | "error" | "off"

/** Each setting and the minimum Effect `LogLevel` it stands for. */
const minimumOf: Readonly<Record<GatewayLogLevel, LogLevel.LogLevel>> = {
  debug: "Debug",
  info: "Info",
  warn: "Warn",
  error: "Error",
  off: "None"
}

/** The values a log level setting allows, most verbose first. @category constants */
export const gatewayLogLevels: ReadonlyArray<GatewayLogLevel> = ["debug", "info", "warn", "error", "off"]

/** The minimum Effect `LogLevel` of a setting (`debug` is `Debug`, `off` is `None`). @category accessors */
export const minimumLogLevelOf = (level: GatewayLogLevel): LogLevel.LogLevel => minimumOf[level]

// A value longer than any level's name plus a typo is not shown: it may be a key put in the wrong variable.
const shownChars = 12

/** A refused value as its message shows it. */
const shownOf = (raw: unknown): string =>
  typeof raw === "string"
    ? raw.length <= shownChars
      ? JSON.stringify(raw)
      : `a text of ${raw.length} characters`
    : raw === null
      ? "null"
      : `a ${typeof raw}`

/**
 * `raw` as a log level setting, read as a person writes it (any case, spaces around ignored), else an
 * `InvalidRequest` (rule `one-of`) naming `field` — the option or the variable — and what is allowed
 * (a value longer than 12 characters is not shown: it may be a secret put in the wrong place).
 * @category validation
 */
export const checkLogLevel = (field: string, raw: unknown): Result.Result<GatewayLogLevel, InvalidRequest> => {
  const value = typeof raw === "string" ? raw.trim().toLowerCase() : raw
  const found = gatewayLogLevels.find((level) => level === value)
  if (found !== undefined) return Result.succeed(found)
  const shown = shownOf(raw)
  return Result.fail(
    new InvalidRequest({
      field,
      rule: "one-of",
      message: `${field}: ${shown} is not allowed; allowed: ${gatewayLogLevels.join(", ")}`
    })
  )
}
