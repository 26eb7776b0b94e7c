import { Effect, Either } from "effect"
import { expect, it } from "vitest"
import { buildMessagesBody, buildNativeBody, buildChatBody, buildSpeechBody, buildEmbeddingsBody, buildRerankBody, buildImagesBody, buildVideoBody, buildCountTokensBody, buildResponsesBody } from "../../src/core/index.js"
const show = (e: Effect.Effect<unknown, any>) => { const r = Effect.runSync(Effect.either(e)); expect(1).toBe(1); console.log(Either.isLeft(r) ? `ERR ${r.left.field} ${r.left.rule}: ${r.left.message}` : `OK ${JSON.stringify(r.right)}`) }
it("x", () => {
  show(buildMessagesBody({ model: "epsilon-opus-4-5-20251101", max_tokens: 10, messages: [{ role: "user", content: "hi" }], system: [{ type: "text", text: "s", cache_control: { type: "forever" } }] }))
  show(buildNativeBody("zeta-2.5-flash", { contents: [{ role: "user", parts: [{ inlineData: { data: "AAAA" } }] }] }))
  show(buildChatBody({ model: "gpt-5-pro", messages: [{ role: "user", content: "hi" }] }))
  show(buildChatBody({ model: "gpt-9", messages: [{ role: "user", content: "hi" }] }))
  show(buildChatBody({ model: "gpt-4o-mini", temprature: 0.2, messages: [{ role: "user", content: "hi" }] }))
  show(buildSpeechBody({ model: "gpt-4o-mini-tts", input: "x", voice: "ash" }))
  show(buildEmbeddingsBody({ model: "epsilon-opus-4-5-20251101", input: "x" }))
  show(buildSpeechBody({ model: "text-embedding-3-small", input: "x", voice: "alloy" }))
  show(buildRerankBody({ model: "gpt-4o", query: "q", documents: ["a"] }))
  show(buildRerankBody({ model: "rerank-v1", query: "q", documents: ["a"], top_n: 1n }))
  show(buildImagesBody({ model: "rerank-v1", prompt: "x" }))
  show(buildVideoBody({ model: "rerank-v1", prompt: "x" }))
  show(buildVideoBody({ model: "alpha-9", prompt: "x" }))
  show(buildCountTokensBody({ model: "gpt-4o", messages: [{ role: "user", content: "hi" }] }))
  show(buildResponsesBody({ model: "zeta-2.5-pro", input: "hi" }))
  show(buildMessagesBody({ model: "epsilon-opus-4-5-20251101", max_tokens: 10, messages: [{ role: "user", content: "hi" }], thinking: { type: "enabled", budget_token: 2000 } }))
  show(buildMessagesBody({ model: "epsilon-opus-4-5-20251101", max_tokens: 10, messages: [{ role: "user", content: "hi", cache_control: {type: "ephemeral"} }] }))
})
