/** `umg rerank`: orders documents by relevance to a query (E13). */
import { Argument, Command, Flag } from "effect/cli"
import { Effect, Option } from "effect"
import { Gateway } from "../../adapters/Gateway.js"
import { buildRerankBody } from "../../core/media/Rerank.js"
import * as Connection from "../support/Connection.js"
import * as Output from "../support/Output.js"

const options = {
  ...Connection.commonOptions,
  model: Flag.String("model").pipe(Flag.withAlias("m"), Flag.withDescription("rerank model id, e.g. rerank-v1")),
  query: Flag.String("query").pipe(Flag.withAlias("q"), Flag.withDescription("what the documents are ranked against")),
  topN: Flag.Int("top-n").pipe(Flag.withDescription("keep the best N (default all)"), Flag.optional),
  documents: Argument.String("DOC").pipe(Argument.withDescription("the documents"), Argument.atLeast(1))
}

/** The `umg rerank` command. @category commands */
export const rerankCommand = Command.make("rerank", options, (o) =>
  Effect.gen(function* () {
    const body = yield* buildRerankBody({
      model: o.model,
      query: o.query,
      documents: o.documents,
      ...Option.match(o.topN, { onNone: () => ({}), onSome: (top_n) => ({ top_n }) })
    })
    yield* Connection.run(
      o,
      Effect.gen(function* () {
        const gateway = yield* Gateway
        const answer = yield* gateway.rerank.create(body)
        if (o.json) return yield* Output.json(answer)
        yield* Output.line(
          Output.table(
            ["rank", "score", "index", "document"],
            answer.results.map((r, rank) => [
              String(rank + 1),
              r.relevance_score.toFixed(4),
              String(r.index),
              o.documents[r.index] ?? ""
            ])
          )
        )
      })
    )
  })
).pipe(
  Command.withDescription(
    `rank documents by relevance to a query. Example: umg rerank -m rerank-v1 -q "capital of France" "Paris is in France" "Berlin is in Germany"`
  )
)
