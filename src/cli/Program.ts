/**
 * The `umg` program: parses the command line with effect/cli, runs the chosen command and turns its
 * outcome into an exit code. The codes: 0 success, 2 invalid input or a bad command line, 1 a
 * gateway or network failure, 130 interrupted (143 by SIGTERM), 141 its output closed by the reader. Started by `main`.
 * Before a command runs, the proxy `HTTPS_PROXY`/`HTTP_PROXY` name is turned on, as curl takes them (`EnvProxy`).
 */
// Modules, not the package's index: the index also loads its Redis, HTTP and cluster modules (about a
// thousand files) that no command needs at start.
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeServices from "@effect/platform-node/NodeServices"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as References from "effect/References"
import * as Result from "effect/Result"
import { CliError, Command } from "effect/cli"
import { umg, umgSpec } from "./Commands.js"
import * as EnvProxy from "./support/EnvProxy.js"
import { configuredSecrets, describeReport, ExitCode, redactReport, reportOf } from "./support/ExitCode.js"
import { withHelpConsole } from "./support/HelpConsole.js"
import * as Output from "./support/Output.js"
import { booleanFlagSet, check, explain, wizardWithoutTerminal } from "./support/UsageError.js"
import type { InvalidRequest } from "../core/errors/InvalidRequest.js"
import { checkLogLevel, minimumLogLevelOf } from "../core/validation/LogLevelSetting.js"

// Before anything is written: a reader that goes away (`umg chat … | head`) or a failed write stops
// the command (see `exitCodeOf`) rather than ending the process with a stack trace.
Output.watchOutput()

/**
 * Interrupted by a signal, as shells report a process that signal ended (128 + its number): Ctrl-C
 * (SIGINT) 130, SIGTERM (a supervisor, `kill`, `timeout`) 143. Both interrupt the command alike
 * (NodeRuntime's handlers); the first that came decides the code.
 */
const signalCodes = { SIGINT: 130, SIGTERM: 143 } as const
let signalled: keyof typeof signalCodes | undefined
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void (signalled ??= signal))
/**
 * stdout or stderr closed by its reader (EPIPE): the command's work is interrupted (its connections
 * and stores closed as after Ctrl-C), nothing more is written, and the code is what shells report
 * for a process that SIGPIPE ended, as `cat` or `grep` in that place would.
 */
const outputClosedCode = 141

/**
 * The exit code of the program's outcome. A failed output decides it whatever the command did; a
 * failed write other than EPIPE (a full disk) is said on stderr, when stderr still takes it.
 */
const exitCodeOf = (exit: Exit.Exit<unknown, unknown>): number => {
  const output = Output.outputFailure()
  if (output !== undefined) {
    if (output.code === "EPIPE") return outputClosedCode
    if (Output.stderrWritable())
      process.stderr.write(`umg: cannot write to ${output.stream} (${output.message}); stopped\n`)
    return ExitCode.failure
  }
  return Exit.isSuccess(exit)
    ? Number(process.exitCode ?? ExitCode.ok)
    : Exit.hasInterrupts(exit)
      ? signalCodes[signalled ?? "SIGINT"]
      : ExitCode.failure
}

const args = process.argv.slice(2)
const cli = Command.runWith(umg, { version: "0.1.0" })

// The mode is read from the command line as `check` reads it (and effect/cli parses it: `--json=false`
// is off, a `--json` after `--` is text), not from a parsed command: errors of the command line itself
// happen before any command's options exist.
const jsonMode = booleanFlagSet(umgSpec, args, "--json")

// A line umg can see is wrong is refused before effect/cli parses it, in umg's own words: the flag
// and what it allows (effect/cli would report it next to the whole help text).
const refused =
  check(umgSpec, args) ??
  wizardWithoutTerminal(umgSpec, args, process.stdin.isTTY === true && process.stdout.isTTY === true)

/**
 * `effect` at the level `UMG_LOG` asks (`debug`, `info`, `warn`, `error`, `off`; unset or empty:
 * Effect's default, `info`): `debug` adds a line per request, answer, retry, stream end and WebSocket
 * open/close, each one line of `key=value` facts on stderr. Read here, by the rule
 * `GatewayConfig.logLevelFromEnv` reads it with (`checkLogLevel`), because the program must not load
 * the adapters at start (test/cli/LazyCommands); a wrong value is refused (exit 2), naming it.
 */
const withLogLevel = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | InvalidRequest, R> =>
  Effect.flatMap(
    Effect.orElseSucceed(Config.option(Config.String("UMG_LOG")), () => Option.none<string>()),
    (raw): Effect.Effect<A, E | InvalidRequest, R> => {
      if (Option.isNone(raw) || raw.value === "") return effect
      const level = checkLogLevel("UMG_LOG", raw.value)
      if (Result.isFailure(level)) return Effect.fail(level.failure)
      const leveled = Effect.provideService(effect, References.MinimumLogLevel, minimumLogLevelOf(level.success))
      // The pretty logger puts each fact on a line of its own: a debug run's lines are one each.
      return level.success === "debug"
        ? Effect.provide(leveled, Logger.layer([Logger.withConsoleError(Logger.formatLogFmt)]))
        : leveled
    }
  )

/** effect/cli's `ShowHelp` without problems: help asked for, or a group run without its subcommand. */
const isHelpOnly = (error: unknown): boolean =>
  CliError.isCliError(error) && error._tag === "ShowHelp" && error.errors.length === 0

// The proxy `HTTPS_PROXY`/`HTTP_PROXY` name, as curl takes them (`EnvProxy`), on before any command connects.
const program = (
  refused !== undefined
    ? Effect.fail<unknown>(refused)
    : withLogLevel(Effect.andThen(EnvProxy.fromEnvironment(), cli(args)))
).pipe(
  // effect/cli presents help through the help presenter: plain, wrapped, `umg …`.
  withHelpConsole,
  // The reader went away: stop the command (the race interrupts it and waits for its finalizers).
  Effect.raceFirst(Output.closed),
  Effect.catch((error: unknown) =>
    // A failure after the output closed (a write to it failed) has no one to be reported to.
    isHelpOnly(error) || Output.outputFailure() !== undefined
      ? Effect.void
      : Effect.gen(function* () {
          // A rejected command line is explained here, once for every command: the flag, what it allows, the usage.
          const usage =
            CliError.isCliError(error) && error._tag === "ShowHelp" ? explain(umgSpec, args, error.errors) : error
          // The one printer of failures, so the one place where no configured secret gets through.
          const report = redactReport(reportOf(usage), [
            ...(yield* configuredSecrets),
            ...EnvProxy.secretsOf(process.env)
          ])
          yield* Output.endProgress
          yield* jsonMode
            ? Effect.sync(() => void process.stderr.write(`${JSON.stringify({ error: report })}\n`))
            : Output.note(Output.errColour.red(describeReport(report)))
          process.exitCode = report.exitCode
        })
  ),
  Effect.provide(NodeServices.layer),
  // Log lines (the cluster runner of `umg batch`) go to stderr: stdout carries results only.
  Effect.provide(Logger.layer([Logger.consolePretty({ colors: Output.colourAllowed(process.stderr) })])),
  Effect.provideService(Logger.LogToStderr, true)
)

NodeRuntime.runMain(program, {
  disableErrorReporting: false,
  // The code is taken on the next turn of the event loop: a write's failure is reported a tick
  // after the write, and the last write may come just before the program ends.
  teardown: (exit, onExit) => void setImmediate(() => onExit(exitCodeOf(exit)))
})
