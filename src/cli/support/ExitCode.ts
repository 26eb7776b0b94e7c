/**
 * The exit codes of `umg` and how a failure is reported. 0 is success; 2 invalid input or a bad
 * command line (rejected before anything was sent, naming the field or flag and what is allowed);
 * 1 a gateway or network failure (its type, HTTP status, message and request id — never a key or
 * token: every report is redacted with the configured secrets before it is printed), or a failed
 * video task (its id and `error.code`).
 */
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { CliError } from "effect/cli"
import { redactText } from "../../core/errors/Redact.js"

/** The exit codes. @category models */
export const ExitCode = {
  ok: 0,
  failure: 1,
  invalidInput: 2
} as const
/** @category models */
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode]

/** A failure as the command reports it (the JSON form of the report). @category models */
export interface FailureReport {
  readonly exitCode: ExitCode
  /** The error's tag: `InvalidRequest`, `RateLimited`, `TransportError`, … */
  readonly type: string
  readonly message: string
  readonly field?: string
  readonly rule?: string
  readonly status?: number
  /** The gateway's own error type (`rate_limit_error`, `INVALID_ARGUMENT`, …). */
  readonly gatewayType?: string
  readonly requestId?: string
  readonly family?: string
  /** The video task the failure is about (`VideoTaskFailed`, a download of a task not finished). */
  readonly taskId?: string
  /** A failed video task's `error.code` (`VideoTaskFailed`). */
  readonly code?: number
  /** A batch refused at one of its lines: how many lines before it were already submitted. */
  readonly submitted?: number
}

/** How a command sends a model id the catalog does not list. */
const unknownModelsHint = "on the command line: --allow-unknown-models, or UMG_ALLOW_UNKNOWN_MODELS=1"

// The library's message of an unknown model names its option; on the command line the flag and the
// variable do it.
const forTheCommandLine = (message: string, rule: string | undefined): string =>
  rule === "unknown-model" ? `${message} (${unknownModelsHint})` : message

// A batch option's field as the command line sets it (`lines` has no flag: the library's own).
const batchFlags: Readonly<Record<string, string>> = { concurrency: "--concurrency", id: "--id", inputs: "FILE" }
const batchField = (field: string): string => batchFlags[field] ?? field

const stringField = (value: object, key: string): string | undefined => {
  const v = (value as Record<string, unknown>)[key]
  return typeof v === "string" && v !== "" ? v : undefined
}

const numberField = (value: object, key: string): number | undefined => {
  const v = (value as Record<string, unknown>)[key]
  return typeof v === "number" ? v : undefined
}

/**
 * Describes any failure of a command. Tagged errors of the core and adapters carry only safe fields
 * (keys are `Redacted` and never part of an error), so their fields are printed as they are.
 * @category constructors
 */
