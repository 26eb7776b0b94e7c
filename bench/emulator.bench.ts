/**
 * Emulator load bench: N concurrent messages-style SSE streams (default 200) against a started
 * emulator, repeated for a few rounds; prints streams/s, events/s and errors (a stream is an error
 * when it fails or ends without `message_stop`). No baseline to compare with: read the numbers
 * against earlier runs on the same machine.
 *
 * Run: npx tsx bench/emulator.bench.ts [--concurrency 200] [--rounds 3] [--delay 2] [--words 48]
 * (`BENCH_QUICK=1`: 50 streams, one round, unless the flags say otherwise).
 */
import { startEmulator } from "../src/emulator/index.js"

const arg = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`)
  const v = i >= 0 ? Number(process.argv[i + 1]) : fallback
  return Number.isFinite(v) ? v : fallback
}
const quick = process.env.BENCH_QUICK === "1"
const concurrency = arg("concurrency", quick ? 50 : 200)
const rounds = arg("rounds", quick ? 1 : 3)
const delay = arg("delay", 2)
const words = arg("words", 48)

const emulator = await startEmulator({ text: { tokenDelayMs: delay, replyWords: words } })
const body = (i: number) =>
  JSON.stringify({
    model: "epsilon-sonnet-4-5-20250929",
    max_tokens: 1024,
    stream: true,
    messages: [{ role: "user", content: `bench request ${i}` }]
  })

const firstByte: Array<number> = []

const one = async (i: number): Promise<{ ok: boolean; events: number; bytes: number }> => {
  const t0 = performance.now()
  try {
    const res = await fetch(`${emulator.url}/v1/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${emulator.apiKey}`, "content-type": "application/json" },
      body: body(i)
    })
    firstByte.push(performance.now() - t0) // headers arrive with the first event (flushHeaders)
    const text = await res.text()
    const events = text.split("\n\n").filter((e) => e.startsWith("event: ")).length
    return { ok: res.status === 200 && text.includes("event: message_stop"), events, bytes: text.length }
  } catch {
    return { ok: false, events: 0, bytes: 0 }
  }
}

let streams = 0
let errors = 0
let events = 0
let bytes = 0
const started = performance.now()
for (let r = 0; r < rounds; r++) {
  const t0 = performance.now()
  const results = await Promise.all(Array.from({ length: concurrency }, (_, i) => one(r * concurrency + i)))
  const ms = performance.now() - t0
  const failed = results.filter((x) => !x.ok).length
  streams += results.length
  errors += failed
  events += results.reduce((n, x) => n + x.events, 0)
  bytes += results.reduce((n, x) => n + x.bytes, 0)
  console.log(`round ${r + 1}: ${concurrency} concurrent streams in ${ms.toFixed(0)} ms, ${failed} errors`)
}
const seconds = (performance.now() - started) / 1000
console.log(
  `total: ${streams} streams, ${errors} errors, ${(streams / seconds).toFixed(1)} streams/s, ` +
    `${(events / seconds).toFixed(0)} events/s, ${(bytes / 1024 / 1024 / seconds).toFixed(2)} MiB/s ` +
    `(token delay ${delay} ms, ${words} words)`
)
const sorted = [...firstByte].sort((a, b) => a - b)
const pct = (p: number): string =>
  (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0).toFixed(1)
console.log(`time to headers: p50 ${pct(50)} ms, p95 ${pct(95)} ms, max ${pct(100)} ms`)
console.log(`counters: messages=${emulator.counters.get("messages")}`)
await emulator.close()
process.exitCode = errors > 0 ? 1 : 0
