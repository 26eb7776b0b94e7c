/**
 * The `umg` command and its subcommands, in the order `umg --help` lists them: one list, read by the
 * parser (`main`) and by the explanation of a rejected command line (`UsageError`).
 */
import { Command } from "effect/cli"
import { batchCommand } from "./commands/batch.js"
import { chatCommand } from "./commands/chat.js"
import { demoCommand } from "./commands/demo.js"
import { embedCommand } from "./commands/embed.js"
import { emulatorCommand } from "./commands/emulator.js"
import { imageCommand } from "./commands/image.js"
import { modelsCommand } from "./commands/models.js"
import { platformCommand } from "./commands/platform.js"
import { realtimeCommand } from "./commands/realtime.js"
import { rerankCommand } from "./commands/rerank.js"
import { speakCommand } from "./commands/speak.js"
import { tokensCommand } from "./commands/tokens.js"
import { commandSpecs } from "./support/UsageError.js"
import { videoCommand } from "./commands/video.js"

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
    "the Unified Model Gateway from the command line. Set UMG_BASE_URL and UMG_API_KEY to your gateway, or pass --emulator to use an embedded emulator. Exit codes: 0 ok, 1 gateway or task failure, 2 usage or configuration, 130 interrupted."
  ),
  Command.withSubcommands(commands)
)

/** What `umg` and each command accept: flags, their values, arguments, subcommands. @category models */
export const umgSpec = commandSpecs("umg", commands)
