/** `umg chat` as the command tree holds it: its flags and help; what it does is `commands/chat.ts`, loaded when it runs. */
import { Argument, Command, Flag } from "effect/cli"
import { commonOptions, modelOptions } from "../support/CommonOptions.js"
import { lazily } from "../support/Lazy.js"

const options = {
  ...commonOptions,
  model: Flag.String("model").pipe(
    Flag.withAlias("m"),
    Flag.withDescription("model id; its family picks the endpoint")
  ),
  system: Flag.String("system").pipe(Flag.withDescription("system prompt"), Flag.optional),
  maxTokens: Flag.Int("max-tokens").pipe(Flag.withDescription("most tokens to generate"), Flag.optional),
  thinking: Flag.Int("thinking").pipe(
    Flag.withDescription("thinking budget in tokens (epsilon: > 1024)"),
    Flag.optional
  ),
  temperature: Flag.Finite("temperature").pipe(Flag.withDescription("sampling temperature"), Flag.optional),
  prompt: Argument.String("PROMPT").pipe(
    Argument.withDescription("the user's message; - reads it from standard input (cat notes.md | umg chat -m M -)")
  ),
  ...modelOptions
}

/** The `umg chat` command. @category commands */
export const chatCommand = Command.make("chat", options, (o) =>
  lazily(
    () => import("../commands/chat.js"),
    (m) => m.runChat(o)
  )
).pipe(
  Command.withDescription(
    `send one prompt to a text model and stream the reply. Example: umg chat -m gpt-4o-mini "Say hello"`
  )
)
