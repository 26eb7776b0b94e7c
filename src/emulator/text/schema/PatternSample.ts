/**
 * Strings that match a JSON-schema `pattern`: a small generator for the common regex subset (anchors,
 * literals, classes, escapes, quantifiers, groups, alternation), bounded in length and work.
 *
 * The pattern is parsed into a tree; a string of a wanted length is built from the tree, each
 * quantifier repeated as often as the length needs. Outside the subset (lookarounds, back-references,
 * `\p{…}`) the generator reads lookarounds as empty and `\p{…}` as letters or digits, and the string
 * is then checked with `new RegExp(pattern, "u")` (short strings only: a check never backtracks long).
 */

/** Code points a node may stand for, as sorted inclusive ranges. */
type Ranges = ReadonlyArray<readonly [number, number]>

type Node =
  | { readonly t: "set"; readonly ranges: Ranges }
  | { readonly t: "seq"; readonly items: ReadonlyArray<Node> }
  | { readonly t: "alt"; readonly options: ReadonlyArray<Node> }
  | { readonly t: "rep"; readonly node: Node; readonly min: number; readonly max: number }
  | { readonly t: "assert"; readonly kind: "^" | "$" | "other" }

/** Longest string the generator builds, largest `{n,m}` it reads, and steps it may take. */
const MAX_OUT = 8192
const MAX_REPEAT = 10_000
const MAX_STEPS = 50_000
/** Strings longer than this are never checked with RegExp (a hostile pattern backtracks exponentially). */
const MAX_CHECKED = 24

const MAX_CP = 0x10ffff
const r = (a: string, b = a): readonly [number, number] => [a.codePointAt(0)!, b.codePointAt(0)!]
const DIGIT: Ranges = [r("0", "9")]
const WORD: Ranges = [r("0", "9"), r("A", "Z"), r("_"), r("a", "z")]
const SPACE: Ranges = [
  [9, 13],
  [32, 32],
  [160, 160],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff]
]
const LINE_ENDS: Ranges = [
  [10, 10],
  [13, 13],
  [0x2028, 0x2029]
]
const LETTERS: Ranges = [r("A", "Z"), r("a", "z")]

/** Sorted, merged ranges. */
const normalize = (ranges: Ranges): Ranges => {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0])
  const out: Array<[number, number]> = []
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1]
    if (last !== undefined && lo <= last[1] + 1) last[1] = Math.max(last[1], hi)
    else out.push([lo, hi])
  }
  return out
}

/** The code points not in `ranges`. */
const complement = (ranges: Ranges): Ranges => {
  const out: Array<[number, number]> = []
  let next = 0
  for (const [lo, hi] of normalize(ranges)) {
    if (lo > next) out.push([next, lo - 1])
    next = hi + 1
  }
  if (next <= MAX_CP) out.push([next, MAX_CP])
  return out
}

/** Thrown inside the parser and generator: the pattern is outside what they read, or too costly. */
class Unsupported extends Error {}
const unsupported = (why: string): never => {
  throw new Unsupported(why)
}

/** How the parser reads what the subset leaves out: refuse (exact mode) or approximate (lenient mode). */
interface ParseMode {
  readonly lenient: boolean
}

/** A recursive-descent parser over the pattern's code points. */
class Parser {
  private i = 0
  private readonly cps: ReadonlyArray<string>
  constructor(
    pattern: string,
    private readonly mode: ParseMode
  ) {
    this.cps = [...pattern]
  }

  parse(): Node {
    const node = this.alternation()
    if (this.i < this.cps.length) unsupported(`unexpected ${this.cps[this.i]}`)
    return node
  }

  private peek(k = 0): string | undefined {
    return this.cps[this.i + k]
  }

  private alternation(): Node {
    const options = [this.sequence()]
    while (this.peek() === "|") {
      this.i++
      options.push(this.sequence())
    }
    return options.length === 1 ? options[0]! : { t: "alt", options }
  }

