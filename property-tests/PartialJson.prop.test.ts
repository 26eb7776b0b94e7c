// The incremental JSON reader (src/core/wire/PartialJson.ts) against its references
// (test/support/partialJsonReference.ts): for generated JSON texts (any values, whitespace between
// tokens, `__proto__`-style and repeated keys, escapes, numbers in every form) cut into any pieces, each
// snapshot is the reference reading of the text so far and never throws; the final one is `JSON.parse`
// of the text (unsafe keys dropped); snapshots only grow and never change once handed out; and for
// texts with random edits, the reader fails exactly at the first character no continuation can make
// valid, and after `end()` fails exactly when `JSON.parse` does.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { makePartialJson, type PartialJson } from "../src/core/wire/PartialJson.js"
import { sanitize } from "../src/core/validation/Rules.js"
import { isViablePrefix, repairedPrefix } from "../test/support/partialJsonReference.js"

// ---- texts ----

/** A JSON text as a tree of tokens, so that keys can repeat and numbers keep their written form. */
type Node =
  | { readonly t: "obj"; readonly entries: ReadonlyArray<readonly [string, Node]> }
  | { readonly t: "arr"; readonly items: ReadonlyArray<Node> }
  | { readonly t: "raw"; readonly text: string }

const WS = ["", "", "", " ", "\n", "\t", "\r\n  "]

/** Writes a node, with the whitespace `ws` picks between tokens. */
const write = (node: Node, ws: () => string): string => {
  switch (node.t) {
    case "raw":
      return node.text
    case "arr":
      return `[${ws()}${node.items.map((n) => write(n, ws) + ws()).join(`,${ws()}`)}]`
    case "obj":
      return `{${ws()}${node.entries
        .map(([k, n]) => `${JSON.stringify(k)}${ws()}:${ws()}${write(n, ws)}${ws()}`)
        .join(`,${ws()}`)}}`
  }
}

/** Whitespace drawn in turn from a generated list (none when the list is empty). */
const wsFrom = (picks: ReadonlyArray<number>): (() => string) => {
  let i = 0
  return () => (picks.length === 0 ? "" : WS[picks[i++ % picks.length]! % WS.length]!)
}

const fromValue = (v: unknown): Node =>
  Array.isArray(v)
    ? { t: "arr", items: v.map(fromValue) }
    : typeof v === "object" && v !== null
      ? { t: "obj", entries: Object.entries(v).map(([k, x]) => [k, fromValue(x)] as const) }
      : { t: "raw", text: JSON.stringify(v) }

const numberText = fc
  .tuple(
    fc.boolean(),
    fc.oneof(fc.constant("0"), fc.bigInt({ min: 1n, max: 10n ** 20n }).map(String)),
    fc.option(fc.stringMatching(/^[0-9]{1,4}$/), { nil: undefined }),
    fc.option(fc.tuple(fc.constantFrom("e", "E"), fc.constantFrom("", "+", "-"), fc.integer({ min: 0, max: 400 })), {
      nil: undefined
    })
  )
  .map(([neg, int, frac, exp]) => {
    const e = exp === undefined ? "" : `${exp[0]}${exp[1]}${exp[2]}`
    return `${neg ? "-" : ""}${int}${frac === undefined ? "" : `.${frac}`}${e}`
  })

// Strings of any UTF-16 code units (lone surrogates, control characters), written with
// `JSON.stringify`, or with every character as a `\u` escape.
const stringText = fc
  .tuple(
    fc.string({
      unit: fc.oneof(
        fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
        fc.constantFrom('"', "\\", "\n", "é", "😀")
      )
    }),
    fc.boolean()
  )
  .map(([s, escapeAll]) =>
    escapeAll
      ? `"${[...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")}"`
      : JSON.stringify(s)
  )

const keyArb = fc.oneof(
  fc.constantFrom("a", "b", "__proto__", "constructor", "prototype", "0", "10", ""),
  fc.string({ maxLength: 6 })
)

/** Trees with repeated keys, unsafe keys, numbers in every written form, `\u` escapes. */
const treeArb: fc.Arbitrary<Node> = fc.letrec<{ node: Node }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc
      .oneof(numberText, stringText, fc.constantFrom("true", "false", "null"))
      .map((text): Node => ({ t: "raw", text })),
    fc.array(tie("node"), { maxLength: 5 }).map((items): Node => ({ t: "arr", items })),
    fc.array(fc.tuple(keyArb, tie("node")), { maxLength: 5 }).map((entries): Node => ({ t: "obj", entries }))
  )
})).node

/** A JSON text of a generated value, with whitespace between its tokens. */
const textArb = (nodes: fc.Arbitrary<Node>) =>
  fc
    .tuple(nodes, fc.array(fc.nat({ max: 20 }), { maxLength: 30 }), fc.constantFrom("", " ", "\n"))
    .map(([node, picks, outer]) => {
      const ws = wsFrom(picks)
      return outer + write(node, ws) + outer
    })

const valueTexts = textArb(fc.jsonValue({ maxDepth: 4, stringUnit: "binary" }).map(fromValue))
const anyTexts = fc.oneof(valueTexts, textArb(treeArb))

/** A text cut at the given offsets. */
const cut = (text: string, offsets: ReadonlyArray<number>): Array<string> => {
  const cuts = [...new Set(offsets.map((o) => o % (text.length + 1)))].sort((a, b) => a - b)
  const pieces: Array<string> = []
  let from = 0
  for (const c of [...cuts, text.length]) {
    pieces.push(text.slice(from, c))
    from = c
  }
  return pieces
}
const offsetsArb = fc.oneof(fc.array(fc.nat(), { maxLength: 40 }), fc.constant("every" as const))
const piecesOf = (text: string, offsets: ReadonlyArray<number> | "every"): Array<string> =>
  offsets === "every" ? [...text].flatMap((c) => (c.length === 2 ? [c[0]!, c[1]!] : [c])) : cut(text, offsets)

