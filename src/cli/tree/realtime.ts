/** `umg realtime` as the command tree holds it: its flags and help; what it does is `commands/realtime.ts`, loaded when it runs. */
import { Argument, Command, Flag } from "effect/cli"
import { commonOptions, modelOptions } from "../support/CommonOptions.js"
import { lazily } from "../support/Lazy.js"

const options = {
  ...commonOptions,
  model: Flag.String("model").pipe(
    Flag.withAlias("m"),
    Flag.withDescription("gpt-realtime, gpt-realtime-mini or gpt-realtime-2"),
    Flag.withDefault("gpt-realtime")
  ),
  text: Argument.String("TEXT"),
  ...modelOptions
}

/** The `umg realtime` command. @category commands */
export const realtimeCommand = Command.make("realtime", options, (o) =>
  lazily(
    () => import("../commands/realtime.js"),
    (m) => m.runRealtime(o)
  )
).pipe(
  Command.withDescription(
    `one text turn over the realtime WebSocket, deltas printed as they arrive. Example: umg realtime -m gpt-realtime "Say hello"`
  )
)
