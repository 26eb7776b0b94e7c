import { Result } from "effect"
import { describe, expect, it } from "vitest"
import type { InvalidRequest } from "../../src/core/errors/InvalidRequest.js"
import { ensureRoute, nativePaths, routeFor, routeForCapability } from "../../src/core/gateway/Routing.js"
import { type Capability, defaultRouteCatalog, extendRouteCatalog } from "../../src/core/gateway/Catalog.js"

const failure = <A>(result: Result.Result<A, InvalidRequest>): InvalidRequest => {
  if (Result.isSuccess(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.success)}`)
  return result.failure
}
const success = <A>(result: Result.Result<A, InvalidRequest>): A => {
  if (Result.isFailure(result)) throw new Error(`expected a success, got ${result.failure.message}`)
  return result.success
}

describe("routeFor", () => {
  it.each<[string, Capability, string]>([
    ["epsilon-opus-4-5-20251101", "messages", "/v1/messages"],
    ["epsilon-haiku-4-5-20251001", "messages", "/v1/messages"],
    ["zeta-2.5-pro", "native", "/v1beta/models/zeta-2.5-pro:generateContent"],
    ["zeta-3-pro-preview-thinking-high", "native", "/v1beta/models/zeta-3-pro-preview-thinking-high:generateContent"],
    ["gpt-5-pro", "responses", "/v1/responses"],
    ["gpt-5.1-pro-2025-11-13", "responses", "/v1/responses"],
    ["gpt-5", "responses", "/v1/responses"],
    ["gpt-5-mini", "responses", "/v1/responses"],
    ["gpt-5-chat-latest", "chat", "/v1/chat/completions"],
    ["gpt-5.1-chat-latest", "chat", "/v1/chat/completions"],
    ["o3", "responses", "/v1/responses"],
    ["o4-mini", "responses", "/v1/responses"],
    ["gpt-4o", "chat", "/v1/chat/completions"],
    ["some-new-chat-model", "chat", "/v1/chat/completions"],
    ["zeta-embedding-001", "embeddings", "/v1/embeddings"],
    ["text-embedding-3-small", "embeddings", "/v1/embeddings"],
    ["text-embedding-ada-002", "embeddings", "/v1/embeddings"],
    ["rerank-v1", "rerank", "/v1/rerank"],
    ["gpt-4o-mini-tts", "speech", "/v1/audio/speech"],
    ["tts-1-hd", "speech", "/v1/audio/speech"],
    ["zeta-2.5-flash-image", "images", "/v1/images/generations"],
    ["zeta-3-pro-image-preview", "images", "/v1/images/generations"],
    ["gpt-realtime", "realtime", "/v1/realtime?model=gpt-realtime"],
    ["gpt-realtime-mini", "realtime", "/v1/realtime?model=gpt-realtime-mini"],
    ["gpt-realtime-2", "realtime", "/v1/realtime?model=gpt-realtime-2"],
    ["zeta-live-2.5-flash-native-audio", "live", "/ws/v1beta/models/zeta-live-2.5-flash-native-audio/liveStream"],
    ["alpha-2", "video", "/v1/video/generations"],
    ["beta-3.1-fast-generate-001", "video", "/v1/video/generations"],
    ["gamma2.5-t2v-preview", "video", "/v1/video/generations"],
    ["delta-1-5-pro-251215-noAudio", "video", "/v1/video/generations"]
  ])("routes %s to %s at %s", (model, capability, path) => {
    const route = routeFor(model)
    expect(route.capability).toBe(capability)
    expect(route.path).toBe(path)
    expect(route.model).toBe(model)
  })

  it("gives native-content models a streaming path with alt=sse", () => {
    expect(routeFor("zeta-2.5-flash").streamPath).toBe("/v1beta/models/zeta-2.5-flash:streamGenerateContent?alt=sse")
    expect(routeFor("epsilon-sonnet-4-5-20250929").streamPath).toBeUndefined()
  })

  it("names the body shape, telling realtime v1 from v2", () => {
    expect(routeFor("gpt-realtime").shape).toBe("realtime-v1")
    expect(routeFor("gpt-realtime-mini").shape).toBe("realtime-v1")
    expect(routeFor("gpt-realtime-2").shape).toBe("realtime-v2")
    expect(routeFor("zeta-2.5-pro").shape).toBe("native-content")
    expect(routeFor("epsilon-opus-4-1-20250805").shape).toBe("messages")
    expect(routeFor("zeta-live-2.5-flash-native-audio").shape).toBe("live-setup")
  })

  it("uses websocket transport for realtime and live, http POST for the rest", () => {
    expect(routeFor("gpt-realtime").transport).toBe("websocket")
    expect(routeFor("zeta-live-2.5-flash-native-audio").transport).toBe("websocket")
    expect(routeFor("gpt-4o").transport).toBe("http")
    expect(routeFor("gpt-4o").method).toBe("POST")
  })

  it("lists the capabilities a model may use, the preferred one first", () => {
    expect(routeFor("gpt-5").capabilities).toEqual(["responses", "chat"])
    expect(routeFor("gpt-5-pro").capabilities).toEqual(["responses"])
    expect(routeFor("epsilon-opus-4-5-20251101").capabilities).toEqual(["messages", "countTokens"])
  })

  it("encodes the model id so it cannot change the path", () => {
    expect(routeFor("zeta-x/../../admin?").path).toBe("/v1beta/models/zeta-x%2F..%2F..%2Fadmin%3F:generateContent")
    expect(nativePaths("zeta-2.5-pro-thinking-8192").stream).toBe(
      "/v1beta/models/zeta-2.5-pro-thinking-8192:streamGenerateContent?alt=sse"
    )
  })

  it("lets user entries route new ids ahead of the defaults", () => {
    const catalog = extendRouteCatalog([
      { match: { prefix: "acme-chat-" }, capabilities: ["messages", "countTokens"] },
      { match: { exact: "zeta-2.5-pro" }, capabilities: ["embeddings"] }
    ])
    expect(routeFor("acme-chat-1", { catalog }).capability).toBe("messages")
    expect(routeFor("zeta-2.5-pro", { catalog }).capability).toBe("embeddings")
    expect(routeFor("zeta-2.5-flash", { catalog }).capability).toBe("native")
    expect(routeFor("acme-chat-1").capability).toBe("chat")
    expect(defaultRouteCatalog.length).toBeGreaterThan(0)
  })

  it("matches a user pattern the same way on every call, even a global RegExp", () => {
    const catalog = extendRouteCatalog([{ match: { pattern: /^acme-/g }, capabilities: ["rerank"] }])
    expect(routeFor("acme-1", { catalog }).capability).toBe("rerank")
    expect(routeFor("acme-1", { catalog }).capability).toBe("rerank")
  })
})

describe("routeForCapability / ensureRoute", () => {
  it("accepts a model for a capability it takes, with that capability's endpoint", () => {
    expect(success(routeForCapability("gpt-5", "chat")).path).toBe("/v1/chat/completions")
    expect(success(routeForCapability("gpt-5", "responses")).path).toBe("/v1/responses")
    const count = success(ensureRoute("epsilon-opus-4-5-20251101", "countTokens"))
    expect(count.path).toBe("/v1/messages/count_tokens")
    expect(count.shape).toBe("count-tokens")
  })

  it("refuses the GPT-5 Pro family on chat, saying to use responses", () => {
    const e = failure(ensureRoute("gpt-5-pro", "chat"))
    expect(e.field).toBe("model")
    expect(e.rule).toBe("route")
    expect(e.message).toContain("gpt-5-pro")
    expect(e.message).toContain("use responses")
    expect(e.message).toContain("/v1/responses")
  })

  it("refuses an epsilon model on chat and a zeta model on messages, naming the right capability", () => {
    const a = failure(ensureRoute("epsilon-opus-4-5-20251101", "chat"))
    expect(a.message).toContain("use messages")
    expect(a.message).toContain("/v1/messages")
    const b = failure(ensureRoute("zeta-2.5-pro", "messages"))
    expect(b.message).toContain("use native")
    expect(b.message).toContain(":generateContent")
  })

  it("refuses zeta-embedding-001 on the native shape: it embeds through /v1/embeddings", () => {
    const e = failure(ensureRoute("zeta-embedding-001", "native"))
    expect(e.message).toContain("/v1/embeddings")
    expect(e.message).toContain("use embeddings")
  })

  it("accepts a zeta image model on native content (image output) but refuses it on chat", () => {
    expect(success(ensureRoute("zeta-3-pro-image-preview", "native")).path).toBe(
      "/v1beta/models/zeta-3-pro-image-preview:generateContent"
    )
    expect(failure(ensureRoute("zeta-2.5-flash-image", "chat")).message).toContain("use images")
  })

  it("refuses a chat model on messages and a messages model on responses", () => {
    expect(failure(ensureRoute("gpt-4o", "messages")).message).toContain("use chat")
    expect(failure(ensureRoute("epsilon-haiku-4-5-20251001", "responses")).message).toContain("use messages")
  })

  it("refuses a model id that is not a non-empty string", () => {
    expect(failure(ensureRoute(42, "chat")).field).toBe("model")
    expect(failure(ensureRoute("  ", "chat")).rule).toBe("non-empty")
  })
})

describe("the one model catalog", () => {
  it("refuses a model of another family, naming its family and the endpoint that serves it", () => {
    const e = failure(routeForCapability("rerank-v1", "embeddings"))
    expect(e).toMatchObject({ field: "model", rule: "route" })
    expect(e.message).toContain("is a rerank model, served by rerank (POST /v1/rerank)")
    expect(e.message).toContain("cannot be sent to embeddings (POST /v1/embeddings)")
    expect(failure(routeForCapability("alpha-2", "chat")).message).toContain("is a alpha video model")
    expect(failure(routeForCapability("gpt-5-pro", "chat")).message).toContain("served only by /v1/responses")
  })

  it("refuses an id the catalog does not list, with the known models of that capability", () => {
    const e = failure(routeForCapability("gpt-9", "chat"))
    expect(e).toMatchObject({ field: "model", rule: "unknown-model" })
    expect(e.message).toContain("known: gpt-5, o3, o4-mini, gpt-4.1, gpt-4o, gpt-4o-mini;")
    expect(e.message).toContain("allowUnknownModels")
    // An id with a known family prefix but not listed is unknown too.
    expect(failure(routeForCapability("epsilon-opus-9", "messages")).rule).toBe("unknown-model")
  })

  it("accepts unknown ids with allowUnknownModels, still refusing a model of another family", () => {
    expect(success(routeForCapability("gpt-9", "chat", { allowUnknownModels: true })).path).toBe("/v1/chat/completions")
    expect(success(routeForCapability("my-embedder", "embeddings", { allowUnknownModels: true })).path).toBe(
      "/v1/embeddings"
    )
    expect(success(routeForCapability("epsilon-opus-9", "messages", { allowUnknownModels: true })).path).toBe(
      "/v1/messages"
    )
    expect(failure(routeForCapability("rerank-v1", "embeddings", { allowUnknownModels: true })).rule).toBe("route")
  })

  it("with allowUnknownModels sends an id a prefix or pattern only guesses to the capability asked", () => {
    const unknown = { allowUnknownModels: true }
    const speech = success(routeForCapability("gpt-4o-mini-tts-2025-03-20", "speech", unknown))
    expect(speech).toMatchObject({ path: "/v1/audio/speech", shape: "speech", capabilities: ["speech"] })
    const image = success(routeForCapability("zeta-2.5-flash-image-preview", "images", unknown))
    expect(image).toMatchObject({ path: "/v1/images/generations", shape: "images", capabilities: ["images"] })
    // Without the option the id is unknown (not another family's model): the message names the guess and the option.
    const e = failure(routeForCapability("gpt-4o-mini-tts-2025-03-20", "speech"))
    expect(e).toMatchObject({ field: "model", rule: "unknown-model" })
    expect(e.message).toContain("not a model umg knows for speech (POST /v1/audio/speech)")
    expect(e.message).toContain("known: gpt-4o-mini-tts, tts-1, tts-1-hd;")
    expect(e.message).toContain("by its name it may be a chat model")
    expect(e.message).toContain("allowUnknownModels: true")
    // An endpoint whose body is a family's own refuses an id named for another family: the GPT-5 Pro
    // family on chat, zeta embeddings on native, an epsilon id on chat or video.
    const pro = failure(routeForCapability("gpt-5-pro-2025-10-06", "chat", unknown))
    expect(pro).toMatchObject({ rule: "route" })
    expect(pro.message).toContain("use responses")
    expect(failure(routeForCapability("zeta-embedding-002", "native", unknown)).rule).toBe("route")
    expect(failure(routeForCapability("epsilon-opus-9", "video", unknown)).rule).toBe("route")
    expect(failure(routeForCapability("epsilon-opus-9", "chat", unknown)).rule).toBe("route")
    expect(failure(routeForCapability("zeta-3-pro-preview-2", "messages", unknown)).rule).toBe("route")
  })

  it("knows a user's exact entries without the option", () => {
    const catalog = extendRouteCatalog([{ match: { exact: "acme-embed-2" }, capabilities: ["embeddings"] }])
    expect(success(routeForCapability("acme-embed-2", "embeddings", { catalog })).path).toBe("/v1/embeddings")
  })
})
