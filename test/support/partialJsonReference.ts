// The reference readings of JSON prefixes that src/core/wire/PartialJson.ts is held to, written
// another way (regular-expression tokens over the whole prefix, then `JSON.parse`):
// - `repairedPrefix`: the snapshot a prefix should give: the prefix cut back to its last complete
//   value or opening bracket (or its open string value, closed), its containers closed, parsed by
//   `JSON.parse`, unsafe keys dropped as the core's `sanitize` does;
// - `isViablePrefix`: whether some continuation makes the prefix valid JSON, decided by completing it
//   and asking `JSON.parse` (a completion exists exactly for the prefixes of valid texts).
import { sanitize } from "../../src/core/validation/Rules.js"

type Kind = "ws" | "punct" | "string" | "number" | "literal" | "pstring" | "pnumber" | "pliteral"
interface Token {
  readonly kind: Kind
  readonly start: number
  readonly end: number
}

const CHAR = String.raw`(?:[^"\\\u0000-\u001f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})`
const INT = String.raw`-?(?:0|[1-9]\d*)`
// Partial tokens are tried first and must reach the end of the text (`$`): a number there may grow.
const patterns: ReadonlyArray<readonly [Kind, RegExp]> = [
  ["ws", /[ \t\n\r]+/y],
  ["punct", /[{}[\]:,]/y],
  ["string", new RegExp(`"${CHAR}*"`, "y")],
  ["pstring", new RegExp(String.raw`"${CHAR}*(?:\\(?:u[0-9a-fA-F]{0,3})?)?$`, "y")],
  ["pnumber", new RegExp(String.raw`(?:-|${INT}(?:\.\d*)?|${INT}(?:\.\d+)?[eE][+-]?\d*)$`, "y")],
  ["number", new RegExp(String.raw`${INT}(?:\.\d+)?(?:[eE][+-]?\d+)?`, "y")],
  ["literal", /true|false|null/y],
  ["pliteral", /(?:t(?:r(?:u)?)?|f(?:a(?:l(?:s)?)?)?|n(?:u(?:l)?)?)$/y]
]

/** A half-read string: what is complete, and a half-read escape at its end (`\\`, `\\u`, `\\u1`, …). */
const PARTIAL_STRING = new RegExp(String.raw`^("${CHAR}*)(\\(?:u[0-9a-fA-F]{0,3})?)?$`)
const splitPartialString = (text: string): readonly [string, string] => {
  const m = PARTIAL_STRING.exec(text)!
  return [m[1]!, m[2] ?? ""]
}

/** The tokens of a text, or `undefined` where no token (complete, or partial at the end) matches. */
const tokens = (text: string): Array<Token> | undefined => {
  const out: Array<Token> = []
  let at = 0
  while (at < text.length) {
    let matched: Token | undefined
    for (const [kind, re] of patterns) {
      re.lastIndex = at
      const m = re.exec(text)
      if (m !== null && m[0].length > 0) {
        matched = { kind, start: at, end: at + m[0].length }
        break
      }
    }
    if (matched === undefined) return undefined
    if (matched.kind !== "ws") out.push(matched)
    at = matched.end
  }
  return out
}

type Expect = "value" | "value-or-close" | "key" | "key-or-close" | "colon" | "after" | "done"

/** Where a walk over the tokens stands: the open brackets and what comes next. */
interface Walk {
  readonly stack: Array<"{" | "[">
  expect: Expect
}

const closers = (stack: ReadonlyArray<"{" | "[">): string =>
  stack
    .map((b) => (b === "{" ? "}" : "]"))
    .reverse()
    .join("")

/** What comes after a complete value. */
const afterValue = (w: Walk): void => {
  w.expect = w.stack.length === 0 ? "done" : "after"
}

