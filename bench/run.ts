/**
 * Runs the benchmarks of `bench/` one after another, each in its own Node process with the flags it
 * needs, and gathers what they print into `bench/results/latest.md`.
 *
 * Run: `npm run bench` (every bench, full size: long), `npm run bench:quick` or `npm run bench -- --quick`
 * (every bench with `BENCH_QUICK=1`: fewer repetitions, events and tasks, a few minutes on 2 cores),
 * `npm run bench -- text-streams requests` (a subset, in the order given; `--list` names them).
 *
 * A bench that writes its own `bench/results/<name>.md` during the run (text-streams, requests) is
 * taken from there; for the others, their standard output is kept in a code block under the same name.
 * Nothing is asserted; the exit code is 1 when a bench failed or timed out, after all have run.
 */
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { machineFacts } from "./harness/contest.js"

interface Bench {
  readonly name: string
  /** Node flags besides `--conditions=umg-source --import tsx` (which every bench gets: umg's sources resolve without a build). */
  readonly flags?: ReadonlyArray<string>
  /** Extra environment in quick mode, for benches that also have a switch of their own. */
  readonly quickEnv?: Readonly<Record<string, string>>
}

const BENCHES: ReadonlyArray<Bench> = [
  { name: "text-streams" },
  { name: "requests" },
  // Their own quick switches too, until those benches read BENCH_QUICK themselves.
  { name: "sse", quickEnv: { SSE_BENCH_QUICK: "1" } },
  { name: "sse-stability", quickEnv: { SSE_BENCH_QUICK: "1" } },
  { name: "sse-decode" },
  { name: "validation" },
  { name: "hostile-json" },
  { name: "effect-stream" },
  { name: "poll", flags: ["--expose-gc"], quickEnv: { POLL_BENCH_QUICK: "1" } },
  { name: "streams-many", flags: ["--expose-gc"] },
  { name: "batch" },
  { name: "bundle" },
  { name: "emulator" },
  { name: "emulator-video" }
]

const args = process.argv.slice(2)
const quick = args.includes("--quick") || process.env.BENCH_QUICK === "1"
// Every bench spawned below inherits it, and the machine facts say so.
if (quick) process.env.BENCH_QUICK = "1"
if (args.includes("--list")) {
  console.log(BENCHES.map((b) => b.name).join("\n"))
  process.exit(0)
}
const asked = args.filter((a) => !a.startsWith("--"))
const unknown = asked.filter((a) => !BENCHES.some((b) => b.name === a))
if (unknown.length > 0) {
  console.error(`unknown bench ${unknown.join(", ")}; the benches are: ${BENCHES.map((b) => b.name).join(", ")}`)
  process.exit(2)
}
const selected = asked.length === 0 ? BENCHES : asked.map((a) => BENCHES.find((b) => b.name === a)!)

const benchDir = fileURLToPath(new URL(".", import.meta.url))
const resultsDir = `${benchDir}results/`
mkdirSync(resultsDir, { recursive: true })

// A bench that hangs must not hold the others: generous bounds, far above each one's usual time.
const TIMEOUT_MS = quick ? 5 * 60_000 : 60 * 60_000

interface Outcome {
  readonly name: string
  readonly code: number | null
  readonly seconds: number
  readonly timedOut: boolean
}

const runOne = (bench: Bench): Promise<{ outcome: Outcome; stdout: string }> =>
  new Promise((resolve) => {
    const started = Date.now()
    const child = spawn(
      process.execPath,
      [...(bench.flags ?? []), "--conditions=umg-source", "--import", "tsx", `${benchDir}${bench.name}.bench.ts`],
      {
        env: { ...process.env, ...(quick ? bench.quickEnv : {}) },
        stdio: ["ignore", "pipe", "inherit"]
      }
    )
    let stdout = ""
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString()
      process.stdout.write(d)
    })
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      child.kill("SIGKILL")
    }, TIMEOUT_MS)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve({ outcome: { name: bench.name, code, seconds: (Date.now() - started) / 1000, timedOut }, stdout })
    })
  })

// umg is measured as users run it, from the built package (bench/harness/umg.ts): build it first.
if (process.env.UMG_BENCH_SOURCE !== "1") {
  console.log("building dist/ (npm run build) so umg is measured as it is published")
  const build = spawnSync(process.platform === "win32" ? "npm.cmd" : "npm", ["run", "build"], { stdio: "inherit" })
  if (build.status !== 0) {
    console.error(
      "npm run build failed: the benches measure the built package (set UMG_BENCH_SOURCE=1 to measure the sources)"
    )
    process.exit(1)
  }
}

const sections: Array<string> = []
const outcomes: Array<Outcome> = []
for (const bench of selected) {
  console.log(`\n=== ${bench.name}${quick ? " (quick)" : ""} ===\n`)
  const startedAt = Date.now()
  const { outcome, stdout } = await runOne(bench)
  outcomes.push(outcome)
  const own = `${resultsDir}${bench.name}.md`
  const status = outcome.timedOut
    ? `timed out after ${Math.round(outcome.seconds)} s`
    : outcome.code === 0
      ? `${Math.round(outcome.seconds)} s`
      : `failed (exit ${outcome.code}) after ${Math.round(outcome.seconds)} s`
  // A results file written during this run is the bench's own table; otherwise keep what it printed.
  if (outcome.code === 0 && existsSync(own) && statSync(own).mtimeMs >= startedAt)
    sections.push(`${readFileSync(own, "utf8").trim()}\n\n_(${status})_`)
  else {
    const text = `## ${bench.name} (bench/${bench.name}.bench.ts)\n\n${machineFacts()}\n\n_${status}_\n\n\`\`\`\n${stdout.trim()}\n\`\`\``
    if (outcome.code === 0) writeFileSync(own, `${text}\n`)
    sections.push(text)
  }
}

const summary = outcomes
  .map(
    (o) => `${o.name}: ${o.timedOut ? "timed out" : o.code === 0 ? "ok" : `exit ${o.code}`}, ${Math.round(o.seconds)} s`
  )
  .join("; ")
const latest = `# umg benchmarks${quick ? " (quick mode)" : ""}\n\n${machineFacts()}\n\nRun with \`${["npm run bench", ...(quick || asked.length > 0 ? ["--"] : []), ...(quick ? ["--quick"] : []), ...asked].join(" ")}\`. ${summary}.\n\n${sections.join("\n\n")}\n`
writeFileSync(`${resultsDir}latest.md`, latest)
console.log(`\n${summary}\nwritten: bench/results/latest.md`)
process.exitCode = outcomes.every((o) => o.code === 0 && !o.timedOut) ? 0 : 1
