// The text families the provider tests run on: a model of each, the emulator's route names for its
// calls (counters and fault injection), and its official AI SDK provider for the swap tests.
import { createAnthropic } from "@ai-sdk/anthropic"
import { createGoogleGenerativeAI } from "@ai-sdk/google"
import { createOpenAI } from "@ai-sdk/openai"
import type { LanguageModel } from "ai"

export interface TextFamilyCase {
  readonly name: string
  readonly model: string
  /** The emulator's route of a whole answer and of a stream. */
  readonly route: string
  readonly streamRoute: string
  /** How many of the stream's events hold some text but not all of it (where a stall fault cuts it). */
  readonly someTextAfter: number
  /** The family's official AI SDK provider, pointed at `url` (the gateway's base address). */
  readonly official: (url: string, key: string) => LanguageModel
}

export const textFamilies: ReadonlyArray<TextFamilyCase> = [
  {
    name: "messages-style",
    model: "epsilon-sonnet-4-5-20250929",
    route: "messages",
    streamRoute: "messages",
    someTextAfter: 6,
    official: (url, key) => createAnthropic({ baseURL: `${url}/v1`, authToken: key })("epsilon-sonnet-4-5-20250929")
  },
  {
    name: "chat",
    model: "gpt-4o",
    route: "chat",
    streamRoute: "chat",
    someTextAfter: 6,
    official: (url, key) => createOpenAI({ baseURL: `${url}/v1`, apiKey: key }).chat("gpt-4o")
  },
  {
    name: "responses",
    model: "gpt-5",
    route: "responses",
    streamRoute: "responses",
    someTextAfter: 8,
    official: (url, key) => createOpenAI({ baseURL: `${url}/v1`, apiKey: key }).responses("gpt-5")
  },
  {
    name: "native content",
    model: "zeta-2.5-flash",
    route: "native.generate",
    streamRoute: "native.stream",
    someTextAfter: 2,
    official: (url, key) =>
      createGoogleGenerativeAI({ baseURL: `${url}/v1beta`, apiKey: key, headers: { authorization: `Bearer ${key}` } })(
        "zeta-2.5-flash"
      )
  }
]
