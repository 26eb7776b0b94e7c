/** `umg embed` as the command tree holds it: its flags and help; what it does is `commands/embed.ts`, loaded when it runs. */
import { Argument, Command, Flag } from "effect/cli"
import { commonOptions, modelOptions } from "../support/CommonOptions.js"
import { lazily } from "../support/Lazy.js"

const options = {
  ...commonOptions,
  model: Flag.String("model").pipe(
    Flag.withAlias("m"),
    Flag.withDescription("embedding model id, e.g. text-embedding-3-small")
  ),
  dimensions: Flag.Int("dimensions").pipe(Flag.withDescription("shorter vectors (some models only)"), Flag.optional),
  file: Flag.String("file").pipe(
    Flag.withMetavar("file"),
    Flag.withAlias("f"),
    Flag.withDescription("a text file: one input per non-empty line (- for standard input)"),
    Flag.optional
  ),
  concurrency: Flag.Int("concurrency").pipe(
    Flag.withDescription("requests in flight (default 4)"),
    Flag.withDefault(4)
  ),
  texts: Argument.String("TEXT").pipe(Argument.withDescription("texts to embed (or use --file)"), Argument.variadic()),
  ...modelOptions
}

/** The `umg embed` command. @category commands */
export const embedCommand = Command.make("embed", options, (o) =>
  lazily(
    () => import("../commands/embed.js"),
    (m) => m.runEmbed(o)
  )
).pipe(
  Command.withDescription(
    `embed texts; one JSON line per input, in order. Example: umg embed -m text-embedding-3-small "first text" "second text"`
  )
)
