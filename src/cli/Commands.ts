/**
 * The `umg` command and its subcommands, in the order `umg --help` lists them: one list, read by the
 * parser (`main`) and by the explanation of a rejected command line (`UsageError`). The tree holds
 * each command's flags and help only (`tree/`); what a command does (`commands/`) is imported when
 * it runs, so starting `umg` loads neither the gateway, the batch engine nor the emulator.
 */
import { Command } from "effect/cli"
import { batchCommand } from "./tree/batch.js"
import { chatCommand } from "./tree/chat.js"
import { demoCommand } from "./tree/demo.js"
import { embedCommand } from "./tree/embed.js"
import { emulatorCommand } from "./tree/emulator.js"
import { imageCommand } from "./tree/image.js"
import { modelsCommand } from "./tree/models.js"
import { platformCommand } from "./tree/platform.js"
import { realtimeCommand } from "./tree/realtime.js"
import { rerankCommand } from "./tree/rerank.js"
import { speakCommand } from "./tree/speak.js"
import { tokensCommand } from "./tree/tokens.js"
import { commandSpecs } from "./support/UsageError.js"
import { videoCommand } from "./tree/video.js"

/** The subcommands of `umg`. @category commands */
export const commands = [
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
] as const

/** The `umg` command. @category commands */
export const umg = Command.make("umg").pipe(
  Command.withDescription(
    "the Unified Model Gateway from the command line. Set UMG_BASE_URL and UMG_API_KEY to your gateway, or pass --emulator to use an embedded emulator. Exit codes: 0 ok, 1 gateway or task failure, 2 usage or configuration, 130 interrupted (SIGTERM: 143), 141 output closed by its reader (a failed write to it: 1)."
  ),
  Command.withSubcommands(commands)
)

/** What `umg` and each command accept: flags, their values, arguments, subcommands. @category models */
export const umgSpec = commandSpecs("umg", commands)
