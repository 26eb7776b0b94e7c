/**
 * What reading a growing JSON text costs per delta: umg's incremental reader (`makePartialJson` in
 * `src/core/wire/PartialJson.ts`: `push(delta)` then `snapshot()`) against the naive way (keep the
 * text; on every delta, scan the whole prefix for its open strings and brackets, cut it back to its
 * last complete value, close it and `JSON.parse` it), both giving the same snapshot after every delta
 * (checked in each child before it measures).
 *
 * Run: `UMG_BENCH_SOURCE=1 node --conditions=umg-source --import tsx bench/partial-json.bench.ts` (it
 * reads umg's sources; 7 repetitions, a few minutes); `BENCH_QUICK=1`: 3 repetitions. Nothing is
 * asserted; the table goes to `bench/results/partial-json.md`.
 *
 * Texts: tool-call arguments of 64 KiB streamed in 16-character deltas (4,096 deltas):
 * - `records`: `{"items": [...]}` with a few hundred small objects (strings, numbers, booleans, tags);
 * - `file`: `{"path": …, "content": …}` whose content is one 64 KiB string with escapes;
 * - `wide`: one object of a few hundred keys, half of them with long string values;
 * - `flat`: one object of a few thousand keys with short values (the reader's worst case: each snapshot
 *   copies the open object's members, and an object of that many keys copies slowly).
 *
 * Method: each contender runs in its own process (forked, umg from its sources), warms up, then
 * measures one repetition of every cell per request from the bench: CPU time (`process.cpuUsage`)
 * over whole streams, divided by the deltas. The bench alternates which contender goes first and
 * takes the ratio (naive ÷ incremental) per repetition, printed as median (min–max).
 */
import { fileURLToPath } from "node:url"
import { type Runner, spawnRunner } from "./harness/child.js"
import { fmtRatio, fmtUs, QUICK, summarize, table, writeResult } from "./harness/contest.js"

type Contender = "incremental" | "naive"
const CONTENDERS: ReadonlyArray<Contender> = ["incremental", "naive"]
const REPS = QUICK ? 3 : 7
const DELTA = 16
const SIZE = 64 * 1024

// ---- the texts (deterministic) ----

const words = ["alpha", "beta", "gamma", "delta", "tool", "call", "stream", "json", "value", "path", "é", "😀"]
const pick = (i: number): string => words[(i * 7 + 3) % words.length]!

/** Grows a value with `add(i)` until its JSON text (as `write` writes it) reaches `SIZE`. */
const grow = (add: (i: number) => void, write: () => string): string => {
  let text = write()
  for (let i = 0; text.length < SIZE; i++) {
    add(i)
    text = write()
  }
  return text
}

const records = (): string => {
  const items: Array<unknown> = []
  return grow(
    (i) =>
      items.push({
        id: i,
        name: `${pick(i)} ${pick(i + 1)}`,
        score: (i * 37) / 8,
        active: i % 3 === 0,
        tags: [pick(i + 2), pick(i + 5)],
        note: i % 4 === 0 ? null : `line ${i}\n"quoted"`
      }),
    () => JSON.stringify({ items }, null, 1)
  )
}

const file = (): string => {
  let content = ""
  return grow(
    (i) => (content += `const ${pick(i)}${i} = "${pick(i + 1)}"\t// ${i}\n`),
    () => JSON.stringify({ path: "src/generated/file.ts", content })
  )
}

const keyed = (width: number) => (): string => {
  const out: Record<string, unknown> = {}
  return grow(
    (i) => (out[`key_${i}`] = i % 2 === 0 ? `${pick(i)} ${i} `.repeat(width) : i * 1.5),
    () => JSON.stringify(out)
  )
}

const CELLS = ["records", "file", "wide", "flat"] as const
type Cell = (typeof CELLS)[number]
const TEXTS: Record<Cell, () => string> = { records, file, wide: keyed(40), flat: keyed(1) }

const deltasOf = (text: string): Array<string> => {
  const out: Array<string> = []
  for (let i = 0; i < text.length; i += DELTA) out.push(text.slice(i, i + DELTA))
  return out
}

