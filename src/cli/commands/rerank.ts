/** `umg rerank`: orders documents by relevance to a query (E13). */
import { Effect, Option } from "effect"
import { Gateway } from "../../adapters/Gateway.js"
import { buildRerankBody } from "../../core/media/Rerank.js"
import * as Connection from "../support/Connection.js"
import * as Output from "../support/Output.js"

/** The options of `umg rerank`. @category models */
export interface RerankOptions extends Connection.CommonOptions {
  readonly model: string
  readonly query: string
  readonly topN: Option.Option<number>
  readonly documents: ReadonlyArray<string>
}

/** Runs `umg rerank`. @category commands */
export const runRerank = (o: RerankOptions) =>
  Effect.gen(function* () {
    const body = yield* buildRerankBody(
      {
        model: o.model,
        query: o.query,
        documents: o.documents,
        ...Option.match(o.topN, { onNone: () => ({}), onSome: (top_n) => ({ top_n }) })
      },
      yield* Connection.routing(o)
    )
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
