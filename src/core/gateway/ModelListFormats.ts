/** The three formats of `GET /v1/models` (E11), alone in a module so that the CLI's command tree can name them without loading the decoders. */

/** The three formats of `GET /v1/models`. @category models */
export const modelListFormats = ["openai", "messages", "native"] as const

/** One of `modelListFormats`. @category models */
export type ModelListFormat = (typeof modelListFormats)[number]