// ---- the naive contender: repair the whole prefix and JSON.parse it, on every delta ----

/**
 * The prefix cut back to its last complete value (or its open string value, closed), its brackets
 * closed, parsed. After the last complete value only its open brackets can follow (an opening
 * bracket is itself a complete point), so the closers are those of the whole prefix.
 */
const naiveSnapshot = (text: string): unknown => {
  const closers: Array<string> = []
  let safe = 0
  let inString = false
  let isKey = false
  let escLetter = false // just after a backslash
  let escHex = 0 // hex digits of a `\u` escape still to come
  let expectKey = false
  let scalar = 0 // 0: none; 1: in a number; 2: in a literal
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (escLetter) {
        escLetter = false
        if (c === 117) escHex = 4
      } else if (escHex > 0) escHex--
      else if (c === 92) escLetter = true
      else if (c === 34) {
        inString = false
        if (!isKey) safe = i + 1
      }
      continue
    }
    if (scalar === 1) {
      if ((c >= 48 && c <= 57) || c === 45 || c === 43 || c === 46 || c === 101 || c === 69) continue
      scalar = 0
      safe = i
    } else if (scalar === 2) {
      if (c >= 97 && c <= 122) continue
      scalar = 0
    }
    switch (c) {
      case 123:
      case 91:
        closers.push(c === 123 ? "}" : "]")
        expectKey = c === 123
        safe = i + 1
        break
      case 125:
      case 93:
        closers.pop()
        safe = i + 1
        break
      case 44:
        expectKey = closers.at(-1) === "}"
        break
      case 58:
        expectKey = false
        break
      case 34:
        inString = true
        isKey = expectKey
        break
      case 116:
      case 102:
      case 110: {
        scalar = 2
        // A literal is complete once its last letter is there.
        const word = c === 116 ? "true" : c === 102 ? "false" : "null"
        if (text.startsWith(word, i)) safe = i + word.length
        break
      }
      default:
        if ((c >= 48 && c <= 57) || c === 45) scalar = 1
    }
  }
  const close = closers.reverse().join("")
  if (inString && !isKey) {
    // A half-read escape is left out: its backslash is the text's last.
    const end = escLetter || escHex > 0 ? text.lastIndexOf("\\") : text.length
    return JSON.parse(text.slice(0, end) + '"' + close)
  }
  return safe === 0 ? undefined : JSON.parse(text.slice(0, safe) + close)
}

// ---- the children ----

type FromChild = { readonly ready: true } | { readonly us: Record<string, number> }

/** One stream read by a contender: a snapshot after every delta. Returns the last snapshot. */
type Reader = (deltas: ReadonlyArray<string>) => unknown

const makeReaders = async (): Promise<Record<Contender, Reader>> => {
  const { makePartialJson } = await import("../src/core/wire/PartialJson.js")
  return {
    incremental: (deltas) => {
      const reader = makePartialJson()
      let last: unknown
      for (const d of deltas) {
        reader.push(d)
        last = reader.snapshot()
      }
      return last
    },
    naive: (deltas) => {
      let text = ""
      let last: unknown
      for (const d of deltas) {
        text += d
        last = naiveSnapshot(text)
      }
      return last
    }
  }
}

/** Both contenders give the same snapshot (every 7th delta and the last), so neither measures less work. */
const checkAgreement = async (): Promise<void> => {
  const { makePartialJson } = await import("../src/core/wire/PartialJson.js")
  const { isDeepStrictEqual } = await import("node:util")
  for (const cell of CELLS) {
    const reader = makePartialJson()
    const deltas = deltasOf(TEXTS[cell]())
    let text = ""
    for (const [i, d] of deltas.entries()) {
      reader.push(d)
      text += d
      if ((i % 7 === 0 || i === deltas.length - 1) && !isDeepStrictEqual(reader.snapshot(), naiveSnapshot(text)))
        throw new Error(`${cell}: the contenders disagree after ${text.length} characters`)
    }
  }
}

