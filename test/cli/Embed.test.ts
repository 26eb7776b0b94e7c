// `umg embed`'s engine, `embedLines`, against the emulator: it embeds through the library's `embedMany`
// (a 429 is backed off and retried, not a failure) and checks `--concurrency` with the library's one range.
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Gateway } from "../../src/adapters/Gateway.js"
import { embedLines, type EmbeddingLine } from "../../src/cli/commands/embed.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

const total = () => Object.values(emu.counters.snapshot()).reduce((a, b) => a + b, 0)

const run = (inputs: ReadonlyArray<string>, concurrency: number) => {
  const lines: Array<EmbeddingLine> = []
  const progress: Array<string> = []
  const effect = embedLines(
    { model: "text-embedding-3-small", inputs, dimensions: 4, concurrency },
    {
      onLine: (line) => Effect.sync(() => void lines.push(line)),
      onProgress: (done, all) => Effect.sync(() => void progress.push(`${done}/${all}`))
    }
  ).pipe(
    // No transport retries: a 429 survived is embedMany's doing.
    Effect.provide(Gateway.layer({ baseUrl: emu.url, apiKey: emu.apiKey, maxRetries: 0 }))
  )
  return { lines, progress, exit: Effect.runPromiseExit(effect) }
}

describe("embedLines", () => {
  it("embeds through embedMany: a 429 is waited out and retried, lines still in input order", async () => {
    emu.inject("embeddings", { kind: "status", status: 429, headers: { "retry-after": "0" } }, 1)
    const inputs = ["alpha", "beta", "gamma", "delta", "epsilon"]
    const { lines, progress, exit } = run(inputs, 3)
    expect((await exit)._tag).toBe("Success")
    expect(lines.map((l) => [l.index, l.input, l.dimensions])).toEqual(inputs.map((input, i) => [i, input, 4]))
    expect(progress).toEqual(["1/5", "2/5", "3/5", "4/5", "5/5"])
  })

  it("takes --concurrency in the library's range, 1 to 1000, and refuses others naming the flag, sending nothing", async () => {
    const before = total()
    for (const concurrency of [0, 1001, 5000, 2.5]) {
      const exit = await run(["alpha"], concurrency).exit
      expect(exit._tag).toBe("Failure")
      if (exit._tag === "Failure") {
        const error = exit.cause.reasons[0]
        expect(error?._tag === "Fail" && error.error).toMatchObject({
          _tag: "InvalidRequest",
          field: "--concurrency",
          rule: "range",
          message: `--concurrency: ${concurrency} is out of range; allowed: a whole number from 1 to 1000`
        })
      }
    }
    expect(total()).toBe(before)
    expect((await run(["alpha"], 1000).exit)._tag).toBe("Success")
  })
})