// ---- comparisons ----

/** Deep equality with key order, `Object.is` on leaves, and plain prototypes only. */
const same = (a: unknown, b: unknown): boolean => {
  if (typeof a !== "object" || a === null || typeof b !== "object" || b === null) return Object.is(a, b)
  if (Array.isArray(a) !== Array.isArray(b)) return false
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false
  const ka = Object.keys(a)
  const kb = Object.keys(b)
  if (ka.length !== kb.length || ka.some((k, i) => k !== kb[i])) return false
  return ka.every((k) => same((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
}

/**
 * `next` extends `prev`: `undefined` grows into anything; a string only by appending; an array keeps
 * all its items but the last unchanged, the last one extended, and may gain items; an object keeps
 * its keys, every value unchanged but at most one (the member being read) extended, and may gain
 * keys; a number, boolean or null never changes.
 */
const extendsTo = (prev: unknown, next: unknown): boolean => {
  if (prev === undefined) return true
  if (typeof prev === "string") return typeof next === "string" && next.startsWith(prev)
  if (typeof prev !== "object" || prev === null) return Object.is(prev, next)
  if (typeof next !== "object" || next === null || Array.isArray(prev) !== Array.isArray(next)) return false
  if (Array.isArray(prev)) {
    const n = next as ReadonlyArray<unknown>
    if (n.length < prev.length) return false
    return prev.every((item, i) => (i === prev.length - 1 ? extendsTo(item, n[i]) : same(item, n[i])))
  }
  const p = prev as Record<string, unknown>
  const n = next as Record<string, unknown>
  let grown = 0
  for (const k of Object.keys(p)) {
    if (!(k in n)) return false
    if (same(p[k], n[k])) continue
    if (!extendsTo(p[k], n[k]) || ++grown > 1) return false
  }
  return true
}

const pushAll = (reader: PartialJson, pieces: ReadonlyArray<string>, each: (prefix: string) => void): void => {
  let prefix = ""
  for (const piece of pieces) {
    reader.push(piece)
    prefix += piece
    each(prefix)
  }
}

// ---- properties ----

describe("makePartialJson", () => {
  it("gives the reference snapshot after every piece, and JSON.parse of the text at the end", () => {
    fc.assert(
      fc.property(anyTexts, offsetsArb, (text, offsets) => {
        const reader = makePartialJson()
        pushAll(reader, piecesOf(text, offsets), (prefix) => {
          const got = reader.snapshot()
          const want = repairedPrefix(prefix)
          if (!same(got, want)) expect({ prefix, got }).toEqual({ prefix, got: want })
          expect(reader.error).toBeUndefined()
        })
        reader.end()
        expect(reader.error).toBeUndefined()
        expect(reader.done).toBe(true)
        const final = reader.snapshot()
        if (!same(final, sanitize(JSON.parse(text)))) expect(final).toEqual(sanitize(JSON.parse(text)))
      }),
      { seed: 3401 }
    )
  })

  it("only grows its snapshots, and never changes one it handed out", () => {
    fc.assert(
      fc.property(valueTexts, offsetsArb, (text, offsets) => {
        const reader = makePartialJson()
        const handedOut: Array<readonly [unknown, unknown]> = []
        let prev: unknown = undefined
        pushAll(reader, piecesOf(text, offsets), () => {
          const next = reader.snapshot()
          if (!extendsTo(prev, next)) expect({ next }).toEqual({ next: `an extension of ${JSON.stringify(prev)}` })
          handedOut.push([next, structuredClone(next)])
          prev = next
        })
        for (const [snapshot, copy] of handedOut) expect(same(snapshot, copy)).toBe(true)
      }),
      { seed: 3402 }
    )
  })

  it("fails exactly at the first character no continuation makes valid, and at end() exactly when JSON.parse does", () => {
    const edit = fc.tuple(
      fc.nat(),
      fc.constantFrom("insert", "delete", "replace"),
      fc.constantFrom(...'{}[]:,"\\ -+.0123456789eEtrufalsn\u0001x')
    )
    fc.assert(
      fc.property(anyTexts, fc.array(edit, { minLength: 1, maxLength: 3 }), offsetsArb, (valid, edits, offsets) => {
        let text = valid
        for (const [at, kind, ch] of edits) {
          const i = at % (text.length + 1)
          text =
            kind === "insert"
              ? text.slice(0, i) + ch + text.slice(i)
              : text.slice(0, i) + (kind === "replace" ? ch : "") + text.slice(i + 1)
        }
        let firstBad: number | undefined
        for (let k = 0; k <= text.length && firstBad === undefined; k++)
          if (!isViablePrefix(text.slice(0, k))) firstBad = k - 1
        const reader = makePartialJson()
        pushAll(reader, piecesOf(text, offsets), () => void reader.snapshot())
        expect(reader.error?.offset).toBe(firstBad)
        if (firstBad !== undefined) expect(reader.error?.reason).toBe("syntax")
        reader.end()
        let parsed: { readonly value: unknown } | undefined
        try {
          parsed = { value: JSON.parse(text) }
        } catch {
          parsed = undefined
        }
        expect(reader.error === undefined).toBe(parsed !== undefined)
        expect(reader.done).toBe(parsed !== undefined)
        if (parsed !== undefined) expect(same(reader.snapshot(), sanitize(parsed.value))).toBe(true)
      }),
      { seed: 3403 }
    )
  })
})
