/** `umg models`: the models this key may use (E11), in the list format asked for. */
import { Effect } from "effect"
import { Gateway } from "../../adapters/Gateway.js"
import { routeFor } from "../../core/gateway/Routing.js"
import * as Connection from "../support/Connection.js"
import * as Output from "../support/Output.js"

/** The options of `umg models`. @category models */
export interface ModelsOptions extends Connection.CommonOptions {
  readonly format: "openai" | "messages" | "native"
}

/** Runs `umg models`. @category commands */
export const runModels = (o: ModelsOptions) =>
  Connection.run(
    o,
    Effect.gen(function* () {
      const gateway = yield* Gateway
      const models = yield* gateway.models.list({ format: o.format })
      if (o.json) return yield* Output.json({ format: o.format, data: models })
      yield* Output.line(
        Output.table(
          ["id", "owned_by", "endpoint"],
          models.map((m) => [m.id, m.owned_by, Output.colour.dim(routeFor(m.id).path)])
        )
      )
      yield* Output.note(Output.errColour.dim(`${models.length} models (${o.format} format)`))
    })
  )
