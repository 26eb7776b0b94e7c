/** `umg tokens`: counts the input tokens of a prompt for an epsilon model (E9; no model request, no quota). */
import { Effect, Option } from "effect"
import { Gateway } from "../../adapters/Gateway.js"
import { buildCountTokensBody } from "../../core/text/messages/Messages.js"
import * as Connection from "../support/Connection.js"
import { promptText } from "../support/LocalFiles.js"
import * as Output from "../support/Output.js"

/** The options of `umg tokens`. @category models */
export interface TokensOptions extends Connection.CommonOptions {
  readonly model: string
  readonly system: Option.Option<string>
  readonly prompt: string
}

/** Runs `umg tokens`. @category commands */
export const runTokens = (o: TokensOptions) =>
  Effect.gen(function* () {
    const body = yield* buildCountTokensBody(
      {
        model: o.model,
        messages: [{ role: "user", content: yield* promptText(o.prompt) }],
        ...Option.match(o.system, { onNone: () => ({}), onSome: (system) => ({ system }) })
      },
      yield* Connection.routing(o)
    )
    yield* Connection.run(
      o,
      Effect.gen(function* () {
        const gateway = yield* Gateway
        const count = yield* gateway.messages.countTokens(body)
        yield* Output.result(
          o,
          { model: o.model, input_tokens: count.input_tokens },
          () => `${count.input_tokens} input tokens`
        )
      })
    )
  })
