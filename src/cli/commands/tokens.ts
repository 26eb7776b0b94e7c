/** `umg tokens`: counts the input tokens of a prompt for an epsilon model (E9; no model request, no quota). */
import { Argument, Command, Flag } from "effect/cli"
import { Effect, Option } from "effect"
import { Gateway } from "../../adapters/Gateway.js"
import { buildCountTokensBody } from "../../core/text/messages/Messages.js"
import * as Connection from "../support/Connection.js"
import * as Output from "../support/Output.js"

const options = {
  ...Connection.commonOptions,
  model: Flag.String("model").pipe(Flag.withAlias("m"), Flag.withDescription("an epsilon model id")),
  system: Flag.String("system").pipe(Flag.withDescription("system prompt (counted too)"), Flag.optional),
  prompt: Argument.String("PROMPT")
}

/** The `umg tokens` command. @category commands */
export const tokensCommand = Command.make("tokens", options, (o) =>
  Effect.gen(function* () {
    const body = yield* buildCountTokensBody({
      model: o.model,
      messages: [{ role: "user", content: o.prompt }],
      ...Option.match(o.system, { onNone: () => ({}), onSome: (system) => ({ system }) })
    })
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
).pipe(
  Command.withDescription(
    `count the input tokens of a prompt (epsilon models). Example: umg tokens -m epsilon-sonnet-4-5-20250929 "How many tokens is this?"`
  )
)
