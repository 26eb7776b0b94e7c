/**
 * The CPU of umg's SSE decoding stage (`decodeSse`: parse, Schema-decode each event, accumulate the
 * message, time limits) per event, in memory, against the baseline a user would write by hand — a
 * `TextDecoder` feeding eventsource-parser and `JSON.parse` of each event's data — on the same
 * 2,006-event messages stream (`bench/harness/fixtures.ts`, the one bench/text-streams.bench.ts
 * serves), delivered either as one chunk per event (how tokens arrive) or as one big chunk. Each
 * contender runs in its own process; the order alternates per repetition; the ratio is taken per
 * repetition and the median and spread are printed. Nothing is asserted.
 *
 * umg is loaded as the other benches load it (`bench/harness/umg.ts`: `dist/`, or the sources with
 * `UMG_BENCH_SOURCE=1`).
 *
 * Run: `node --conditions=umg-source --import tsx bench/sse-decode.bench.ts` (`SSE_DECODE_REPS=n`,
 * default 5; `BENCH_QUICK=1`: 2 repetitions of 20 runs each instead of 100, after 10 to warm up).
 */
import { fork } from "node:child_process"
import { fileURLToPath } from "node:url"
import { messagesStreamFixture, renderFrame } from "./harness/fixtures.js"
import { sseModules, umgBuild } from "./harness/umg.js"

const ROLE = process.env.SSE_DECODE_ROLE ?? "main"
const QUICK = process.env.BENCH_QUICK === "1"
const REPS = Number(process.env.SSE_DECODE_REPS ?? (QUICK ? 2 : 5))
const RUNS = QUICK ? 20 : 100

const fixture = messagesStreamFixture()
const frames = (): Array<Uint8Array> => {
  const enc = new TextEncoder()
  return fixture.frames.map((frame) => enc.encode(renderFrame(frame)))
}

const runContender = async () => {
  const contender = process.env.SSE_DECODE_CONTENDER!
  const shape = process.env.SSE_DECODE_SHAPE!
  const all = frames()
  const big = new Uint8Array(all.reduce((n, f) => n + f.length, 0))
  let at = 0
  for (const f of all) {
    big.set(f, at)
    at += f.length
  }
  const chunks = shape === "big" ? [big] : all
  let once: () => Promise<number>
  if (contender === "umg") {
    const { Effect, Stream } = await import("effect")
    const { transport, messages } = await sseModules()
    const { messagesStreamSpec } = messages
    const { decodeSse } = transport
    const timeouts = { firstEventMs: 30_000, idleMs: 60_000 }
    once = async () => {
      let n = 0
      await Effect.runPromise(Stream.runForEach(decodeSse(Stream.fromIterable(chunks), messagesStreamSpec, timeouts), () => Effect.sync(() => void n++)))
      return n
    }
  } else {
    const { createParser } = await import("eventsource-parser")
    once = async () => {
      let n = 0
      const decoder = new TextDecoder()
      const parser = createParser({
        onEvent: (event) => {
          JSON.parse(event.data)
          n++
        }
      })
      for (const chunk of chunks) {
        parser.feed(decoder.decode(chunk, { stream: true }))
        // One await per chunk, as a `for await` over a body's reader does.
        await undefined
      }
      return n
    }
  }
  for (let i = 0; i < (QUICK ? 10 : 30); i++) await once()
  const cpu = process.cpuUsage()
  let events = 0
  for (let i = 0; i < RUNS; i++) {
    await once()
    // Per event on the wire: umg drops the ping, the baseline parses it; both divide by the same count.
    events += fixture.events
  }
  const used = process.cpuUsage(cpu)
  process.send?.({ usPerEvent: (used.user + used.system) / events })
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const runMain = async () => {
  const self = fileURLToPath(import.meta.url)
  const measure = (contender: string, shape: string) =>
    new Promise<number>((resolve) => {
      const child = fork(self, [], { env: { ...process.env, SSE_DECODE_ROLE: "child", SSE_DECODE_CONTENDER: contender, SSE_DECODE_SHAPE: shape }, execArgv: ["--conditions=umg-source", "--import", "tsx"] })
      child.once("message", (m) => resolve((m as { usPerEvent: number }).usPerEvent))
    })
  console.log(`${umgBuild}; each contender in its own process, ${REPS} repetitions`)
  for (const shape of ["one event per chunk", "one big chunk"]) {
    const key = shape === "one big chunk" ? "big" : "event"
    const ratios: Array<number> = []
    const umg: Array<number> = []
    const base: Array<number> = []
    for (let rep = 0; rep < REPS; rep++) {
      const order = rep % 2 === 0 ? ["umg", "baseline"] : ["baseline", "umg"]
      const got: Record<string, number> = {}
      for (const c of order) got[c] = await measure(c, key)
      umg.push(got.umg!)
      base.push(got.baseline!)
      ratios.push(got.umg! / got.baseline!)
    }
    console.log(
      `${shape}: umg decodeSse ${median(umg).toFixed(2)} µs/event, eventsource-parser + JSON.parse ${median(base).toFixed(2)} µs/event; ratio median ${median(ratios).toFixed(2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`
    )
  }
}

if (ROLE === "child") void runContender().then(() => process.exit(0))
else void runMain()
