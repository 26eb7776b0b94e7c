/**
 * Throughput of umg's SSE parser (`createSseParser` in `src/core/wire/Sse.ts`) against
 * eventsource-parser 3.x, both doing exactly the same work.
 *
 * Run: `npm run bench:sse` (or `npx tsx bench/sse.bench.ts`): a few minutes. `BENCH_QUICK=1` (or
 * `SSE_BENCH_QUICK=1`): fewer repetitions and smaller streams, well under a minute.
 * `SSE_BENCH_ONLY=CRLF` runs only the cells whose "stream / chunks" label contains that text.
 *
 * Contenders, each fed the same `Uint8Array` chunks and consuming events the same way (a callback
 * that counts the events and sums `data.length`, so neither builds an array per chunk):
 * - umg: `createSseParser({ onEvent }, { byteText }).feed(chunk)` for every chunk, then `end()`,
 *   with the `ByteText` the gateway's streams give it on Node (`#umg/bytes`);
 * - eventsource-parser: one streaming `TextDecoder` feeding `createParser({ onEvent }).feed(text)`,
 *   the way its own `EventSourceParserStream` reads bytes, then the decoder's flush.
 *
 * Streams (seeded, from `test/fixtures/sseStreams.ts`, the generators the SSE tests use):
 * messages-style token deltas, OpenAI-style chat chunks, messages with CRLF line ends, and 1 MB
 * events (a native-content image answer: a 1 MB base64 event between two small ones, repeated).
 * Chunkings: random 1–16 KiB chunks (as a network delivers them), random 100–2,048-byte chunks
 * (small reads, as tokens arrive), random 1–7-byte chunks (on a prefix of the stream), and the
 * whole stream as one chunk.
 *
 * Method: for every stream × chunking cell, each contender runs in its own child process (fork),
 * warms up, then measures repetitions on request; the parent alternates which contender goes first
 * in each repetition, so both see the same machine. A repetition is the CPU time of the child
 * (`process.cpuUsage`) over several parses of the cell's chunks. The ratio (eventsource-parser time
 * / umg time: > 1 means umg is faster) is taken per repetition; the median and the spread (min–max)
 * are printed. The children check that both contenders saw the same number of events and the same
 * total data length. Nothing is asserted on time. The spread across fresh processes (10 pairs of
 * processes per cell) is `bench/sse-stability.bench.ts`'s, which runs these children.
 */
import { type Runner as HarnessRunner, spawnRunner } from "./harness/child.js"
import { fileURLToPath } from "node:url"
import {
  chatChunksStream,
  chunkRandomly,
  concatBytes,
  hugeEventStream,
  messagesStream,
  type SseFixture
} from "../test/fixtures/sseStreams.js"
import { nodeByteText, sseParserModule } from "./harness/umg.js"

const quick = process.env.BENCH_QUICK === "1" || process.env.SSE_BENCH_QUICK === "1"
const KiB = 1024
const MiB = 1024 * KiB

type Contender = "umg" | "esp"
const contenders: ReadonlyArray<Contender> = ["umg", "esp"]
const names: Record<Contender, string> = { umg: "umg", esp: "eventsource-parser" }

const streamBytes = quick ? 2 * MiB : 4 * MiB
const tinyBytes = quick ? 128 * KiB : 512 * KiB

const streams: Record<string, () => Uint8Array> = {
  messages: () => messagesStream({ seed: 1, targetBytes: streamBytes }).bytes,
  "OpenAI chat": () => chatChunksStream({ seed: 2, targetBytes: streamBytes }).bytes,
  "messages CRLF": () => messagesStream({ seed: 3, targetBytes: streamBytes, lineEnd: "\r\n" }).bytes,
  "1 MB events": () => {
    const parts: Array<SseFixture> = []
    for (let seed = 4; parts.length < streamBytes / MiB; seed++) parts.push(hugeEventStream({ seed, imageBytes: MiB }))
    return concatBytes(parts.map((p) => p.bytes))
  }
}

