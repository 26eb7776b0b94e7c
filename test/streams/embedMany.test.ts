// embedMany$ runs the Effect `embeddings.embedMany` (one batching rule, in the adapters) and emits its
// events; these tests check the projection against the emulator. The rule itself (429 adaptation,
// jitter, order) is tested in test/adapters/EmbedMany.test.ts and AdaptiveConcurrency.test.ts.
import { lastValueFrom, toArray } from "rxjs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { InvalidRequest } from "../../src/core/errors/InvalidRequest.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { createGateway, type RxGateway } from "../../src/streams/index.js"

let emu: Emulator
let gw: RxGateway
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
  gw = createGateway({ baseUrl: emu.url, apiKey: emu.apiKey, maxRetries: 0, retryBaseDelayMs: 10, retryMaxDelayMs: 40 })
})
afterAll(async () => {
  await gw.dispose()
  await emu.close()
})

describe("embeddings.embedMany$ (a projection of embeddings.embedMany)", () => {
  it("emits one result per text with its index and progress, one request per text", async () => {
    emu.counters.reset()
    const texts = ["a", "bb", "ccc", "dddd", "eeeee"]
    const events = await lastValueFrom(
      gw.embeddings.embedMany$(texts, { model: "text-embedding-3-small", concurrency: 2 }).pipe(toArray())
    )
    const results = events.filter((e) => e.type === "result")
    expect(results.map((r) => r.index).sort()).toEqual([0, 1, 2, 3, 4])
    expect(results.map((r) => r.input).sort()).toEqual(texts)
    expect(results.map((r) => r.done)).toEqual([1, 2, 3, 4, 5])
    expect(results.every((r) => r.total === 5 && r.result.length === 1536)).toBe(true)
    expect(emu.counters.get("embeddings")).toBe(5)
  })

  it("validates every input before the first request", async () => {
    emu.counters.reset()
    const inputs = ["fine", "fine too", ["not", "a", "string"] as unknown as string]
    const error = await lastValueFrom(
      gw.embeddings.embedMany$(inputs, { model: "text-embedding-3-small", concurrency: 2 })
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InvalidRequest)
    expect(emu.counters.snapshot()).toEqual({})
  })

  it("reports each 429 as a rate-limited event with a jittered back-off when the gateway names no wait", async () => {
    emu.counters.reset()
    emu.inject("embeddings", { kind: "status", status: 429 }, 2)
    const events = await lastValueFrom(
      gw.embeddings.embedMany$(["one"], { model: "text-embedding-3-small", concurrency: 1 }).pipe(toArray())
    )
    emu.clearFaults()
    const limited = events.filter((e) => e.type === "rate-limited")
    expect(limited.map((e) => e.attempt)).toEqual([1, 2])
    // The config's back-off (10 ms doubling, capped at 40) less up to 25 % jitter.
    expect(limited[0]!.delayMs).toBeGreaterThanOrEqual(7.5)
    expect(limited[0]!.delayMs).toBeLessThanOrEqual(10)
    expect(limited[1]!.delayMs).toBeGreaterThanOrEqual(15)
    expect(limited[1]!.delayMs).toBeLessThanOrEqual(20)
    expect(events.at(-1)).toMatchObject({ type: "result", index: 0, done: 1 })
  })
})
