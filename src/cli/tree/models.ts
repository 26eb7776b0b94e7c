/** `umg models` as the command tree holds it: its flags and help; what it does is `commands/models.ts`, loaded when it runs. */
import { Command, Flag } from "effect/cli"
import { modelListFormats } from "../../core/gateway/ModelListFormats.js"
import { commonOptions } from "../support/CommonOptions.js"
import { lazily } from "../support/Lazy.js"

const options = {
  ...commonOptions,
  format: Flag.Literals("format", modelListFormats).pipe(
    Flag.withDescription("the list format the gateway is asked for (chosen by headers)"),
    Flag.withDefault("openai" as const)
  )
}

/** The `umg models` command. @category commands */
export const modelsCommand = Command.make("models", options, (o) =>
  lazily(
    () => import("../commands/models.js"),
    (m) => m.runModels(o)
  )
).pipe(Command.withDescription(`list the models this key may use. Example: umg models --format messages`))