/** Takes one complete token; false when the grammar does not allow it there. */
const step = (w: Walk, kind: Kind, ch: string): boolean => {
  const top = w.stack.at(-1)
  const isValue = kind === "string" || kind === "number" || kind === "literal"
  switch (w.expect) {
    case "value":
    case "value-or-close":
      if (isValue) afterValue(w)
      else if (ch === "{" || ch === "[") {
        w.stack.push(ch)
        w.expect = ch === "{" ? "key-or-close" : "value-or-close"
      } else if (ch === "]" && w.expect === "value-or-close") {
        w.stack.pop()
        afterValue(w)
      } else return false
      return true
    case "key":
    case "key-or-close":
      if (kind === "string") w.expect = "colon"
      else if (ch === "}" && w.expect === "key-or-close") {
        w.stack.pop()
        afterValue(w)
      } else return false
      return true
    case "colon":
      if (ch !== ":") return false
      w.expect = "value"
      return true
    case "after":
      if (ch === ",") w.expect = top === "{" ? "key" : "value"
      else if ((ch === "]" && top === "[") || (ch === "}" && top === "{")) {
        w.stack.pop()
        afterValue(w)
      } else return false
      return true
    case "done":
      return false
  }
}

/**
 * The snapshot `makePartialJson` should give for `prefix`, a prefix of a valid JSON text (`ended`:
 * the text is complete, so a number at its very end is complete too).
 */
export const repairedPrefix = (prefix: string, ended = false): unknown => {
  const toks = tokens(prefix)
  if (toks === undefined) throw new Error("not a prefix of JSON text")
  const w: Walk = { stack: [], expect: "value" }
  let safe: { readonly end: number; readonly closers: string } | undefined
  for (const [i, t] of toks.entries()) {
    const last = i === toks.length - 1
    let kind = t.kind
    if (kind === "pnumber" && ended && /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(prefix.slice(t.start)))
      kind = "number"
    if (kind === "pstring" && last && (w.expect === "value" || w.expect === "value-or-close")) {
      const [body] = splitPartialString(prefix.slice(t.start, t.end))
      return sanitize(JSON.parse(prefix.slice(0, t.start) + body + '"' + closers(w.stack)))
    }
    if (kind === "pstring" || kind === "pnumber" || kind === "pliteral") break
    const ch = prefix.slice(t.start, t.end)
    if (!step(w, kind, ch)) throw new Error("not a prefix of JSON text")
    // Safe to cut after: an opening bracket, or a token that completed a value (not a key, not `,` or `:`).
    if (ch === "{" || ch === "[" || w.expect === "after" || w.expect === "done")
      safe = { end: t.end, closers: closers(w.stack) }
  }
  return safe === undefined ? undefined : sanitize(JSON.parse(prefix.slice(0, safe.end) + safe.closers))
}

const LITERALS = ["true", "false", "null"]

/** The text that completes a half-read token, given the walk before it. */
const tokenCompletion = (w: Walk, kind: Kind, text: string): string => {
  if (kind === "pliteral") return LITERALS.find((l) => l.startsWith(text))!.slice(text.length)
  if (kind === "pnumber") return /[-+.eE]$/.test(text) ? "0" : ""
  // A string: finish its escape, close it; a key also gets its value.
  const [, escape] = splitPartialString(text)
  const rest = escape === "" ? "" : escape === "\\" ? "n" : "0".repeat(6 - escape.length)
  return rest + '"' + (w.expect === "key" || w.expect === "key-or-close" ? ":null" : "")
}

/** Whether some continuation of `text` is valid JSON (`JSON.parse` of its completion decides). */
export const isViablePrefix = (text: string): boolean => {
  const toks = tokens(text)
  if (toks === undefined) return false
  const w: Walk = { stack: [], expect: "value" }
  let completion = ""
  for (const t of toks) {
    const piece = text.slice(t.start, t.end)
    // A partial token reaches the end of the text: it is the last one.
    if (t.kind === "pstring" || t.kind === "pnumber" || t.kind === "pliteral") {
      const isKey = w.expect === "key" || w.expect === "key-or-close"
      if (t.kind !== "pstring" && w.expect !== "value" && w.expect !== "value-or-close") return false
      if (t.kind === "pstring" && !isKey && w.expect !== "value" && w.expect !== "value-or-close") return false
      completion = tokenCompletion(w, t.kind, piece)
      if (isKey) w.expect = "after"
      else afterValue(w)
    } else if (!step(w, t.kind, piece)) return false
  }
  if (w.expect === "value" || w.expect === "done") completion += w.expect === "value" ? "null" : ""
  else if (w.expect === "key") completion += '"k":null'
  else if (w.expect === "colon") completion += ":null"
  completion += closers(w.stack)
  try {
    JSON.parse(text + completion)
    return true
  } catch {
    return false
  }
}
