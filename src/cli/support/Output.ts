/**
 * How the `umg` command talks to people and to scripts. Results go to stdout (human text on a TTY,
 * one JSON document or JSON lines with `--json`), notes and progress to stderr, colour only to a
 * terminal and never when `NO_COLOR` is set.
 */
import * as Effect from "effect/Effect"
import { redactText } from "../../core/errors/Redact.js"
import { configuredSecrets } from "./ExitCode.js"

/** The output mode of one command run. @category models */
export interface OutputMode {
  /** Machine-readable output on stdout. */
  readonly json: boolean
}

// NO_COLOR (https://no-color.org): any non-empty value turns colour off.
export const colourAllowed = (stream: NodeJS.WriteStream): boolean =>
  stream.isTTY === true && (process.env.NO_COLOR ?? "") === "" && process.env.TERM !== "dumb"

const paint =
  (code: string, stream: NodeJS.WriteStream) =>
  (text: string): string =>
    colourAllowed(stream) ? `\x1b[${code}m${text}\x1b[0m` : text

/** Colours for stdout text; plain when stdout is not a colour terminal. @category constructors */
export const colour = {
  bold: paint("1", process.stdout),
  dim: paint("2", process.stdout),
  green: paint("32", process.stdout),
  red: paint("31", process.stdout),
  yellow: paint("33", process.stdout),
  cyan: paint("36", process.stdout)
}

/** Colours for stderr text (notes, progress, errors). @category constructors */
export const errColour = {
  bold: paint("1", process.stderr),
  dim: paint("2", process.stderr),
  green: paint("32", process.stderr),
  red: paint("31", process.stderr),
  yellow: paint("33", process.stderr)
}

/**
 * How stdout or stderr failed: its reader went away (`EPIPE`: `umg chat … | head`), or the write
 * itself failed (`ENOSPC` on a full disk, `EIO` on a closed terminal).
 * @category models
 */
export interface OutputFailure {
  readonly stream: "stdout" | "stderr"
  /** The system error code (`EPIPE`, `ENOSPC`, …), when there is one. */
  readonly code: string | undefined
  readonly message: string
}

// Node ignores SIGPIPE and reports a failed write as an 'error' event, which ends the process with
// a stack trace when no one listens; umg stops its work instead (see `closed`), and drops what it
// would still write to the failed stream.
let failure: OutputFailure | undefined
let stdoutFailed = false
let stderrFailed = false
const onClose: Array<() => void> = []
const failed =
  (stream: "stdout" | "stderr") =>
  (error: NodeJS.ErrnoException): void => {
    if (stream === "stdout") stdoutFailed = true
    else stderrFailed = true
    if (failure !== undefined) return
    failure = { stream, code: error.code, message: error.message }
    for (const wake of onClose.splice(0)) wake()
  }

/**
 * Listens for the failure of stdout and stderr, once, before anything is written.
 * @category output
 */
export const watchOutput = (): void => {
  process.stdout.on("error", failed("stdout"))
  process.stderr.on("error", failed("stderr"))
}

/** The first failure of stdout or stderr since `watchOutput`, if any. @category output */
export const outputFailure = (): OutputFailure | undefined => failure

/** Whether stderr still takes text (it has not failed). @category output */
export const stderrWritable = (): boolean => !stderrFailed

/** Completes when stdout or stderr fails (see `watchOutput`): the program then stops its work. @category output */
export const closed: Effect.Effect<void> = Effect.callback<void>((resume) => {
  if (failure !== undefined) return resume(Effect.void)
  const wake = (): void => resume(Effect.void)
  onClose.push(wake)
  return Effect.sync(() => {
    const at = onClose.indexOf(wake)
    if (at !== -1) onClose.splice(at, 1)
  })
})

/** Writes text to stdout as it is (streamed tokens). @category output */
export const write = (text: string): Effect.Effect<void> =>
  Effect.sync(() => {
    if (!stdoutFailed) process.stdout.write(text)
  })

/**
 * Writes text to stdout, waiting while its buffer is full: a slow reader of a long output keeps
 * memory bounded.
 * @category output
 */
export const writeDrained = (text: string): Effect.Effect<void> =>
  Effect.callback<void>((resume) => {
    if (stdoutFailed || process.stdout.write(text)) return resume(Effect.void)
    process.stdout.once("drain", () => resume(Effect.void))
  })

/** Writes text to stderr as it is (streamed thinking). @category output */
export const writeErr = (text: string): Effect.Effect<void> =>
  Effect.sync(() => {
    if (!stderrFailed) process.stderr.write(text)
  })