  private sequence(): Node {
    const items: Array<Node> = []
    for (let c = this.peek(); c !== undefined && c !== "|" && c !== ")"; c = this.peek())
      items.push(this.quantified(this.atom()))
    return items.length === 1 ? items[0]! : { t: "seq", items }
  }

  private quantified(node: Node): Node {
    const c = this.peek()
    let min: number, max: number
    if (c === "*") [min, max] = [0, Infinity]
    else if (c === "+") [min, max] = [1, Infinity]
    else if (c === "?") [min, max] = [0, 1]
    else if (c === "{") {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.cps.slice(this.i, this.i + 24).join(""))
      if (m === null) return unsupported("a lone {")
      min = Number(m[1])
      max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3])
      if (min > MAX_REPEAT || (max !== Infinity && max > MAX_REPEAT) || max < min) unsupported("repeat bounds")
      this.i += m[0].length - 1
    } else return node
    this.i++
    if (this.peek() === "?") this.i++ // lazy: the same strings match
    if (node.t === "assert") unsupported("a quantified assertion")
    return { t: "rep", node, min, max }
  }

  private atom(): Node {
    const c = this.cps[this.i++]!
    switch (c) {
      case "(":
        return this.group()
      case "[":
        return { t: "set", ranges: this.charClass() }
      case ".":
        return { t: "set", ranges: complement(LINE_ENDS) }
      case "^":
      case "$":
        return { t: "assert", kind: c }
      case "\\":
        return this.escape(false)
      case "*":
      case "+":
      case "?":
      case "{":
      case "}":
      case "]":
      case ")":
        return unsupported(`a lone ${c}`)
      default:
        return { t: "set", ranges: [[c.codePointAt(0)!, c.codePointAt(0)!]] }
    }
  }

  private group(): Node {
    let lookaround = false
    if (this.peek() === "?") {
      const next = this.peek(1)
      if (next === ":") this.i += 2
      else if (next === "<" && this.peek(2) !== "=" && this.peek(2) !== "!") {
        const close = this.cps.indexOf(">", this.i)
        if (close < 0) unsupported("a group name")
        this.i = close + 1
      } else if (next === "=" || next === "!" || next === "<") {
        if (!this.mode.lenient) unsupported("a lookaround")
        lookaround = true
        this.i += next === "<" ? 3 : 2
      } else unsupported("a group modifier")
    }
    const inner = this.alternation()
    if (this.cps[this.i++] !== ")") unsupported("an unclosed group")
    return lookaround ? { t: "assert", kind: "other" } : inner
  }

  /** An escape after `\`: a class (`\d`), an assertion (`\b`) or one code point. */
  private escape(inClass: boolean): Node {
    const c = this.cps[this.i++]
    if (c === undefined) return unsupported("a trailing backslash")
    const set = (ranges: Ranges): Node => ({ t: "set", ranges })
    const one = (cp: number): Node => set([[cp, cp]])
    switch (c) {
      case "d":
        return set(DIGIT)
      case "D":
        return set(complement(DIGIT))
      case "w":
        return set(WORD)
      case "W":
        return set(complement(WORD))
      case "s":
        return set(SPACE)
      case "S":
        return set(complement(SPACE))
      case "b":
        return inClass ? one(8) : { t: "assert", kind: "other" }
      case "B":
        return { t: "assert", kind: "other" }
      case "n":
        return one(10)
      case "r":
        return one(13)
      case "t":
        return one(9)
      case "f":
        return one(12)
      case "v":
        return one(11)
      case "0":
        return /\d/.test(this.peek() ?? "") ? unsupported("an octal escape") : one(0)
      case "x":
      case "u":
        return one(this.hexEscape(c))
      case "p":
      case "P":
        return this.property(c === "P")
      default:
        if (/[1-9k]/.test(c)) return unsupported("a back-reference")
        if (/[A-Za-z]/.test(c)) return unsupported(`the escape \\${c}`)
        return one(c.codePointAt(0)!)
    }
  }

  private hexEscape(kind: "x" | "u"): number {
    const rest = this.cps.slice(this.i, this.i + 10).join("")
    const m = kind === "x" ? /^[0-9a-fA-F]{2}/.exec(rest) : /^(?:\{([0-9a-fA-F]{1,6})\}|[0-9a-fA-F]{4})/.exec(rest)
    if (m === null) return unsupported(`a malformed \\${kind} escape`)
    this.i += m[0].length
    const cp = parseInt(m[1] ?? m[0], 16)
    return cp > MAX_CP ? unsupported("a code point past U+10FFFF") : cp
  }

  /** `\p{…}`: approximated (lenient mode only) as digits for number classes, else letters. */
  private property(negated: boolean): Node {
    const close = this.cps.indexOf("}", this.i)
    if (this.peek() !== "{" || close < 0) return unsupported("a malformed \\p")
    const name = this.cps.slice(this.i + 1, close).join("")
    this.i = close + 1
    if (!this.mode.lenient || negated) return unsupported("a Unicode property")
    return { t: "set", ranges: /^(N|Nd|Number|Decimal_Number)$/.test(name) ? DIGIT : LETTERS }
  }

  /** A `[…]` class after its `[`: its code points (a negated class as the complement). */
  private charClass(): Ranges {
    const negated = this.peek() === "^"
    if (negated) this.i++
    const ranges: Array<readonly [number, number]> = []
    const item = (): Ranges | number => {
      const c = this.cps[this.i++]
      if (c === undefined) return unsupported("an unclosed class")
      if (c !== "\\") return c.codePointAt(0)!
      const e = this.escape(true)
      if (e.t !== "set") return unsupported("an assertion in a class")
      return e.ranges.length === 1 && e.ranges[0]![0] === e.ranges[0]![1] ? e.ranges[0]![0] : e.ranges
    }
    while (this.peek() !== "]") {
      const lo = item()
      if (this.peek() === "-" && this.peek(1) !== "]" && this.peek(1) !== undefined) {
        this.i++
        const hi = item()
        if (typeof lo !== "number" || typeof hi !== "number" || hi < lo) unsupported("a class range")
        ranges.push([lo as number, hi as number])
      } else if (typeof lo === "number") ranges.push([lo, lo])
      else ranges.push(...lo)
    }
    this.i++
    const set = normalize(ranges)
    if (negated) return complement(set)
    return set.length === 0 ? unsupported("an empty class") : set
  }
}