const child = async (contender: Contender): Promise<void> => {
  if (contender === "incremental") await checkAgreement()
  const read = (await makeReaders())[contender]
  const streams = Object.fromEntries(CELLS.map((c) => [c, deltasOf(TEXTS[c]())])) as Record<Cell, Array<string>>
  const cpu = (): number => {
    const { user, system } = process.cpuUsage()
    return user + system
  }
  // About a second of CPU per cell and repetition for either contender.
  const runsOf = (cell: Cell): number => (contender === "naive" ? 1 : cell === "flat" || cell === "wide" ? 2 : 40)
  for (const cell of CELLS) {
    const start = cpu()
    for (let i = 0; i < 1 || cpu() - start < 200_000; i++) read(streams[cell])
  }
  const send = (message: FromChild): void => void process.send!(message)
  send({ ready: true })
  // Every message is a `{ run: true }`: one repetition.
  process.on("message", () => {
    const us: Record<string, number> = {}
    for (const cell of CELLS) {
      const runs = runsOf(cell)
      const t0 = cpu()
      for (let i = 0; i < runs; i++) read(streams[cell])
      us[cell] = (cpu() - t0) / (runs * streams[cell].length)
    }
    send({ us })
  })
}

const spawn = (contender: Contender): Promise<Runner<Extract<FromChild, { ready: true }>, Record<string, number>>> =>
  spawnRunner({
    name: contender,
    file: fileURLToPath(import.meta.url),
    args: ["--child", contender],
    execArgv: ["--conditions=umg-source", "--import", "tsx"],
    env: process.env,
    resultOf: (message: Exclude<FromChild, { ready: true }>) => message.us
  })

/** What a text holds, for the table: its items or its keys. */
const membersOf = (text: string): string => {
  const value = JSON.parse(text) as Record<string, unknown>
  const items = value["items"]
  return Array.isArray(items) ? `${items.length} items` : `${Object.keys(value).length} keys`
}

const main = async (): Promise<void> => {
  const runners = { incremental: await spawn("incremental"), naive: await spawn("naive") }
  const runs: Array<Record<Contender, Record<string, number>>> = []
  try {
    for (let rep = 0; rep < REPS; rep++) {
      const order = rep % 2 === 0 ? CONTENDERS : [...CONTENDERS].reverse()
      const got: Partial<Record<Contender, Record<string, number>>> = {}
      for (const c of order) got[c] = await runners[c].run()
      runs.push(got as Record<Contender, Record<string, number>>)
      process.stderr.write(`partial-json: repetition ${rep + 1}/${REPS} done\n`)
    }
  } finally {
    runners.incremental.close()
    runners.naive.close()
  }
  const rows = CELLS.map((cell) => {
    const text = TEXTS[cell]()
    const inc = summarize(runs.map((r) => r.incremental[cell]!))
    const naive = summarize(runs.map((r) => r.naive[cell]!))
    const ratio = summarize(runs.map((r) => r.naive[cell]! / r.incremental[cell]!))
    return [
      `${cell} (${membersOf(text)}, ${Math.round(text.length / 1024)} KiB, ${deltasOf(text).length} deltas)`,
      `${fmtUs(inc.median)} µs (${fmtUs(inc.min)}–${fmtUs(inc.max)})`,
      `${fmtUs(naive.median)} µs (${fmtUs(naive.min)}–${fmtUs(naive.max)})`,
      fmtRatio(ratio)
    ]
  })
  const body = [
    `CPU per delta (µs, median (min–max) of ${REPS} repetitions, umg from its sources), a snapshot taken after every ${DELTA}-character delta; each contender in its own process, the order alternated per repetition; ratio = naive ÷ incremental in the same repetition, median (min–max). incremental: \`makePartialJson\`, \`push\` then \`snapshot()\`; naive: the whole prefix scanned, cut back to its last complete value, closed and given to \`JSON.parse\` on every delta. Both give the same snapshots (checked on every 7th delta and the last, before measuring).`,
    "",
    table(["text", "incremental", "naive (repair + JSON.parse)", "naive ÷ incremental"], rows)
  ].join("\n")
  console.log(writeResult("partial-json", "partial JSON per delta (bench/partial-json.bench.ts)", body))
}

if (process.argv[2] === "--child") void child(process.argv[3] as Contender)
else
  void main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error)
      process.exit(1)
    }
  )
