/**
 * The method of the loopback contests (text-streams, requests), written once: each contender runs in its own worker process
 * (forked), measures the CPU time of that process around its measured work after a warm-up, asks the
 * bench (over IPC) to steer the fake gateway between cells, and reports; the bench alternates the
 * contenders (rotating the order each repetition), takes each ratio per repetition, and prints medians
 * with their spread as markdown, written with the machine's facts to `bench/results/<bench>.md`.
 */
import { fork } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { cpus, type as osType } from "node:os"
import { fileURLToPath } from "node:url"
import { control, startFakeGateway, type FakeGateway } from "./fakeGateway.js"
import { umgBuild } from "./umg.js"

/** `BENCH_QUICK=1`: fewer repetitions, events and requests (`npm run bench:quick`). */
export const QUICK = process.env.BENCH_QUICK === "1"

/** What one worker measured in one cell (a scenario such as "messages stream, big reads"). */
export interface CellResult {
  readonly cell: string
  /** CPU time of the worker process over the measured work, in µs. */
  readonly cpuUs: number
  /** Events or requests measured: the divisor. */
  readonly units: number
  /** Requests the fake gateway answered on the measured route during the cell (warm-up included). */
  readonly served: number
  /** Requests the worker made in the cell (warm-up included); differs from `served` only if a client skipped the gateway. */
  readonly calls: number
}

/** A worker's report: every cell it ran. */
export interface WorkerResult {
  readonly contender: string
  readonly cells: ReadonlyArray<CellResult>
}

type ControlPath = "/__bench/delivery" | "/__bench/reset" | "/__bench/stats"
type ToParent =
  | { readonly type: "control"; readonly id: number; readonly path: ControlPath; readonly body?: object }
  | { readonly type: "result"; readonly result: WorkerResult }
type ToWorker = { readonly type: "control"; readonly id: number; readonly result: Record<string, number> }

// ---- the bench's side ----

/**
 * Runs `file` as a worker for one contender (`BENCH_ROLE=worker`, `BENCH_CONTENDER`, `BENCH_BASE_URL`
 * set) with umg's sources loadable, answers its control calls, and resolves with its report.
 */
export const runWorker = (
  file: string,
  contender: string,
  gateway: FakeGateway,
  env: Readonly<Record<string, string>> = {}
): Promise<WorkerResult> =>
  new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(file), [], {
      env: {
        ...process.env,
        ...env,
        BENCH_ROLE: "worker",
        BENCH_CONTENDER: contender,
        BENCH_BASE_URL: gateway.baseUrl
      },
      // `umg-source` only when umg itself is loaded from its sources: with it, a built `dist/` would
      // resolve `#umg/http` to the TypeScript source beside it.
      execArgv: [...(process.env.UMG_BENCH_SOURCE === "1" ? ["--conditions=umg-source"] : []), "--import", "tsx"]
    })
    let result: WorkerResult | undefined
    child.on("message", (raw) => {
      const m = raw as ToParent
      if (m.type === "result") result = m.result
      else
        void control(gateway.baseUrl, m.path, m.body).then(
          (answer) => child.send({ type: "control", id: m.id, result: answer } satisfies ToWorker),
          (error: unknown) => reject(error)
        )
    })
    child.once("error", reject)
    child.once("exit", (code) =>
      result !== undefined && code === 0
        ? resolve(result)
        : reject(new Error(`worker ${contender} exited with code ${code} without a complete report`))
    )
  })

/**
 * The repetitions of a bench whose workers read from memory (no gateway): each contender in its own
 * process, the order rotated each repetition; one record of the workers' reports per repetition.
 */
export const runInMemory = async (
  file: string,
  name: string,
  contenders: ReadonlyArray<string>,
  reps: number
): Promise<Array<Record<string, WorkerResult>>> => {
  // No gateway: the worker's runner only passes its address on.
  const none = { baseUrl: "", close: () => {} }
  const runs: Array<Record<string, WorkerResult>> = []
  for (let rep = 0; rep < reps; rep++) {
    const got: Record<string, WorkerResult> = {}
    for (const contender of rotate(contenders, rep)) {
      got[contender] = await runWorker(file, contender, none)
      process.stderr.write(`${name}: repetition ${rep + 1}/${reps}, ${contender} done\n`)
    }
    runs.push(got)
  }
  return runs
}

/** CPU per unit of one contender's cell in one repetition. */
export const perUnitOf = (run: Record<string, WorkerResult>, contender: string, cell: string): number => {
  const r = run[contender]!.cells.find((x) => x.cell === cell)!
  return r.cpuUs / r.units
}

/**
 * A table row per cell: the baseline's median CPU per unit, then each other contender's with its
 * ratio to the baseline taken per repetition, median (min–max).
 */