/** Shortest and longest strings (in code points) a node matches; Infinity when unbounded. */
const lengths = (node: Node, memo: Map<Node, readonly [number, number]>): readonly [number, number] => {
  const known = memo.get(node)
  if (known !== undefined) return known
  const cap = (n: number): number => (n > MAX_OUT * 8 ? Infinity : n)
  let out: readonly [number, number]
  switch (node.t) {
    case "set":
      out = [1, 1]
      break
    case "assert":
      out = [0, 0]
      break
    case "seq": {
      const each = node.items.map((n) => lengths(n, memo))
      out = [cap(each.reduce((s, [lo]) => s + lo, 0)), cap(each.reduce((s, [, hi]) => s + hi, 0))]
      break
    }
    case "alt": {
      const each = node.options.map((n) => lengths(n, memo))
      out = [Math.min(...each.map(([lo]) => lo)), Math.max(...each.map(([, hi]) => hi))]
      break
    }
    case "rep": {
      const [lo, hi] = lengths(node.node, memo)
      out = [cap(lo * node.min), hi === 0 ? 0 : cap(hi * node.max)]
      break
    }
  }
  memo.set(node, out)
  return out
}

/** The fewest generator steps a node takes (repeats at their minimum), saturating past the budget. */
const minSteps = (node: Node): number => {
  const sat = (n: number): number => Math.min(n, MAX_STEPS + 1)
  switch (node.t) {
    case "set":
    case "assert":
      return 1
    case "seq":
      return sat(node.items.reduce((sum, n) => sat(sum + minSteps(n)), 1))
    case "alt":
      return sat(1 + Math.min(...node.options.map(minSteps)))
    case "rep":
      return sat(1 + node.min * minSteps(node.node))
  }
}