// The configured secrets, read once: the environment does not change while the command runs.
let secretsRead: ReadonlyArray<string> | undefined
const secretsOf = (extra: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<string>> =>
  secretsRead !== undefined
    ? Effect.succeed([...secretsRead, ...extra])
    : Effect.map(configuredSecrets, (read) => [...(secretsRead = read), ...extra])

const redacted = (text: string, secrets: ReadonlyArray<string>): string =>
  redactText(text, secrets, Number.MAX_SAFE_INTEGER)

/**
 * Writes one line of a result to stdout, with every configured secret (`UMG_API_KEY`,
 * `UMG_PLATFORM_PASSWORD`) and every secret of `extra` (a platform token) taken out: an answer that
 * echoes one (a task URL with `?key=…`) does not print it. Streamed text (`write`) is not redacted.
 * @category output
 */
export const line = (text = "", extra: ReadonlyArray<string> = []): Effect.Effect<void> =>
  text === "" ? write("\n") : Effect.flatMap(secretsOf(extra), (secrets) => write(`${redacted(text, secrets)}\n`))

/** Writes one line to stderr: notes that are not the result. @category output */
export const note = (text: string): Effect.Effect<void> =>
  Effect.sync(() => {
    if (stderrFailed) return
    clearProgress()
    process.stderr.write(`${text}\n`)
  })

/**
 * Writes one JSON document (or one JSON line) to stdout, secrets taken out of every string in it
 * (before it is encoded, so a secret JSON would escape is still found) as `line` does.
 * @category output
 */
export const json = (value: unknown, extra: ReadonlyArray<string> = []): Effect.Effect<void> =>
  Effect.flatMap(secretsOf(extra), (secrets) =>
    write(`${JSON.stringify(value, (_key, v: unknown) => (typeof v === "string" ? redacted(v, secrets) : v))}\n`)
  )

/**
 * Prints a result: the JSON form with `--json`, the human form otherwise — the one printer of results,
 * so the one place where no configured secret (nor any of `extra`) gets through.
 * @category output
 */
export const result = (
  mode: OutputMode,
  value: unknown,
  human: () => string,
  extra: ReadonlyArray<string> = []
): Effect.Effect<void> => (mode.json ? json(value, extra) : line(human(), extra))

let progressShown = false
let lastProgress = ""

/** Away from a terminal, one progress line at most this often (a batch's counts, an embedding's bar). */
const plainProgressEveryMs = 5_000
let plainWrittenAt: number | undefined // when the last plain line was written, in this run of progress
let heldBack: string | undefined // the latest plain line not written yet: written when the progress ends

/**
 * Shows a progress line on stderr. On a terminal it is rewritten in place; elsewhere (logs, tests)
 * a line is written when it differs from the last, at most one every `plainProgressEveryMs` (the
 * first at once), and the latest held back is written when the progress ends (`endProgress`), so a
 * log shows the start, a line every few seconds and the end, never a line per item.
 * @category output
 */
export const progress = (text: string): Effect.Effect<void> =>
  Effect.sync(() => {
    if (stderrFailed) return
    if (process.stderr.isTTY === true) {
      process.stderr.write(`\r\x1b[K${text}`)
      progressShown = true
    } else if (text !== lastProgress) {
      const now = Date.now()
      if (plainWrittenAt === undefined || now - plainWrittenAt >= plainProgressEveryMs) {
        process.stderr.write(`${text}\n`)
        plainWrittenAt = now
        heldBack = undefined
      } else heldBack = text
    }
    lastProgress = text
  })

// Ends a rewritten progress line so the next stderr text starts on a fresh line, or writes the plain
// line held back; the next progress starts afresh.
const clearProgress = (): void => {
  if (progressShown && !stderrFailed) {
    process.stderr.write("\n")
    progressShown = false
  }
  if (heldBack !== undefined && !stderrFailed) process.stderr.write(`${heldBack}\n`)
  heldBack = undefined
  plainWrittenAt = undefined
  lastProgress = ""
}

/** Ends the current progress line (if any). @category output */
export const endProgress: Effect.Effect<void> = Effect.sync(clearProgress)

/** A text progress bar of `width` cells, e.g. `[#####-----] 5/10`. @category output */
export const bar = (done: number, total: number, width = 24): string => {
  const ratio = total <= 0 ? 1 : Math.min(1, done / total)
  const filled = Math.round(ratio * width)
  return `[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total}`
}

/** Milliseconds as a short human duration (`850 ms`, `3.2 s`). @category output */
export const duration = (ms: number): string => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`)

/** Rows as an aligned text table with a header row. @category output */
export const table = (header: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  // Widths ignore ANSI colour codes so coloured cells still line up.
  // eslint-disable-next-line no-control-regex -- matches the ESC of a colour code
  const visible = (s: string) => s.replace(/\x1b\[[0-9;]*m/g, "").length
  const widths = header.map((h, i) => Math.max(visible(h), ...rows.map((r) => visible(r[i] ?? ""))))
  const render = (cells: ReadonlyArray<string>) =>
    cells.map((c, i) => (i === cells.length - 1 ? c : c + " ".repeat((widths[i] ?? 0) - visible(c)))).join("  ")
  return [render(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(render)].join("\n")
}