export const reportOf = (error: unknown): FailureReport => {
  if (CliError.isCliError(error)) {
    // effect/cli's own text (for a rejected line, its first problem); the CLI names the flag and its
    // allowed values instead (UsageError.ts).
    const shown = error._tag === "ShowHelp" ? error.errors[0] : error
    const text = (shown?.message ?? "")
      // eslint-disable-next-line no-control-regex -- strips the ANSI escapes effect/cli colours its messages with
      .replace(/\u001b\[[0-9;]*[A-Za-z]/g, "")
      .replace(/\s+/g, " ")
      .trim()
    return { exitCode: ExitCode.invalidInput, type: "UsageError", message: text === "" ? "invalid command line" : text }
  }
  if (typeof error === "object" && error !== null && "_tag" in error && typeof error._tag === "string") {
    const message = stringField(error, "message") ?? error._tag
    if (error._tag === "BatchInvalidInput") {
      const line = numberField(error, "line")
      const field = stringField(error, "field")
      const submitted = numberField(error, "submitted")
      return {
        exitCode: ExitCode.invalidInput,
        type: "BatchInvalidInput",
        message: forTheCommandLine(message, stringField(error, "rule")),
        // A batch's own option (line 0) is named as what sets it on the command line.
        ...(field !== undefined
          ? { field: line !== undefined && line > 0 ? `line ${line}: ${field}` : batchField(field) }
          : {}),
        ...(submitted !== undefined && submitted > 0 ? { submitted } : {})
      }
    }
    // The store (locked, unreachable, another batch under the id): a configuration problem.
    if (error._tag === "BatchMismatch" || error._tag === "BatchNotFound" || error._tag === "BatchStoreError") {
      return { exitCode: ExitCode.invalidInput, type: error._tag, message }
    }
    if (error._tag === "UsageError") {
      // A bad command line (UsageError.ts): its message is one line naming the command and the flag.
      const field = stringField(error, "field")
      const rule = stringField(error, "rule")
      return {
        exitCode: ExitCode.invalidInput,
        type: "UsageError",
        message,
        ...(field !== undefined ? { field } : {}),
        ...(rule !== undefined ? { rule } : {})
      }
    }
    if (error._tag === "InvalidRequest") {
      const field = stringField(error, "field")
      const rule = stringField(error, "rule")
      return {
        exitCode: ExitCode.invalidInput,
        type: "InvalidRequest",
        message: forTheCommandLine(message, rule),
        ...(field !== undefined ? { field } : {}),
        ...(rule !== undefined ? { rule } : {})
      }
    }
    const status = numberField(error, "status")
    const gatewayType = stringField(error, "type")
    const requestId = stringField(error, "requestId")
    const family = stringField(error, "family")
    const taskId = stringField(error, "taskId")
    const code = error._tag === "VideoTaskFailed" ? numberField(error, "code") : undefined
    return {
      exitCode: ExitCode.failure,
      type: error._tag,
      message,
      ...(taskId !== undefined ? { taskId } : {}),
      ...(code !== undefined ? { code } : {}),
      ...(status !== undefined ? { status } : {}),
      ...(gatewayType !== undefined ? { gatewayType } : {}),
      ...(requestId !== undefined ? { requestId } : {}),
      ...(family !== undefined ? { family } : {})
    }
  }
  return { exitCode: ExitCode.failure, type: "Error", message: error instanceof Error ? error.message : String(error) }
}

/** The one-paragraph human form of a report. @category output */
export const describeReport = (report: FailureReport): string => {
  if (report.type.startsWith("Batch") && report.type !== "BatchInvalidInput") return `${report.type}: ${report.message}`
  // A rejected command line is one line that already names the command, the flag and what it allows.
  if (report.type === "UsageError") return report.message
  if (report.exitCode === ExitCode.invalidInput) {
    const where =
      report.field !== undefined && report.field !== ""
        ? ` (field ${report.field}${report.rule !== undefined ? `, rule ${report.rule}` : ""})`
        : ""
    const sent =
      report.submitted === undefined
        ? "nothing was sent."
        : `that line and the lines after it were not sent; ${report.submitted} lines before it were (their tasks are in the batch): fix the line and run the same command again.`
    // The report says whether anything was sent, once: a library message that says it too (the
    // platform settings' check) is shown without it.
    const message = report.message.replace(/[;,.]?\s*nothing was sent\.?$/, "")
    return `invalid input${where}: ${message}\n${sent}`
  }
  const facts = [
    report.taskId !== undefined ? `task ${report.taskId}` : undefined,
    report.code !== undefined ? `code ${report.code}` : undefined,
    report.status !== undefined ? `status ${report.status}` : undefined,
    report.gatewayType !== undefined ? `type ${report.gatewayType}` : undefined,
    report.family !== undefined ? `family ${report.family}` : undefined,
    report.requestId !== undefined ? `request id ${report.requestId}` : undefined
  ].filter((f): f is string => f !== undefined)
  return `${report.type}${facts.length > 0 ? ` (${facts.join(", ")})` : ""}: ${report.message}`
}

/**
 * The variables that hold secrets (what `UMG_API_KEY` and `UMG_PLATFORM_PASSWORD` hold is never
 * printed). Read here, beside `GatewayConfig.envSettings`, because the failure printer loads at start
 * and must not load the adapters (test/cli/LazyCommands).
 */
const secretVariables = ["UMG_API_KEY", "UMG_PLATFORM_PASSWORD"] as const

/**
 * The secrets the environment configures, each read on its own: a wrong other variable (the failure
 * being reported, perhaps) does not keep them from being hidden.
 * @category constructors
 */
export const configuredSecrets: Effect.Effect<ReadonlyArray<string>> = Effect.map(
  Effect.forEach(secretVariables, (name) =>
    Effect.orElseSucceed(Config.option(Config.Redacted(name)), () => Option.none<Redacted.Redacted<string>>())
  ),
  (values) => values.flatMap((value) => (Option.isSome(value) ? [Redacted.value(value.value)] : []))
)

/**
 * `report` with every secret taken out of its text (`redactText`, nothing cut): the last net under
 * every printed failure, whatever way a secret reached the error (each adapter redacts its own
 * outside text first).
 * @category constructors
 */
export const redactReport = (report: FailureReport, secrets: ReadonlyArray<string>): FailureReport => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(report))
    out[key] = typeof value === "string" ? redactText(value, secrets, Number.MAX_SAFE_INTEGER) : value
  return out as unknown as FailureReport
}
