/** `umg rerank` as the command tree holds it: its flags and help; what it does is `commands/rerank.ts`, loaded when it runs. */
import { Argument, Command, Flag } from "effect/cli"
import { commonOptions, modelOptions } from "../support/CommonOptions.js"
import { lazily } from "../support/Lazy.js"

const options = {
  ...commonOptions,
  model: Flag.String("model").pipe(Flag.withAlias("m"), Flag.withDescription("rerank model id, e.g. rerank-v1")),
  query: Flag.String("query").pipe(Flag.withAlias("q"), Flag.withDescription("what the documents are ranked against")),
  topN: Flag.Int("top-n").pipe(Flag.withDescription("keep the best N (default all)"), Flag.optional),
  documents: Argument.String("DOC").pipe(Argument.withDescription("the documents"), Argument.atLeast(1)),
  ...modelOptions
}

/** The `umg rerank` command. @category commands */
export const rerankCommand = Command.make("rerank", options, (o) =>
  lazily(
    () => import("../commands/rerank.js"),
    (m) => m.runRerank(o)
  )
).pipe(
  Command.withDescription(
    `rank documents by relevance to a query. Example: umg rerank -m rerank-v1 -q "capital of France" "Paris is in France" "Berlin is in Germany"`
  )
)
