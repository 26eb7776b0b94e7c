// Every module in src opens with a doc comment whose first sentence says what the module is for.
// The rule, as checked: after an optional `#!` line, the file starts with a `/**` block; its text
// (the leading `*` of each line dropped, `@` tag lines ignored, lines joined by one space) has a first
// sentence — up to the first `.`, `!` or `?` outside backticks that is followed by a space or the
// block's end — of at most 200 characters. More sentences may follow.
import { readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..")
const src = join(root, "src")
const maxSentence = 200

const filesUnder = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const p = join(dir, name)
    return statSync(p).isDirectory() ? filesUnder(p) : /\.(ts|mts)$/.test(name) && !name.endsWith(".d.ts") ? [p] : []
  })

/** The text of the module's opening `/**` block, or `undefined` when the module does not open with one. */
const headerOf = (code: string): string | undefined => {
  const body = code.replace(/^#![^\n]*\n/, "").trimStart()
  if (!body.startsWith("/**")) return undefined
  const end = body.indexOf("*/")
  if (end === -1) return undefined
  return body
    .slice(3, end)
    .split("\n")
    .map((line) => line.replace(/^\s*\*\s?/, "").trim())
    .filter((line) => !line.startsWith("@"))
    .join(" ")
    .replace(/\s+/g, " ")
    .trim()
}

/** The first sentence of a text, or `undefined` when no sentence ends in it. */
const firstSentence = (text: string): string | undefined => {
  let inCode = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (c === "`") inCode = !inCode
    else if (!inCode && ".!?".includes(c) && (i + 1 === text.length || text[i + 1] === " ")) return text.slice(0, i + 1)
  }
  return undefined
}

/** What is wrong with a module's opening comment, or `undefined` when it keeps the rule. */
export const headerProblem = (code: string, max: number = maxSentence): string | undefined => {
  const header = headerOf(code)
  if (header === undefined) return "does not open with a /** comment"
  const sentence = firstSentence(header)
  if (sentence === undefined) return "its opening comment has no sentence ending in . ! or ?"
  if (sentence.length > max) return `its first sentence is ${sentence.length} characters (at most ${max})`
  return undefined
}

describe("module headers", () => {
  it("accepts a short first sentence, after a #! line too, and refuses the rest", () => {
    expect(headerProblem("/** What this is for. More `a.b` detail. */\nexport {}")).toBeUndefined()
    expect(headerProblem("#!/usr/bin/env node\n/**\n * The command.\n */\n")).toBeUndefined()
    // A dot inside backticks does not end the sentence.
    expect(headerProblem("/** Reads `a. b` then stops. */", 10)).toMatch(/first sentence is 24 characters/)
    expect(headerProblem("// A line comment.\nexport {}")).toBe("does not open with a /** comment")
    expect(headerProblem("import x from 'y'\n/** Late. */")).toBe("does not open with a /** comment")
    expect(headerProblem("/** No full stop */")).toMatch(/no sentence/)
    expect(headerProblem(`/** ${"word ".repeat(50)}end. */`)).toMatch(/first sentence is 254 characters/)
  })

  it(`opens every module in src with a first sentence of at most ${maxSentence} characters`, () => {
    const problems = filesUnder(src).flatMap((f) => {
      const problem = headerProblem(readFileSync(f, "utf8"))
      return problem === undefined ? [] : [`${relative(src, f)}: ${problem}`]
    })
    expect(problems).toEqual([])
  })
})
