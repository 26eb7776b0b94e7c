// `Telemetry.annotate` sets attributes on the current span and is a no-op (not a failure) without one.
import { Effect, Layer, Tracer } from "effect"
import { describe, expect, it } from "vitest"
import * as Telemetry from "../../src/adapters/internal/Telemetry.js"
import { recordingTracer } from "../support/tracers.js"

const exporting = Layer.succeed(Tracer.Tracer, recordingTracer().tracer)

describe("Telemetry.annotate", () => {
  it("sets the attributes on the span the call runs in", async () => {
    const span = await Effect.runPromise(
      Effect.provide(
        Effect.withSpan(
          Effect.andThen(
            Telemetry.annotate({ "http.response.status_code": 200, "umg.gateway.request_id": "req_1" }),
            Effect.currentSpan
          ),
          "call"
        ),
        exporting
      )
    )
    expect(span.attributes.get("http.response.status_code")).toBe(200)
    expect(span.attributes.get("umg.gateway.request_id")).toBe("req_1")
  })

  it("leaves a span alone under Effect's own tracer, which exports nothing", async () => {
    const span = await Effect.runPromise(
      Effect.withSpan(
        Effect.andThen(Telemetry.annotate({ "http.response.status_code": 200 }), Effect.currentSpan),
        "call"
      )
    )
    expect(span.attributes.has("http.response.status_code")).toBe(false)
  })

  it("calls a function of attributes only under a tracer that exports the span", async () => {
    const calls: Array<string> = []
    const attributes = (tracer: string) => () => {
      calls.push(tracer)
      return { "server.port": 443 }
    }
    const call = (tracer: string) =>
      Effect.withSpan(Effect.andThen(Telemetry.annotate(attributes(tracer)), Effect.currentSpan), "call")
    const exported = await Effect.runPromise(Effect.provide(call("exporting"), exporting))
    const native = await Effect.runPromise(call("native"))
    expect(exported.attributes.get("server.port")).toBe(443)
    expect(native.attributes.has("server.port")).toBe(false)
    expect(calls).toEqual(["exporting"])
  })

  it("does nothing, and does not fail, outside any span", async () => {
    const exit = await Effect.runPromiseExit(Telemetry.annotate({ a: 1 }))
    expect(exit._tag).toBe("Success")
  })

  it("leaves an external (remote) parent span alone", async () => {
    const external = Tracer.externalSpan({ traceId: "t", spanId: "s" })
    const exit = await Effect.runPromiseExit(Effect.withParentSpan(Telemetry.annotate({ a: 1 }), external))
    expect(exit._tag).toBe("Success")
  })
})
