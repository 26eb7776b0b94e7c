/**
 * The console @effect/cli prints its help and its command-line errors through, made to follow the
 * terminal conventions @effect/cli does not: plain text (no ANSI colour) under `NO_COLOR` or when
 * the output is not a terminal, lines wrapped to the terminal's width (80 columns when not a
 * terminal), and usage lines written `umg <command> …` rather than `$ <command>`. @effect/cli's
 * messages for a rejected command line are not printed: they name neither the flag nor what it
 * allows, and `main` prints its own one-line explanation of the same error (UsageError.ts).
 */
import { Console, Effect } from "effect"

// CSI sequences (colours, styles) as @effect/printer-ansi writes them.
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g

/** Whether output should be plain: `NO_COLOR` set, or not a terminal. @category predicates */
export const plainOutput = (stream: NodeJS.WriteStream = process.stdout): boolean =>
  (process.env.NO_COLOR !== undefined && process.env.NO_COLOR !== "") || stream.isTTY !== true

/** The width to wrap to: the terminal's, or 80 columns when not a terminal. @category accessors */
export const helpWidth = (stream: NodeJS.WriteStream = process.stdout): number =>
  stream.isTTY === true && typeof stream.columns === "number" && stream.columns > 20 ? stream.columns : 80

/** Wraps one line at word boundaries, keeping its indentation on the lines it continues on. @category rendering */
export const wrapLine = (line: string, width: number): Array<string> => {
  const visible = line.replace(ANSI, "")
  if (visible.length <= width) return [line]
  const indent = /^\s*/.exec(visible)?.[0] ?? ""
  const words = line.trim().split(/\s+/)
  const out: Array<string> = []
  let current = indent
  for (const word of words) {
    const next = current.trim() === "" ? `${indent}${word}` : `${current} ${word}`
    if (next.replace(ANSI, "").length > width && current.trim() !== "") {
      out.push(current)
      current = `${indent}  ${word}`
    } else current = next
  }
  if (current.trim() !== "") out.push(current)
  return out
}

/** The words of the command line before the options: `umg video status --help` → `video status`. */
const commandPath: ReadonlyArray<string> = process.argv.slice(2).filter((a) => !a.startsWith("-"))

/** The parent commands of `command` on `path` (`status` on `video status` → `video`). */
const parentsOf = (command: string, path: ReadonlyArray<string>): ReadonlyArray<string> => {
  const at = path.indexOf(command)
  return at > 0 ? path.slice(0, at) : []
}

/** Help text as it should reach the user. @category rendering */
export const renderHelp = (text: string, plain: boolean, width: number): string => {
  let lastHeading = ""
  return (plain ? text.replace(ANSI, "") : text)
    .split("\n")
    .map((line) => {
      let out = line.replace(/^(\s*)\$ /, "$1")
      const bare = out.replace(ANSI, "").trim()
      // A subcommand's usage line is printed without the program and its parents: `status …` is `umg video status …`.
      if (lastHeading === "USAGE" && bare !== "" && !bare.startsWith("umg")) out = `${["umg", ...parentsOf(bare.split(" ")[0] ?? "", commandPath)].join(" ")} ${out.trimStart()}`
      if (bare !== "") lastHeading = bare
      return out
    })
    .flatMap((line) => wrapLine(line, width))
    .join("\n")
}

const render = (args: ReadonlyArray<unknown>, stream: NodeJS.WriteStream): string =>
  renderHelp(args.map((a) => (typeof a === "string" ? a : String(a))).join(" "), plainOutput(stream), helpWidth(stream))

/** `base` with `log` and `error` rendering what @effect/cli prints by the conventions above. @category constructors */
export const helpConsoleOf = (base: Console.Console): Console.Console => ({
  ...base,
  log: (...args) => Effect.sync(() => void process.stdout.write(`${render(args, process.stdout)}\n`)),
  // @effect/cli prints only its command-line errors through `error` (and then fails with the error).
  error: () => Effect.void,
  unsafe: {
    ...base.unsafe,
    log: (...args) => void process.stdout.write(`${render(args, process.stdout)}\n`),
    error: (...args) => void process.stderr.write(`${render(args, process.stderr)}\n`)
  }
})

/** Runs `effect` with the help console in place of the current one. @category combinators */
export const withHelpConsole = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.consoleWith((base) => Effect.withConsole(effect, helpConsoleOf(base)))
