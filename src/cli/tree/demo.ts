/** `umg demo` as the command tree holds it: its flags and help; what it does is `commands/demo.ts`, loaded when it runs. */
import { Command, Flag } from "effect/cli"
import { commonOptions } from "../support/CommonOptions.js"
import { lazily } from "../support/Lazy.js"

const options = {
  emulator: commonOptions.emulator,
  out: Flag.String("out").pipe(
    Flag.withMetavar("directory"),
    Flag.withDescription("where the demo writes its files (default: a new temp folder)"),
    Flag.optional
  )
}

/** The `umg demo` command. @category commands */
export const demoCommand = Command.make("demo", options, (o) =>
  lazily(
    () => import("../commands/demo.js"),
    (m) => m.runDemoCommand(o)
  )
).pipe(
  Command.withDescription(
    `a tour of every capability (embedded emulator unless UMG_BASE_URL is set). Example: umg demo --out demo-files`
  )
)