const chunkings: Record<string, (bytes: Uint8Array) => Array<Uint8Array>> = {
  "1–16 KiB": (bytes) => chunkRandomly(bytes, 1, 16 * KiB, 7),
  // Small reads, as a token stream arrives: each completes a line left open by the last one.
  "0.1–2 KiB": (bytes) => chunkRandomly(bytes, 100, 2 * KiB, 9),
  "1–7 B": (bytes) => {
    // Tiny chunks cost every parser a call per chunk: a prefix of the stream, cut after a line end.
    const end = bytes.length > tinyBytes ? bytes.indexOf(10, tinyBytes) + 1 : bytes.length
    return chunkRandomly(bytes.subarray(0, end === 0 ? bytes.length : end), 1, 7, 8)
  },
  "one chunk": (bytes) => [bytes]
}

/** What one parse of a cell consumed: the check that both contenders did the same work. */
interface Tally {
  events: number
  dataLength: number
}

const umgParse = async (): Promise<(chunks: ReadonlyArray<Uint8Array>, tally: Tally) => void> => {
  const { createSseParser } = await sseParserModule()
  const byteText = await nodeByteText()
  return (chunks, tally) => {
    const parser = createSseParser(
      {
        onEvent: (event) => {
          tally.events++
          tally.dataLength += event.data.length
        }
      },
      { byteText }
    )
    for (let i = 0; i < chunks.length; i++) parser.feed(chunks[i]!)
    parser.end()
  }
}

const espParse = async (): Promise<(chunks: ReadonlyArray<Uint8Array>, tally: Tally) => void> => {
  const { createParser } = await import("eventsource-parser")
  return (chunks, tally) => {
    const parser = createParser({
      onEvent: (event) => {
        tally.events++
        tally.dataLength += event.data.length
      }
    })
    const decoder = new TextDecoder()
    for (let i = 0; i < chunks.length; i++) parser.feed(decoder.decode(chunks[i]!, { stream: true }))
    parser.feed(decoder.decode())
    parser.reset()
  }
}

type ToChild = { readonly run: true }
type FromChild =
  | { readonly ready: true; readonly tally: Tally; readonly bytes: number; readonly parses: number }
  | { readonly seconds: number }

/** In a child: one contender on one cell. Warms up, then answers each `run` with a repetition's CPU time. */
const child = async (contender: Contender, stream: string, chunking: string): Promise<void> => {
  const chunks = chunkings[chunking]!(streams[stream]!())
  const bytes = chunks.reduce((n, c) => n + c.length, 0)
  const parse = contender === "umg" ? await umgParse() : await espParse()
  const cpu = (): number => {
    const { user, system } = process.cpuUsage()
    return (user + system) / 1e6
  }
  // Warm up for at least 0.4 s of CPU (and 5 parses), quick mode too: the first parses of a fresh
  // process also pay for the JIT and for the heap's growth (page faults, costly on a small VM), and
  // 0.2 s left a contender mid-warm-up in the measured repetitions. A repetition is sized from the
  // speed of the warm-up's second half, not of the whole (slow start included), so that it lasts
  // as long as meant.
  const tally: Tally = { events: 0, dataLength: 0 }
  let warm = 0
  const start = cpu()
  let half = start // the CPU time when half of the warm-up time had passed, and the parses by then
  let halfWarm = 0
  while (warm < 5 || cpu() - start < 0.4) {
    const t: Tally = { events: 0, dataLength: 0 }
    parse(chunks, t)
    Object.assign(tally, t)
    warm++
    if (halfWarm === 0 && cpu() - start >= 0.2) {
      half = cpu()
      halfWarm = warm
    }
  }
  const perParse = warm > halfWarm && halfWarm > 0 ? (cpu() - half) / (warm - halfWarm) : (cpu() - start) / warm
  const parses = Math.max(1, Math.round((quick ? 0.1 : 0.25) / perParse))
  const send = (message: FromChild): void => void process.send!(message)
  send({ ready: true, tally, bytes, parses })
  process.on("message", (_message: ToChild) => {
    const sink: Tally = { events: 0, dataLength: 0 }
    const t0 = cpu()
    for (let i = 0; i < parses; i++) parse(chunks, sink)
    send({ seconds: (cpu() - t0) / parses })
  })
}

