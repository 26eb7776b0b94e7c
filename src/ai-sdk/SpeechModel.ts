/**
 * umg's AI SDK speech model: `doGenerate` over the gateway's speech (E14), the audio as bytes.
 */
import type { SpeechModelV4, SharedV4Warning } from "@ai-sdk/provider"
import { providerKey } from "./Prompt.js"
import type { LanguageModelContext } from "./LanguageModel.js"

type SpeechCallOptions = Parameters<SpeechModelV4["doGenerate"]>[0]

/** The voice sent when the call names none. @category constants */
export const defaultVoice = "alloy"

/**
 * The speech model of `modelId`: `voice` one of the gateway's six (default `alloy`), `outputFormat`
 * its `response_format`, `speed` 0.25–4, `instructions` as given.
 * @category constructors
 */
export const makeSpeechModel = (ctx: LanguageModelContext, modelId: string): SpeechModelV4 => ({
  specificationVersion: "v4",
  provider: `${ctx.provider}.speech`,
  modelId,
  doGenerate: async (options: SpeechCallOptions) => {
    const warnings: Array<SharedV4Warning> = []
    if (options.language !== undefined) warnings.push({ type: "unsupported", feature: "language" })
    const prepared = ctx.runtime.prepare(options)
    const body = {
      ...options.providerOptions?.[providerKey],
      model: modelId,
      input: options.text,
      voice: options.voice ?? defaultVoice,
      ...(options.outputFormat === undefined ? {} : { response_format: options.outputFormat }),
      ...(options.speed === undefined ? {} : { speed: options.speed }),
      ...(options.instructions === undefined ? {} : { instructions: options.instructions })
    }
    const site = { url: `${ctx.baseUrl}/v1/audio/speech`, requestBody: body, signal: prepared.signal }
    const audio = await ctx.runtime.run(site, (g) => g.speech.create(body as never, prepared.options))
    const info = prepared.response()
    return {
      audio: audio.bytes,
      warnings,
      response: { timestamp: new Date(), modelId, ...(info === undefined ? {} : { headers: { ...info.headers } }) }
    }
  }
})