export const rowsAgainst = (
  cells: ReadonlyArray<string>,
  contenders: ReadonlyArray<string>,
  baseline: string,
  runs: ReadonlyArray<Record<string, WorkerResult>>
): Array<Array<string>> =>
  cells.map((cell) => [
    cell,
    ...contenders.map((c) => {
      const us = summarize(runs.map((run) => perUnitOf(run, c, cell))).median
      return c === baseline
        ? `${fmtUs(us)} µs`
        : `${fmtUs(us)} µs · ${fmtRatio(summarize(runs.map((run) => perUnitOf(run, c, cell) / perUnitOf(run, baseline, cell))))}`
    })
  ])

/** The contenders in the order of repetition `rep` (rotated by one each repetition). */
export const rotate = <A>(items: ReadonlyArray<A>, rep: number): ReadonlyArray<A> =>
  items.map((_, i) => items[(i + rep) % items.length]!)

/** A bench's contest: its contenders (the first is the baseline), its cells, and how to print them. */
export interface Contest<C extends string> {
  /** The bench file (its `import.meta.url`), run again as each worker. */
  readonly file: string
  /** The results file's name (`bench/results/<name>.md`) and the log's prefix. */
  readonly name: string
  readonly title: string
  readonly reps: number
  /** Contenders in their first repetition's order; `baseline` and `sdk` must be among them. */
  readonly contenders: ReadonlyArray<C>
  readonly column: Readonly<Record<C, string>>
  readonly baseline: C
  readonly sdk: C
  readonly sdkName: string
  /** The cells' names, in table order. */
  readonly cells: ReadonlyArray<string>
  /** "event" or "request": what the figures are per. */
  readonly unit: string
  /** A sentence on what was measured (streams, requests per cell). */
  readonly plan: string
  /** Pairs of contenders also compared with each other (the first ÷ the second, per repetition). */
  readonly pairs?: ReadonlyArray<readonly [C, C]>
}

/**
 * Runs every repetition (one worker per contender, the order rotated each time) against the fake
 * gateway, then prints and writes the tables: CPU per unit with the ratio to the baseline, and the
 * ratio to the official SDK, each ratio taken per repetition and shown as median (min–max).
 */
export const runContest = async <C extends string>(contest: Contest<C>, gateway: FakeGateway): Promise<void> => {
  const runs: Array<Record<string, WorkerResult>> = []
  for (let rep = 0; rep < contest.reps; rep++) {
    const got: Record<string, WorkerResult> = {}
    for (const contender of rotate(contest.contenders, rep)) {
      got[contender] = await runWorker(contest.file, contender, gateway)
      process.stderr.write(`${contest.name}: repetition ${rep + 1}/${contest.reps}, ${contender} done\n`)
    }
    runs.push(got)
  }
  const find = (run: Record<string, WorkerResult>, contender: C, cell: string) =>
    run[contender]!.cells.find((x) => x.cell === cell)!
  const perUnit = (run: Record<string, WorkerResult>, contender: C, cell: string) => {
    const c = find(run, contender, cell)
    return c.cpuUs / c.units
  }
  const rows: Array<Array<string>> = []
  const sdkRows: Array<Array<string>> = []
  const pairs = contest.pairs ?? []
  const pairRows: Array<Array<string>> = []
  const notes: Array<string> = []
  const others = contest.contenders.filter((c) => c !== contest.sdk)
  for (const cell of contest.cells) {
    const us = (c: C) => summarize(runs.map((run) => perUnit(run, c, cell)))
    const ratio = (c: C, base: C) => summarize(runs.map((run) => perUnit(run, c, cell) / perUnit(run, base, cell)))
    rows.push([
      cell,
      ...contest.contenders.map((c) =>
        c === contest.baseline
          ? `${fmtUs(us(c).median)} µs`
          : `${fmtUs(us(c).median)} µs · ${fmtRatio(ratio(c, contest.baseline))}`
      )
    ])
    sdkRows.push([cell, ...others.map((c) => fmtRatio(ratio(c, contest.sdk)))])
    pairRows.push([cell, ...pairs.map(([a, b]) => fmtRatio(ratio(a, b)))])
    for (const [rep, run] of runs.entries())
      for (const c of contest.contenders) {
        const r = find(run, c, cell)
        if (r.served !== r.calls)
          notes.push(`${c}, ${cell}, repetition ${rep + 1}: made ${r.calls} calls, the gateway answered ${r.served}`)
      }
  }
  const body = [
    `CPU per ${contest.unit} of the client process (µs, median of ${contest.reps} repetitions) and its ratio to ${contest.column[contest.baseline]} in the same repetition, median (min–max). ${contest.plan}`,
    "",
    table([`CPU per ${contest.unit}`, ...contest.contenders.map((c) => contest.column[c])], rows),
    "",
    `Ratio to the ${contest.sdkName} in the same repetition, median (min–max):`,
    "",
    table([`ratio to the ${contest.sdkName}`, ...others.map((c) => contest.column[c])], sdkRows),
    ...(pairs.length > 0
      ? [
          "",
          "Contenders against each other, the ratio in the same repetition, median (min–max):",
          "",
          table(["ratio", ...pairs.map(([a, b]) => `${contest.column[a]} ÷ ${contest.column[b]}`)], pairRows)
        ]
      : []),
    ...(notes.length > 0
      ? ["", "Calls the gateway did not see (a client answered from a cache):", "", ...notes.map((n) => `- ${n}`)]
      : [])
  ].join("\n")
  console.log(writeResult(contest.name, contest.title, body))
}