/** Preferred characters, tried in this order of groups: a set takes a random one of the first group it holds. */
const PREFERRED = ["abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789", "-_", " ", ".@:/+#"]

const inRanges = (ranges: Ranges, cp: number): boolean => ranges.some(([lo, hi]) => cp >= lo && cp <= hi)

/**
 * One character of `ranges`: a preferred one when the set holds any (from the first group it holds,
 * or from all of them when `mixed`), else its first printable code point.
 */
const pickChar = (ranges: Ranges, rnd: () => number, mixed: boolean): string => {
  const groups = mixed ? [PREFERRED.join("")] : PREFERRED
  for (const group of groups) {
    const members = [...group].filter((ch) => inRanges(ranges, ch.codePointAt(0)!))
    if (members.length > 0) return members[Math.floor(rnd() * members.length)]!
  }
  const printable = ranges.find(([, hi]) => hi >= 0x20) ?? ranges[0]!
  const cp = Math.max(printable[0], Math.min(printable[1], 0x20))
  return String.fromCodePoint(cp >= 0xd800 && cp <= 0xdfff ? Math.min(printable[1], 0xe000) : cp)
}

/** Builds a string of `node` near `want` code points, within the step budget (`mixed`: see `pickChar`). */
const generate = (node: Node, want: number, rnd: () => number, mixed: boolean): Array<string> => {
  const memo = new Map<Node, readonly [number, number]>()
  const out: Array<string> = []
  let steps = 0
  const go = (n: Node, target: number): void => {
    if (++steps > MAX_STEPS || out.length > MAX_OUT) unsupported("too costly")
    const [lo, hi] = lengths(n, memo)
    const w = Math.max(lo, Math.min(hi, target))
    switch (n.t) {
      case "set":
        return void out.push(pickChar(n.ranges, rnd, mixed))
      case "assert":
        return
      case "seq": {
        let extra = w - lo
        for (const item of n.items) {
          const [a, b] = lengths(item, memo)
          const give = Math.min(extra, b - a)
          go(item, a + give)
          extra -= give
        }
        return
      }
      case "alt": {
        const fits = n.options.filter((o) => {
          const [a, b] = lengths(o, memo)
          return a <= w && w <= b
        })
        const pool = fits.length > 0 ? fits : n.options
        const best = fits.length > 0 ? pool[Math.floor(rnd() * pool.length)]! : nearest(pool, w, memo)
        return go(best, w)
      }
      case "rep": {
        const [a, b] = lengths(n.node, memo)
        let k = b === 0 ? n.min : b === Infinity ? (w > 0 ? 1 : 0) : Math.ceil(w / b)
        if (a > 0) k = Math.min(k, Math.floor(w / a))
        k = Math.max(n.min, Math.min(n.max, k))
        const start = out.length
        for (let i = 0; i < k; i++) go(n.node, Math.ceil((w - (out.length - start)) / (k - i)))
        return
      }
    }
  }
  go(node, want)
  return out
}

/** The option whose length range lies nearest to `want`. */
const nearest = (options: ReadonlyArray<Node>, want: number, memo: Map<Node, readonly [number, number]>): Node => {
  const distance = (o: Node): number => {
    const [a, b] = lengths(o, memo)
    return want < a ? a - want : want - b
  }
  return options.reduce((best, o) => (distance(o) < distance(best) ? o : best))
}

/** Whether only `^` opening and `$` closing a top-level branch assert anything: then a built string matches as built. */
const exactTree = (root: Node): boolean => {
  const branches = root.t === "alt" ? root.options : [root]
  const hasAssert = (n: Node): boolean =>
    n.t === "assert" ||
    (n.t === "seq" && n.items.some(hasAssert)) ||
    (n.t === "alt" && n.options.some(hasAssert)) ||
    (n.t === "rep" && hasAssert(n.node))
  return branches.every((b) => {
    const items = b.t === "seq" ? b.items : [b]
    return items.every(
      (n, i) =>
        !hasAssert(n) ||
        (n.t === "assert" && ((n.kind === "^" && i === 0) || (n.kind === "$" && i === items.length - 1)))
    )
  })
}

