/**
 * How effect/cli's help reaches the user, made to follow the terminal conventions effect/cli does
 * not. That is plain text (no ANSI colour) under `NO_COLOR` or when the output is not a terminal,
 * lines wrapped to the terminal's width (80 columns when not a terminal), usage lines written `umg
 * <command> …` from the first column, and the version alone (`0.1.0`). effect/cli's report of a
 * rejected command line is not printed: it names neither the flag nor what it allows, and `main`
 * prints its own one-line explanation of the same error (UsageError.ts).
 */
import * as Effect from "effect/Effect"
import { CliOutput } from "effect/cli"

// CSI sequences (colours, styles) as effect/cli writes them.
// eslint-disable-next-line no-control-regex -- matching the ESC that starts them is the point
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
  return fill(indent, `${indent}  `, line.trim().split(/\s+/), width)
}

/** Words laid out from `first` (the start of the first line), each further line starting with `hang`. */
const fill = (first: string, hang: string, words: ReadonlyArray<string>, width: number): Array<string> => {
  const out: Array<string> = []
  let current = first
  let empty = true
  for (const word of words) {
    const next = empty ? `${current}${word}` : `${current} ${word}`
    if (!empty && next.replace(ANSI, "").length > width) {
      out.push(current)
      current = `${hang}${word}`
    } else current = next
    empty = false
  }
  out.push(current)
  return out
}

// A row of a two-column table (`  --model, -m string    model id`): its name column and its text.
const ROW = /^(\s+\S(?:.*?\S)?)(\s{2,})(\S.*)$/

/** One line of help wrapped to `width`; the text of a table row goes on under its own column. */
const wrapHelpLine = (line: string, width: number): Array<string> => {
  if (line.replace(ANSI, "").length <= width) return [line]
  const row = ROW.exec(line)
  if (row === null) return wrapLine(line, width)
  const [, name, gap, text] = row as unknown as [string, string, string, string]
  const column = `${name}${gap}`.replace(ANSI, "").length
  const words = text.trim().split(/\s+/)
  if (column <= 40) return fill(`${name}${gap}`, " ".repeat(column), words, width)
  // A name too wide to share its line (`--log-level <all|trace|…>`): the text goes under it.
  const hang = `${/^\s*/.exec(name)?.[0] ?? ""}      `
  return [name, ...fill(hang, hang, words, width)]
}

/** Help text as it should reach the user. @category rendering */
export const renderHelp = (text: string, plain: boolean, width: number): string => {
  let heading = ""
  return (plain ? text.replace(ANSI, "") : text)
    .split("\n")
    .flatMap((line) => {
      const bare = line.replace(ANSI, "")
      if (bare !== "" && !/^\s/.test(bare)) {
        heading = bare.trim()
        return wrapLine(line, width)
      }
      // The usage line from the first column, as it is typed: `umg video status [flags] <TASK_ID>`.
      if (heading === "USAGE" && bare.trim() !== "") return wrapLine(line.trimStart(), width)
      return wrapHelpLine(line, width)
    })
    .join("\n")
}

const write = (stream: NodeJS.WriteStream, text: string) => Effect.sync(() => void stream.write(`${text}\n`))

/** Presents effect/cli's help, version and rejected command lines by the conventions above. @category constructors */
export const helpPresenter: CliOutput.Presenter = {
  present: (event) => {
    switch (event._tag) {
      case "Help": {
        const plain = plainOutput(process.stdout)
        const help = CliOutput.defaultFormatter({ colors: !plain }).formatHelpDoc(event.helpDoc)
        return write(process.stdout, renderHelp(help, plain, helpWidth(process.stdout)))
      }
      case "Version":
        return write(process.stdout, event.version)
      case "InvalidInvocation":
        // `main` explains the rejected line in one line of its own (stderr, exit 2).
        return Effect.void
    }
  }
}

/** Runs `effect` (effect/cli's `Command.run`) with the help presenter in place of effect/cli's own. @category combinators */
export const withHelpConsole = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.provideService(effect, CliOutput.Presenter, helpPresenter)
