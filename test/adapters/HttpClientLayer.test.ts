// `HttpClient` is a Layer requirement of the gateway: `Gateway.layerWithoutHttpClient` sends through
// the client the user provides (Node, undici, tracing), `Gateway.layer` still brings the fetch one.
import { HttpClient, HttpClientRequest } from "effect/http"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import { makeFake } from "./fakeHttp.js"

const listModels = Effect.flatMap(Gateway, (g) => g.models.list())
const answer = {
  status: 200,
  body: { object: "list", data: [{ id: "gpt-4o", object: "model", created: 1, owned_by: "x" }] }
}

describe("the HttpClient requirement", () => {
  it("sends every request through the HttpClient provided as a layer, with the credential on it", async () => {
    const fake = makeFake([answer])
    const layer = Gateway.layerWithoutHttpClient({ baseUrl: "http://gw.test", apiKey: "sk-layer" }).pipe(
      Layer.provide(Layer.succeed(HttpClient.HttpClient, fake.client))
    )
    await Effect.runPromise(Effect.provide(listModels, layer))
    expect(fake.requests.map((r) => `${r.method} ${r.url}`)).toEqual(["GET http://gw.test/v1/models"])
    expect(fake.requests[0]!.headers["authorization"]).toBe("Bearer sk-layer")
  })

  it("uses the provided client's transformations (a tracing or header-adding wrapper applies to every call)", async () => {
    const fake = makeFake([answer])
    const wrapped = HttpClient.mapRequest(fake.client, HttpClientRequest.setHeader("x-trace", "t1"))
    const layer = Gateway.layerWithoutHttpClient({ baseUrl: "http://gw.test", apiKey: "k" }).pipe(
      Layer.provide(Layer.succeed(HttpClient.HttpClient, wrapped))
    )
    await Effect.runPromise(Effect.provide(listModels, layer))
    expect(fake.requests[0]!.headers["x-trace"]).toBe("t1")
  })
})