const compiled = (pattern: string): RegExp | undefined => {
  try {
    return new RegExp(pattern, "u")
  } catch {
    return undefined
  }
}

/** Whether `re` matches `s`, tried only for short strings; `undefined` when `s` is too long to try. */
const check = (re: RegExp, s: string): boolean | undefined => ([...s].length > MAX_CHECKED ? undefined : re.test(s))

/** Length bounds a string must keep (code points). */
export interface LengthBounds {
  readonly min: number
  readonly max: number
}

/**
 * A string matching `pattern` within `bounds` where one can be built, else one matching `pattern`
 * only, else `undefined` (an invalid pattern, or one the generator cannot satisfy: the caller keeps
 * its own string). `preferred` is the length aimed at when the pattern and bounds leave a choice.
 */
export const patternString = (
  pattern: string,
  bounds: LengthBounds,
  preferred: number,
  rnd: () => number
): string | undefined => {
  const re = compiled(pattern)
  if (re === undefined) return undefined
  // The exact subset first; the approximations only for a pattern outside it.
  for (const lenient of [false, true]) {
    let tree: Node
    try {
      tree = new Parser(pattern, { lenient }).parse()
    } catch {
      continue
    }
    if (minSteps(tree) > MAX_STEPS) return undefined
    const exact = !lenient && exactTree(tree)
    const built = buildWithin(tree, re, exact, lenient, bounds, preferred, rnd)
    if (built?.fits === true) return built.s
    // An unanchored pattern matches inside a longer string: letters around the match reach the lengths.
    const around = padded(tree)
    const wider = around === undefined ? undefined : buildWithin(around, re, exact, lenient, bounds, preferred, rnd)
    return wider?.fits === true ? wider.s : built?.s
  }
  return undefined
}

/** `tree` with any letters before it unless it opens with `^`, and after it unless it closes with `$`. */
const padded = (tree: Node): Node | undefined => {
  if (tree.t === "alt") return undefined
  const items = tree.t === "seq" ? tree.items : [tree]
  const first = items[0]
  const last = items[items.length - 1]
  const open = !(first?.t === "assert" && first.kind === "^")
  const close = !(last?.t === "assert" && last.kind === "$")
  if (!open && !close) return undefined
  const pad: Node = { t: "rep", node: { t: "set", ranges: [r("a", "z")] }, min: 0, max: Infinity }
  return { t: "seq", items: [...(open ? [pad] : []), tree, ...(close ? [pad] : [])] }
}

/**
 * A string of `tree` (`fits`: within `bounds`; tried at a few lengths), or `undefined` when none
 * was seen to match or the generator's budget ran out.
 */
const buildWithin = (
  tree: Node,
  re: RegExp,
  exact: boolean,
  lenient: boolean,
  bounds: LengthBounds,
  preferred: number,
  rnd: () => number
): { readonly s: string; readonly fits: boolean } | undefined => {
  const want = Math.max(bounds.min, Math.min(bounds.max, preferred))
  let fallback: string | undefined
  for (const target of [want, bounds.min, bounds.max, want + 1, want + 2, want - 1]) {
    if (!Number.isFinite(target) || target < 0 || target > MAX_OUT) continue
    let s: string
    try {
      s = generate(tree, target, rnd, lenient).join("")
    } catch {
      return undefined
    }
    // A built string of the exact subset matches by construction; an approximated one must be seen to match.
    const verdict = exact ? true : check(re, s)
    if (verdict === false || (lenient && verdict !== true)) continue
    const n = [...s].length
    if (n >= bounds.min && n <= bounds.max) return { s, fits: true }
    fallback ??= s
  }
  return fallback === undefined ? undefined : { s: fallback, fits: false }
}

/** Whether `pattern` matches `s`, tried only when `s` is short (an invalid pattern never matches). */
export const matchesShort = (pattern: string, s: string): boolean => {
  const re = compiled(pattern)
  return re !== undefined && check(re, s) === true
}
