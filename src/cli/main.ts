#!/usr/bin/env node
/**
 * The `umg` command: parses the command line with @effect/cli, runs the chosen command and turns
 * its outcome into an exit code (0 success, 2 invalid input, 1 gateway or network failure).
 */
import { Command } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Effect, Exit, Logger } from "effect"
import { batchCommand } from "./batch.js"
import { chatCommand } from "./chat.js"
import { demoCommand } from "./demo.js"
import { embedCommand } from "./embed.js"
import { emulatorCommand } from "./emulator.js"
import { describeReport, ExitCode, reportOf } from "./ExitCode.js"
import { withHelpConsole } from "./HelpConsole.js"
import { imageCommand } from "./image.js"
import { modelsCommand } from "./models.js"
import * as Output from "./Output.js"
import { platformCommand } from "./platform.js"
import { realtimeCommand } from "./realtime.js"
import { rerankCommand } from "./rerank.js"
import { speakCommand } from "./speak.js"
import { tokensCommand } from "./tokens.js"
import { videoCommand } from "./video.js"

const umg = Command.make("umg").pipe(
  Command.withDescription(
    "the Unified Model Gateway from the command line. Set UMG_BASE_URL and UMG_API_KEY to your gateway, or pass --emulator to use an embedded emulator. Exit codes: 0 ok, 1 gateway or task failure, 2 usage or configuration, 130 interrupted."
  ),
  Command.withSubcommands([
    modelsCommand,
    chatCommand,
    tokensCommand,
    embedCommand,
    rerankCommand,
    speakCommand,
    imageCommand,
    videoCommand,
    batchCommand,
    realtimeCommand,
    platformCommand,
    emulatorCommand,
    demoCommand
  ])
)

const cli = Command.run(umg, { name: "umg", version: "0.1.0" })

// The mode is read from argv rather than from a parsed command: errors of the command line itself
// happen before any command's options exist.
const jsonMode = process.argv.includes("--json")

const program = cli(process.argv).pipe(
  // @effect/cli prints help and command-line errors through the Console: plain, wrapped, `umg …`.
  withHelpConsole,
  Effect.catchAll((error) =>
    Effect.gen(function* () {
      const report = reportOf(error)
      yield* Output.endProgress
      // @effect/cli has printed its own message for a bad command line.
      if (!report.type.startsWith("CommandLine.")) {
        yield* jsonMode
          ? Effect.sync(() => void process.stderr.write(`${JSON.stringify({ error: report })}\n`))
          : Output.note(Output.errColour.red(describeReport(report)))
      }
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
