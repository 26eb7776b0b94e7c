/** `umg emulator` as the command tree holds it: its flags and help; what it does is `commands/emulator.ts`, loaded when it runs. */
import { Command, Flag } from "effect/cli"
import { lazily } from "../support/Lazy.js"

const options = {
  port: Flag.Int("port").pipe(Flag.withDescription("port to listen on (0 picks a free one)"), Flag.withDefault(8787)),
  host: Flag.String("host").pipe(Flag.withDescription("address to bind"), Flag.withDefault("127.0.0.1")),
  fast: Flag.Boolean("fast").pipe(
    Flag.withDescription("fast timings (video tasks finish in under a second)"),
    Flag.withDefault(false)
  ),
  json: Flag.Boolean("json").pipe(
    Flag.withDescription("print the addresses and credentials as one JSON line"),
    Flag.withDefault(false)
  )
}

/** The `umg emulator` command. @category commands */
export const emulatorCommand = Command.make("emulator", options, (o) =>
  lazily(
    () => import("../commands/emulator.js"),
    (m) => m.runEmulator(o)
  )
).pipe(
  Command.withDescription(`run the local gateway emulator in the foreground. Example: umg emulator --port 8787 --fast`)
)