type Runner = HarnessRunner<Extract<FromChild, { ready: true }>, number>

const spawn = (contender: Contender, stream: string, chunking: string): Promise<Runner> =>
  spawnRunner({
    name: contender,
    file: fileURLToPath(import.meta.url),
    args: ["--child", contender, stream, chunking],
    execArgv: process.execArgv,
    env: process.env,
    resultOf: (message: Exclude<FromChild, { ready: true }>) => message.seconds
  })

const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  const m = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

const pad = (text: string, width: number): string => text.padEnd(width)
const num = (n: number, width: number, digits = 0): string => n.toFixed(digits).padStart(width)

const main = async (): Promise<void> => {
  const reps = quick ? 5 : 11
  console.log(
    `SSE parser: umg createSseParser vs eventsource-parser (TextDecoder + createParser), same chunks, same consumer;\n` +
      `one process per contender per cell, CPU time, order alternated per repetition, ${reps} repetitions;` +
      ` ratio = esp time / umg time per repetition (> 1: umg faster); MB = 2^20 bytes${quick ? " [quick]" : ""}\n`
  )
  console.log(
    `${pad("stream", 14)} ${pad("chunks", 10)} ${"umg MB/s".padStart(9)} ${"esp MB/s".padStart(9)}  ratio median (min–max)   bar`
  )
  // `SSE_BENCH_ONLY=text`: only the cells whose "stream / chunks" label contains `text`.
  const only = process.env.SSE_BENCH_ONLY
  for (const stream of Object.keys(streams)) {
    for (const chunking of Object.keys(chunkings)) {
      if (only !== undefined && !`${stream} / ${chunking}`.includes(only)) continue
      // Both start (and warm up) at once, which halves the start-up time; only the repetitions,
      // one at a time, are measured.
      const [umg, esp] = await Promise.all([spawn("umg", stream, chunking), spawn("esp", stream, chunking)])
      const runners = { umg, esp }
      const a = runners.umg.ready
      const b = runners.esp.ready
      if (a.tally.events !== b.tally.events || a.tally.dataLength !== b.tally.dataLength) {
        throw new Error(
          `${stream} / ${chunking}: umg saw ${JSON.stringify(a.tally)}, eventsource-parser ${JSON.stringify(b.tally)}`
        )
      }
      const seconds: Record<Contender, Array<number>> = { umg: [], esp: [] }
      const ratios: Array<number> = []
      for (let rep = 0; rep < reps; rep++) {
        const order = rep % 2 === 0 ? contenders : [...contenders].reverse()
        const got: Partial<Record<Contender, number>> = {}
        for (const c of order) got[c] = await runners[c].run()
        seconds.umg.push(got.umg!)
        seconds.esp.push(got.esp!)
        ratios.push(got.esp! / got.umg!)
      }
      runners.umg.close()
      runners.esp.close()
      const bar = chunking === "1–16 KiB" ? 1.3 : 1.0
      const r = median(ratios)
      const line = `${pad(stream, 14)} ${pad(chunking, 10)} ${num(a.bytes / MiB / median(seconds.umg), 9)} ${num(
        b.bytes / MiB / median(seconds.esp),
        9
      )}  ${num(r, 5, 2)}× (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})   ${
        r >= bar ? "≥" : "<"
      } ${bar.toFixed(1)}×  ${a.tally.events} events`
      console.log(line)
    }
  }
  console.log(`\n(${names.umg} vs ${names.esp}; events and data length checked equal in every cell)`)
}

const args = process.argv.slice(2)
if (args[0] === "--child") void child(args[1] as Contender, args[2]!, args[3]!)
else
  void main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error)
      process.exit(1)
    }
  )
