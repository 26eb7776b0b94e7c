// One umg/ai call through the counting proxy, with the warnings it logged: Effect AI's responses carry
// no warnings, so umg/ai logs what it could not send as asked.
import { Effect, Layer, Logger } from "effect"
import { LanguageModel } from "effect/ai"
import { UmgLanguageModel } from "../../src/ai/index.js"
import type { UmgModelConfig } from "../../src/ai/index.js"
import type { proxiedGateway } from "../ai-sdk/CountingProxy.js"

type ProxiedGateway = ReturnType<typeof proxiedGateway>

/** Runs generateText on `model` with `config` through `env`, giving its text and the warnings logged. */
export const generateLogged = async (env: ProxiedGateway, model: string, config: UmgModelConfig) => {
  const warnings: Array<string> = []
  const capture = Logger.layer([
    Logger.make(({ logLevel, message }) => {
      if (logLevel === "Warn") warnings.push([message].flat().map(String).join(" "))
    })
  ])
  const layer = Layer.mergeAll(UmgLanguageModel.layer({ model, config }).pipe(Layer.provide(env.gateway)), capture)
  const r = await Effect.runPromise(Effect.provide(LanguageModel.generateText({ prompt: "x" }), layer))
  return { text: r.text, warnings }
}

/** The body of the first request the proxy saw. */
export const firstBodySent = (env: ProxiedGateway): Record<string, unknown> =>
  JSON.parse(env.proxy.requests[0]!.body) as Record<string, unknown>
