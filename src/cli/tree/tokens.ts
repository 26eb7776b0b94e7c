/** `umg tokens` as the command tree holds it: its flags and help; what it does is `commands/tokens.ts`, loaded when it runs. */
import { Argument, Command, Flag } from "effect/cli"
import { commonOptions, modelOptions } from "../support/CommonOptions.js"
import { lazily } from "../support/Lazy.js"

const options = {
  ...commonOptions,
  model: Flag.String("model").pipe(Flag.withAlias("m"), Flag.withDescription("an epsilon model id")),
  system: Flag.String("system").pipe(Flag.withDescription("system prompt (counted too)"), Flag.optional),
  prompt: Argument.String("PROMPT").pipe(Argument.withDescription("the prompt; - reads it from standard input")),
  ...modelOptions
}

/** The `umg tokens` command. @category commands */
export const tokensCommand = Command.make("tokens", options, (o) =>
  lazily(
    () => import("../commands/tokens.js"),
    (m) => m.runTokens(o)
  )
).pipe(
  Command.withDescription(
    `count the input tokens of a prompt (epsilon models). Example: umg tokens -m epsilon-sonnet-4-5-20250929 "How many tokens is this?"`
  )
)
