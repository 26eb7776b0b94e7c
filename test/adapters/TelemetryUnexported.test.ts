// Under Effect's own tracer (no tracer provided) no span leaves the process, so umg makes none: no
// trace headers go to the gateway and a caller's own span gets no attribute of umg's. With a
// tracer provided, the same calls are spans and carry their trace context to the gateway.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Layer, Stream, Tracer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import { recordingTracer } from "../support/tracers.js"

const seen: Array<IncomingHttpHeaders> = []
let server: Server
let baseUrl: string

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(req.headers)
    req.resume()
    req.on("end", () => {
      if (req.url === "/v1/audio/speech") {
        res.writeHead(200, { "content-type": "audio/mpeg" })
        res.end(Buffer.from([1, 2, 3]))
      } else if (req.url === "/v1/messages") {
        res.writeHead(200, { "content-type": "text/event-stream", "x-request-id": "req_u1" })
        res.end(`${messageStart()}event: message_stop\ndata: {"type":"message_stop"}\n\n`)
      } else {
        res.writeHead(200, { "content-type": "application/json", "x-request-id": "req_u2" })
        res.end(JSON.stringify({ input_tokens: 3 }))
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const messageStart = () =>
  `event: message_start\ndata: ${JSON.stringify({
    type: "message_start",
    message: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "epsilon-sonnet-4-5-20250929",
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 0 }
    }
  })}\n\n`

const body = {
  model: "epsilon-sonnet-4-5-20250929",
  max_tokens: 16,
  messages: [{ role: "user" as const, content: "hi" }]
}
const calls = Effect.gen(function* () {
  const g = yield* Gateway
  yield* g.messages.countTokens(body)
  yield* Stream.runDrain(g.messages.stream(body))
  // A stream of another kind (bytes, not events): the same rule.
  yield* Stream.runDrain(g.speech.stream({ model: "tts-1", input: "hi", voice: "alloy" }))
})
const traceHeaders = (headers: IncomingHttpHeaders) => [headers.traceparent, headers.b3].filter((h) => h !== undefined)

describe("spans only for a tracer that exports them", () => {
  it("sends no trace header and annotates no caller's span under Effect's own tracer", async () => {
    seen.length = 0
    const span = await Effect.runPromise(
      Effect.provide(
        Effect.withSpan(Effect.andThen(calls, Effect.currentSpan), "caller"),
        Gateway.layer({ baseUrl, apiKey: "k-unexported" })
      )
    )
    expect(seen).toHaveLength(3)
    // The caller's own span is the request's parent: its context travels, and umg adds nothing to it.
    for (const headers of seen) expect(traceHeaders(headers).join(" ")).toContain(span.spanId)
    expect(span.attributes.has("http.response.status_code")).toBe(false)
    expect(span.attributes.has("gen_ai.operation.name")).toBe(false)

    seen.length = 0
    await Effect.runPromise(Effect.provide(calls, Gateway.layer({ baseUrl, apiKey: "k-unexported" })))
    expect(seen).toHaveLength(3)
    for (const headers of seen) expect(traceHeaders(headers)).toEqual([])
  })

  it("makes the calls' spans, and sends their context, under a provided tracer", async () => {
    seen.length = 0
    const { tracer, spans } = recordingTracer()
    await Effect.runPromise(
      Effect.provide(
        calls,
        Layer.merge(Gateway.layer({ baseUrl, apiKey: "k-exported" }), Layer.succeed(Tracer.Tracer, tracer))
      )
    )
    expect(spans.map((s) => s.name)).toEqual(
      expect.arrayContaining(["umg.messages.countTokens", "umg.messages.stream", "umg.speech.stream"])
    )
    expect(seen).toHaveLength(3)
    for (const headers of seen) expect(traceHeaders(headers).length).toBeGreaterThan(0)
  })
})
