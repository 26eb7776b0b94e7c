#!/usr/bin/env node
/**
 * The `umg` command: parses the command line with @effect/cli, runs the chosen command and turns
 * its outcome into an exit code (0 success, 2 invalid input or a bad command line, 1 gateway or
 * network failure).
 */
import { Command, ValidationError } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Effect, Exit, Logger } from "effect"
import { umg, umgSpec } from "./Commands.js"
import { describeReport, ExitCode, reportOf } from "./ExitCode.js"
import { withHelpConsole } from "./HelpConsole.js"
import * as Output from "./Output.js"
import { check, explain } from "./UsageError.js"

const cli = Command.run(umg, { name: "umg", version: "0.1.0" })
const args = process.argv.slice(2)

// The mode is read from argv rather than from a parsed command: errors of the command line itself
// happen before any command's options exist.
const jsonMode = process.argv.includes("--json")

// A line umg can see is wrong is refused before @effect/cli parses it: @effect/cli would take an
// unknown flag for an argument of a command that has one (`umg chat -m M --tmperature 1 hi`).
const refused = check(umgSpec, args)

const program = (refused !== undefined ? Effect.fail<unknown>(refused) : cli(process.argv)).pipe(
  // @effect/cli prints help through the Console: plain, wrapped, `umg …` (its own error texts are dropped).
  withHelpConsole,
  Effect.catchAll((error) =>
    Effect.gen(function* () {
      // A rejected command line is explained here, once for every command: the flag, what it allows, the usage.
      const report = reportOf(ValidationError.isValidationError(error) ? explain(umgSpec, args, error) : error)
      yield* Output.endProgress
      yield* jsonMode
        ? Effect.sync(() => void process.stderr.write(`${JSON.stringify({ error: report })}\n`))
        : Output.note(Output.errColour.red(describeReport(report)))
      process.exitCode = report.exitCode
    })
  ),
  Effect.provide(NodeContext.layer),
  // Log lines (the cluster runner of `umg batch`) go to stderr: stdout carries results only.
  Effect.provide(Logger.replace(Logger.defaultLogger, Logger.prettyLogger({ stderr: true, colors: Output.colourAllowed(process.stderr) })))
)

NodeRuntime.runMain(program, {
  disableErrorReporting: false,
  disablePrettyLogger: true,
  teardown: (exit, onExit) => {
    const code = Exit.isSuccess(exit) ? Number(process.exitCode ?? ExitCode.ok) : Exit.isInterrupted(exit) ? 130 : ExitCode.failure
    onExit(code)
  }
})
