/**
 * What refusing untrusted JSON costs, per MB of input, for every decoder of the core (the bar: at
 * most 50 ms per MB for any refusal, whatever the input's shape). Each decoder is given, as it gets
 * it from the transport (parsed text for a body, an SSE record, a WebSocket frame's text), inputs of
 * about 5 MB that it must refuse:
 * - `array`: an array of 100,000 small objects where the answer's object belongs;
 * - `keys`: an object with 100,000 unknown keys and no field of the answer;
 * - `typed field`: the decoder's own valid answer with its typed field (`BAD` in
 *   test/support/coreDecoders.ts) holding an array of 100,000 small objects;
 * - `keys, __proto__` and `typed field, __proto__`: the same with a `__proto__` key (at the top, or
 *   in the answer's passed-through field), which the decoder must drop rather than read.
 * Each is timed from the text (parsing included) over a few rounds after a warm-up; the table gives
 * the median ms per MB, its ratio to `JSON.parse` alone of the same text in the same rounds (the
 * machine may be loaded: the ratio moves less), and which inputs were accepted (not a figure: the
 * native-content and live shapes are open, so an object of unknown keys is a valid answer). In
 * memory, one process, on the sources (`UMG_BENCH_SOURCE=1` only names them so in the table's header):
 * `UMG_BENCH_SOURCE=1 node --conditions=umg-source --import tsx bench/hostile-json.bench.ts` (about a
 * minute). Nothing is asserted; the table goes to `bench/results/hostile-json.md`.
 */
import { decoderCases, fill, HOLE, runDecoder, type DecoderCase } from "../test/support/coreDecoders.js"
import { QUICK, table, writeResult } from "./harness/contest.js"

const ROUNDS = QUICK ? 3 : 7
const smallObjects = (n: number): Array<unknown> =>
  Array.from({ length: n }, (_, i) => ({ a: i, b: "xyzw", c: [true, null] }))
const manyKeys = (n: number): Record<string, unknown> =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))

const shapes: ReadonlyArray<{ readonly name: string; readonly text: (c: DecoderCase) => string }> = [
  { name: "array", text: () => JSON.stringify(smallObjects(100_000)) },
  { name: "keys", text: () => JSON.stringify(manyKeys(100_000)) },
  {
    name: "typed field",
    text: (c) => JSON.stringify(fill(c.template, "x", smallObjects(100_000))).replace(JSON.stringify(HOLE), '"x"')
  },
  // The same two with a `__proto__` key, which a decoder must drop (so no shortcut may skip it).
  { name: "keys, `__proto__`", text: () => JSON.stringify(manyKeys(100_000)).replace("{", '{"__proto__":{"a":1},') },
  {
    name: "typed field, `__proto__`",
    text: (c) =>
      JSON.stringify(fill(c.template, HOLE, smallObjects(100_000))).replace(
        JSON.stringify(HOLE),
        '{"__proto__":{"a":1},"constructor":2}'
      )
  }
]

/** What the decoder is handed for a text, as the transport hands it over. */
const inputOf = (c: DecoderCase, text: string): unknown =>
  c.kind === "sse" ? { event: c.event ?? "message", data: text } : c.kind === "frame" ? text : JSON.parse(text)

const median = (xs: ReadonlyArray<number>): number => {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

// The machine may be loaded: each cell is also given as a ratio to `JSON.parse` of the same text,
// timed in the same rounds (interleaved), which moves with the load as the decoder does.
const parseOnce = (text: string): number => {
  const t0 = performance.now()
  JSON.parse(text)
  return performance.now() - t0
}

const rows: Array<Array<string>> = []
const parseRates: Array<number> = []
let worst = { msPerMb: 0, ratio: 0, where: "" }
for (const c of decoderCases) {
  const row = [c.name]
  for (const shape of shapes) {
    const text = shape.text(c)
    const mb = Buffer.byteLength(text) / 1_000_000
    const once = (): { ms: number; parseMs: number; refused: boolean } => {
      const parseMs = parseOnce(text)
      const t0 = performance.now()
      const out = runDecoder(c, inputOf(c, text))
      const ms = performance.now() - t0
      return { ms, parseMs, refused: !("ok" in out && out.ok) }
    }
    once()
    const runs = Array.from({ length: ROUNDS }, once)
    const msPerMb = median(runs.map((r) => r.ms)) / mb
    const parseMsPerMb = median(runs.map((r) => r.parseMs)) / mb
    parseRates.push(parseMsPerMb)
    const ratio = msPerMb / parseMsPerMb
    const refused = runs.every((r) => r.refused)
    if (refused && msPerMb > worst.msPerMb) worst = { msPerMb, ratio, where: `${c.name}, ${shape.name}` }
    row.push(refused ? `${msPerMb.toFixed(1)} (×${ratio.toFixed(1)})` : `accepted (${msPerMb.toFixed(1)})`)
  }
  rows.push(row)
}
const parseMedian = median(parseRates)

const text = writeResult(
  "hostile-json",
  "Refusing hostile JSON: ms per MB of input (bench/hostile-json.bench.ts)",
  `Median of ${ROUNDS} rounds after a warm-up, parsing included, inputs of about 5 MB. The bar: at most 50 ms per MB for any refusal. Each cell: ms per MB, and in brackets its ratio to \`JSON.parse\` alone of the same text in the same rounds (median \`JSON.parse\` here: ${parseMedian.toFixed(1)} ms per MB). Slowest refusal: ${worst.msPerMb.toFixed(1)} ms per MB, ×${worst.ratio.toFixed(1)} \`JSON.parse\` (${worst.where}).\n\n${table(["decoder", ...shapes.map((s) => s.name)], rows)}`
)
console.log(text)
