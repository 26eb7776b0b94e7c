/** `umg models`: the models this key may use (E11), in the list format asked for. */
import { Command, Flag } from "effect/cli"
import { Effect } from "effect"
import { Gateway } from "../../adapters/Gateway.js"
import { routeFor } from "../../core/gateway/Routing.js"
import * as Connection from "../support/Connection.js"
import * as Output from "../support/Output.js"

const options = {
  ...Connection.commonOptions,
  format: Flag.Literals("format", ["openai", "messages", "native"] as const).pipe(
    Flag.withDescription("the list format the gateway is asked for (chosen by headers)"),
    Flag.withDefault("openai" as const)
  )
}

/** The `umg models` command. @category commands */
export const modelsCommand = Command.make("models", options, (o) =>
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
).pipe(Command.withDescription(`list the models this key may use. Example: umg models --format messages`))