/** A bench file's entry: the worker's part when forked as one, otherwise the contest against a fresh fake gateway. */
export const main = <C extends string>(contest: Contest<C>, worker: () => Promise<void>): void => {
  if (process.env.BENCH_ROLE === "worker")
    void worker().catch((error: unknown) => {
      console.error(error)
      process.exit(1)
    })
  else
    void (async () => {
      const gateway = await startFakeGateway()
      try {
        await runContest(contest, gateway)
      } finally {
        gateway.close()
      }
    })().catch((error: unknown) => {
      console.error(error)
      process.exit(1)
    })
}

// ---- the worker's side ----

let nextId = 0
/** Asks the bench to make a control call to the fake gateway (never inside a measured window). */
export const askGateway = (path: ControlPath, body?: object): Promise<Record<string, number>> =>
  new Promise((resolve) => {
    const id = nextId++
    const onMessage = (raw: unknown) => {
      const m = raw as ToWorker
      if (m.id === id) {
        process.off("message", onMessage)
        resolve(m.result)
      }
    }
    process.on("message", onMessage)
    process.send!({ type: "control", id, path, ...(body === undefined ? {} : { body }) } satisfies ToParent)
  })

/** Sends the worker's report and lets the process end. */
export const report = (result: WorkerResult): void => {
  process.send!({ type: "result", result } satisfies ToParent, () => process.exit(0))
}

/** CPU time (user + system, µs) of this process while `work` runs. */
export const cpuOf = async (work: () => Promise<void>): Promise<number> => {
  const start = process.cpuUsage()
  await work()
  const used = process.cpuUsage(start)
  return used.user + used.system
}

/** Runs `call` `n` times, at most `inFlight` at once (1: one after another). */
export const pool = async (n: number, inFlight: number, call: () => Promise<void>): Promise<void> => {
  let started = 0
  const lane = async (): Promise<void> => {
    while (started < n) {
      started++
      await call()
    }
  }
  await Promise.all(Array.from({ length: Math.min(inFlight, n) }, lane))
}

// ---- figures and tables ----

/** Median and spread of some measurements. */
export interface Summary {
  readonly median: number
  readonly min: number
  readonly max: number
}

export const summarize = (xs: ReadonlyArray<number>): Summary => {
  const sorted = [...xs].sort((a, b) => a - b)
  const mid = sorted.length / 2
  const median = sorted.length % 2 === 1 ? sorted[Math.floor(mid)]! : (sorted[mid - 1]! + sorted[mid]!) / 2
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]! }
}

/** µs with about three significant digits (1.62, 17.6, 161.5, 1,363). */
export const fmtUs = (us: number): string =>
  us < 10 ? us.toFixed(2) : us < 1_000 ? us.toFixed(1) : Math.round(us).toLocaleString("en")

/** A ratio's median and spread: `10.9× (10.1–11.8)`. */
export const fmtRatio = (s: Summary): string => {
  const f = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1))
  return `${f(s.median)}× (${f(s.min)}–${f(s.max)})`
}

/** A markdown table. */
export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string =>
  [
    `| ${header.join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((r) => `| ${r.join(" | ")} |`)
  ].join("\n")

/** Date, CPU, cores and Node version: what a figure depends on. */
export const machineFacts = (): string => {
  const cpu = cpus()
  return `${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC · ${cpu[0]?.model.trim() ?? "unknown CPU"} · ${cpu.length} cores · ${osType()} · Node ${process.version}${QUICK ? " · quick mode (BENCH_QUICK=1)" : ""} · ${umgBuild}`
}

/** Writes a bench's markdown to `bench/results/<name>.md` (machine facts under its title). */
export const writeResult = (name: string, title: string, body: string): string => {
  const dir = fileURLToPath(new URL("../results/", import.meta.url))
  mkdirSync(dir, { recursive: true })
  const text = `## ${title}\n\n${machineFacts()}\n\n${body.trim()}\n`
  writeFileSync(`${dir}${name}.md`, text)
  return text
}
