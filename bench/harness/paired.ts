/**
 * What the two AI framework benches (`bench/ai-sdk.bench.ts`, `bench/ai-effect.bench.ts`) share,
 * written once: their cells and stream counts, a contender's worker for the sequential contest
 * (`bench/harness/contest.ts`), and the paired runs — a provider and its baseline alive at once, each
 * in its own warm process, their blocks of streams alternated round by round, the ratio of each round
 * printed as median (min–max) and appended to `bench/results/<name>.md`. A bench gives its contenders,
 * how to make one (`makeContender`), how to bundle umg, and its contest's columns; `runAiBench` is its
 * entry. Environment variables take the bench's prefix (`AI_SDK_`, `AI_EFFECT_`): `_PAIRED=1`,
 * `_ROUNDS=n`, `_PAIRS=a:b,c:d`, `_CELLS=part of a name`, `_REPS=n`, `_CPU_PROF=dir` (V8 CPU
 * profiles of the paired workers, a diagnostic).
 */
import { build } from "esbuild"
import { fork } from "node:child_process"
import { mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import {
  askGateway,
  type CellResult,
  type Contest,
  cpuOf,
  fmtRatio,
  fmtUs,
  machineFacts,
  main,
  QUICK,
  report,
  summarize,
  table
} from "./contest.js"
import { control, startFakeGateway } from "./fakeGateway.js"
import { CHAT_MODEL, chatStreamFixture, MESSAGES_MODEL, messagesBody, messagesStreamFixture } from "./fixtures.js"
import { umgBuild } from "./umg.js"

/** Streams per long cell (2,000 deltas): warm-up and measured. @category constants */
export const BIG = QUICK ? { warm: 5, measured: 8, deltas: 2_000 } : { warm: 15, measured: 30, deltas: 2_000 }
/**
 * Streams per short cell (50 deltas): warm-up and measured. A process reaches its steady state only
 * after about 2,000 short streams (a umg/ai-sdk stream costs about 1.4 ms of CPU in the first 300, 0.5
 * ms after 2,500), so the warm-up is that long: the tables compare steady states.
 * @category constants
 */
export const SHORT = QUICK ? { warm: 40, measured: 80, deltas: 50 } : { warm: 2_000, measured: 300, deltas: 50 }

/** The two stream families the benches read. @category models */
export type Family = "messages" | "chat"

/** The cells, in table order. @category constants */
export const CELLS: ReadonlyArray<{ readonly name: string; readonly family: Family; readonly short?: true }> = [
  { name: "messages stream, big reads", family: "messages" },
  { name: "chat stream, big reads", family: "chat" },
  { name: "short messages stream (50 deltas), big reads", family: "messages", short: true },
  { name: "short chat stream (50 deltas), big reads", family: "chat", short: true }
]

/** The text a stream gave, summed by length (checked against the fixture). @category models */
export interface Tally {
  text: number
}

/** One stream of a family through a contender, its text added to the tally. @category models */
export type StreamOnce = (family: Family, t: Tally) => Promise<void>

/** A check, before a cell's warm-up, that the baseline gives the parts umg's provider gives. @category models */
export type CheckSame = (family: Family) => Promise<void>

/** The prompt every contender sends: the fixture's user message. @category constants */
export const prompt = messagesBody.messages[0]!.content

/** The fixture's model of a family. @category constructors */
export const modelOf = (family: Family): string => (family === "messages" ? MESSAGES_MODEL : CHAT_MODEL)

/** Where two canonical texts first differ, with some context. @category constructors */
export const firstDifference = (a: string, b: string): string => {
  let i = 0
  while (i < a.length && a[i] === b[i]) i++
  return `at ${i}: …${a.slice(Math.max(0, i - 80), i + 80)}… against …${b.slice(Math.max(0, i - 80), i + 80)}…`
}

/**
 * Bundles umg's modules a bench's contenders load (`lines`: `export … from "./src/…"`, resolved from
 * `root`, a checkout's sources) into `out` with esbuild, as users run umg: compiled JavaScript.
 * @category constructors
 */
export const bundleSources = async (out: URL, root: string, lines: ReadonlyArray<string>): Promise<void> => {
  mkdirSync(fileURLToPath(new URL("./", out)), { recursive: true })
  await build({
    stdin: { contents: lines.join("\n"), resolveDir: root, loader: "ts" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    outfile: fileURLToPath(out),
    // umg's own `#umg/*` imports resolve to its sources (the Node ones); packages stay external.
    conditions: ["umg-source"],
    external: ["effect", "effect/*", "@effect/*", "@ai-sdk/*", "ai", "ws", "rxjs", "rxjs/*"],
    logLevel: "warning"
  })
}

/** An AI framework bench: its contest's columns, its contenders and how to run them. @category models */
export interface AiBench<C extends string> extends Omit<Contest<C>, "file" | "reps" | "cells" | "unit" | "plan"> {
  /** The bench file (its `import.meta.url`), run again as each worker; its results are `results/<name>.md` beside it. */
  readonly file: string
  /** The prefix of the bench's environment variables (`AI_SDK`). */
  readonly env: string
  /** The pairs of the paired runs, baseline first (`<env>_PAIRS=a:b,c:d` runs others). */
  readonly paired: ReadonlyArray<readonly [C, C]>
  /** Streams per block of a paired run: about a third of a second. */
  readonly blockOf: (contender: C, short: boolean) => number
  readonly makeContender: (contender: C, baseUrl: string) => Promise<StreamOnce>
  /** The baseline worker's check, once `makeContender` has set it (other workers: none). */
  readonly checkSame: () => CheckSame | undefined
  /** Builds what umg's contenders load, before any worker starts. */
  readonly bundle: () => Promise<void>
  /** What the tables say of umg's build, in place of the harness's `umgBuild`. */
  readonly bundled: string
}

const fixtureOf = (family: Family, deltas: number) =>
  family === "messages" ? messagesStreamFixture(deltas) : chatStreamFixture(deltas)

/** One stream of `family` through the worker's contender, its text checked against the fixture. */
const checkedStream =
  <C extends string>(contender: C, streamOnce: StreamOnce, family: Family, textLength: number) =>
  async () => {
    const t: Tally = { text: 0 }
    await streamOnce(family, t)
    if (t.text !== textLength) throw new Error(`${contender} ${family}: text length ${t.text}, expected ${textLength}`)
  }

/** The worker of the sequential contest: every cell, warmed up, then measured. */
const runContender = async <C extends string>(bench: AiBench<C>): Promise<void> => {
  const contender = process.env.BENCH_CONTENDER as C
  const streamOnce = await bench.makeContender(contender, process.env.BENCH_BASE_URL!)
  const cells: Array<CellResult> = []
  for (const cell of CELLS) {
    const plan = cell.short === true ? SHORT : BIG
    const { textLength, events } = fixtureOf(cell.family, plan.deltas)
    const stream = checkedStream(contender, streamOnce, cell.family, textLength)
    await askGateway("/__bench/delivery", { mode: "big", deltas: plan.deltas })
    await bench.checkSame()?.(cell.family)
    for (let i = 0; i < plan.warm; i++) await stream()
    await askGateway("/__bench/reset")
    const cpuUs = await cpuOf(async () => {
      for (let i = 0; i < plan.measured; i++) await stream()
    })
    const route = cell.family === "messages" ? "POST /v1/messages" : "POST /v1/chat/completions"
    const served = (await askGateway("/__bench/stats"))[route] ?? 0
    cells.push({ cell: cell.name, cpuUs, units: events * plan.measured, served, calls: plan.measured })
  }
  report({ contender, cells })
}

// ---- paired runs: a provider and its baseline alive at once, their blocks of streams alternated ----

type FromPaired = { readonly type: "ready" } | { readonly type: "cpu"; readonly us: number; readonly lost: number }

/** Whether a failure is a lost connection (its text or fields say so). */
const mentionsLost = (error: unknown): boolean => {
  let text = String(error)
  try {
    text += JSON.stringify(error)
  } catch {
    // A circular error: its own text is enough.
  }
  return text.includes("connection lost")
}

/** The worker of a paired run: one contender, one cell, warmed up; then a block of streams per request. */
const runPairedWorker = async <C extends string>(bench: AiBench<C>): Promise<void> => {
  const contender = process.env.BENCH_CONTENDER as C
  const cell = CELLS.find((c) => c.name === process.env.BENCH_CELL)!
  const streamOnce = await bench.makeContender(contender, process.env.BENCH_BASE_URL!)
  const plan = cell.short === true ? SHORT : BIG
  const { textLength } = fixtureOf(cell.family, plan.deltas)
  const stream = checkedStream(contender, streamOnce, cell.family, textLength)
  await bench.checkSame()?.(cell.family)
  for (let i = 0; i < plan.warm; i++) await stream()
  // A worker idles while the other measures: the gateway may close its kept-alive connection just as
  // it is reused (the server's keep-alive race), which `maxRetries: 0` makes a failure. That stream is
  // run again, once, and counted.
  let lost = 0
  const streamAgain = () =>
    stream().catch((error: unknown) => {
      if (!mentionsLost(error)) throw error
      lost++
      return stream()
    })
  process.on("message", (m: { readonly type: "block"; readonly n: number } | { readonly type: "exit" }) => {
    if (m.type === "exit") process.exit(0)
    void cpuOf(async () => {
      for (let i = 0; i < m.n; i++) await streamAgain()
    }).then(
      (us) => process.send!({ type: "cpu", us, lost } satisfies FromPaired),
      (error: unknown) => {
        console.error(error)
        process.exit(1)
      }
    )
  })
  process.send!({ type: "ready" } satisfies FromPaired)
}

/** Forks a paired worker and resolves once it is warm; `block(n)` gives the CPU time (µs) of its next n streams. */
const pairedWorker = (file: string, contender: string, cell: string, baseUrl: string, cpuProfDir?: string) =>
  new Promise<{
    readonly block: (n: number) => Promise<number>
    readonly lost: () => number
    readonly close: () => void
  }>((resolve, reject) => {
    const child = fork(fileURLToPath(file), [], {
      env: {
        ...process.env,
        BENCH_ROLE: "paired",
        BENCH_CONTENDER: contender,
        BENCH_CELL: cell,
        BENCH_BASE_URL: baseUrl
      },
      // `<PREFIX>_CPU_PROF=dir`: each worker writes a V8 CPU profile there (a diagnostic, not a figure).
      execArgv: ["--import", "tsx", ...(cpuProfDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${cpuProfDir}`])]
    })
    // The block under way: its result, or the worker's failure (a crash fails the run, not hangs it).
    let waiting: { readonly done: (us: number) => void; readonly fail: (e: Error) => void } | undefined
    let lost = 0
    child.on("message", (m: FromPaired) => {
      if (m.type === "ready")
        resolve({
          block: (n) =>
            new Promise((done, fail) => {
              waiting = { done, fail }
              child.send({ type: "block", n })
            }),
          lost: () => lost,
          close: () => child.send({ type: "exit" })
        })
      else {
        lost = m.lost
        waiting?.done(m.us)
      }
    })
    child.once("error", reject)
    child.once("exit", (code) => {
      const error = new Error(`paired worker ${contender} exited with code ${code}`)
      if (code !== 0) (waiting?.fail ?? reject)(error)
    })
  })

const PAIRED_HEADING = "### Paired runs: each provider against its baseline, alive at once"

/**
 * Each pair in each cell: both workers warm and alive, `ROUNDS` rounds of one block each, the order
 * swapped every round; the ratio of each round, median (min–max), appended to the results.
 */
const runPaired = async <C extends string>(bench: AiBench<C>): Promise<void> => {
  const pairs: ReadonlyArray<readonly [C, C]> =
    process.env[`${bench.env}_PAIRS`]?.split(",").map((pair) => pair.split(":") as unknown as readonly [C, C]) ??
    bench.paired
  const rounds = Math.max(2, Number(process.env[`${bench.env}_ROUNDS`] ?? (QUICK ? 6 : 30)))
  const cpuProfDir = process.env[`${bench.env}_CPU_PROF`]
  const gateway = await startFakeGateway()
  const rows: Array<Array<string>> = []
  try {
    // `<env>_CELLS=short` (a part of their names) runs only some cells.
    for (const cell of CELLS.filter((c) => c.name.includes(process.env[`${bench.env}_CELLS`] ?? ""))) {
      const plan = cell.short === true ? SHORT : BIG
      const events = fixtureOf(cell.family, plan.deltas).events
      await control(gateway.baseUrl, "/__bench/delivery", { mode: "big", deltas: plan.deltas })
      for (const [base, mine] of pairs) {
        const [b, m] = [
          await pairedWorker(bench.file, base, cell.name, gateway.baseUrl, cpuProfDir),
          await pairedWorker(bench.file, mine, cell.name, gateway.baseUrl, cpuProfDir)
        ]
        const n = bench.blockOf(mine, cell.short === true)
        const bs: Array<number> = []
        const ms: Array<number> = []
        for (let r = 0; r < rounds; r++)
          if (r % 2 === 0) {
            bs.push(await b.block(n))
            ms.push(await m.block(n))
          } else {
            ms.push(await m.block(n))
            bs.push(await b.block(n))
          }
        b.close()
        m.close()
        const again = b.lost() + m.lost()
        const us = (xs: ReadonlyArray<number>) => `${fmtUs(summarize(xs).median / (n * events))} µs`
        rows.push([
          cell.name,
          `${bench.column[mine]} ÷ ${bench.column[base]}`,
          us(bs),
          us(ms),
          fmtRatio(summarize(ms.map((x, i) => x / bs[i]!))),
          String(again)
        ])
        process.stderr.write(`${bench.name} paired: ${cell.name}, ${mine} ÷ ${base} done\n`)
      }
    }
  } finally {
    gateway.close()
  }
  const section = [
    PAIRED_HEADING,
    "",
    `${machineFacts().replace(umgBuild, bench.bundled)}`,
    "",
    `Each provider against its baseline with both alive at once, each in its own process and warm: ${rounds} rounds of one block each (blocks of about a third of a second: ${pairs.map(([, m]) => `${bench.blockOf(m, false)} long or ${bench.blockOf(m, true)} short streams for ${bench.column[m]}`).join(", ")}), the order swapped every round, so both see the same load. CPU per event, median over the rounds, and the ratio of each round, median (min–max). The rows of a contender against itself (A/A: two processes of the same code) show what the method resolves: a provider's ratio inside their range is no measurable difference. A stream whose kept-alive connection the gateway closed as it was reused (the server's keep-alive race while a worker idles) is run again, once, and counted.`,
    "",
    table(["cell", "ratio", "baseline", "umg", "ratio per round", "streams run again"], rows)
  ].join("\n")
  const file = resultsFile(bench)
  const text = readFileSync(file, "utf8")
  const at = text.indexOf(PAIRED_HEADING)
  writeFileSync(file, `${(at < 0 ? text : text.slice(0, at)).trimEnd()}\n\n${section}\n`)
  console.log(section)
}

/** The bench's results file, `results/<name>.md` beside the bench file. */
const resultsFile = (bench: { readonly name: string; readonly file: string }): string =>
  fileURLToPath(new URL(`results/${bench.name}.md`, bench.file))

/**
 * A bench file's entry: the paired worker when forked as one; the paired runs with `<env>_PAIRED=1`;
 * otherwise the sequential contest (`contest.ts`'s `main`), its worker when forked as one. umg is
 * bundled first in the bench's own process, and its build named in the results as `bundled`.
 * @category constructors
 */
export const runAiBench = async <C extends string>(bench: AiBench<C>): Promise<void> => {
  if (process.env.BENCH_ROLE === "paired")
    void runPairedWorker(bench).catch((error: unknown) => {
      console.error(error)
      process.exit(1)
    })
  else if (process.env[`${bench.env}_PAIRED`] === "1") {
    await bench.bundle()
    await runPaired(bench)
  } else {
    if (process.env.BENCH_ROLE !== "worker") {
      await bench.bundle()
      // The harness names dist/ as umg's build; these benches bundle the sources instead.
      process.once("exit", () => {
        const file = resultsFile(bench)
        writeFileSync(file, readFileSync(file, "utf8").replace(umgBuild, bench.bundled))
      })
    }
    main(
      {
        file: bench.file,
        name: bench.name,
        title: bench.title,
        reps: Math.max(1, Number(process.env[`${bench.env}_REPS`] ?? (QUICK ? 2 : 5))),
        contenders: bench.contenders,
        column: bench.column,
        baseline: bench.baseline,
        sdk: bench.sdk,
        sdkName: bench.sdkName,
        ...(bench.pairs === undefined ? {} : { pairs: bench.pairs }),
        cells: CELLS.map((c) => c.name),
        unit: "event",
        plan: `${BIG.measured} streams of ${messagesStreamFixture(BIG.deltas).events}/${chatStreamFixture(BIG.deltas).events} events (messages/chat) per long cell, ${SHORT.measured} of ${messagesStreamFixture(SHORT.deltas).events}/${chatStreamFixture(SHORT.deltas).events} per short cell, after a warm-up; big reads.`
      },
      () => runContender(bench)
    )
  }
}
