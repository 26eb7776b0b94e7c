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
    Flag.withDescription(
      "thinking budget in tokens: epsilon and zeta 2.5 take it as is (epsilon: > 1024); zeta 3 as thinkingLevel LOW, HIGH from 8192; GPT-5/o-series as reasoning effort low, medium from 2048, high from 8192; chat-completions models take none"
    ),
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
