/**
 * An incremental reader of JSON text that arrives in pieces (a tool call's streamed arguments, a
 * structured answer): each piece is read once, and the value read so far can be asked for at any time.
 *
 * What `snapshot()` gives, for the text pushed so far:
 * - the value of that text with every open string, array and object closed;
 * - a string shows the characters read so far (a half-read escape such as `\u00` is left out until
 *   it is complete);
 * - an object member appears once its key is complete and its value has begun to show: a string, array
 *   or object value as soon as it opens, a number, `true`, `false` or `null` once complete. An
 *   unfinished key (and its value) is left out, as is a key whose value has not begun;
 * - a number appears only once it cannot grow, that is once a character that ends it (whitespace,
 *   `,`, `]`, `}`) has been read, or, for a number that is the whole text, at `end()`. So `[1, 2` is
 *   `[1]` and `12` alone is `undefined` until `end()`;
 * - `undefined` while no value has begun to show;
 * - keys `__proto__`, `constructor` and `prototype` are read and their members left out, as the
 *   core's decoders drop them, so a value never carries a key that could pollute an object it is
 *   merged into; a key given twice keeps its last value, as `JSON.parse` does.
 *
 * Once the text is complete the snapshot equals `JSON.parse` of it (without the keys above), and
 * `done` is true. Text that no continuation could make valid JSON is an error: `error` is set at the
 * first character that makes it so, the snapshot stays the value of the text before that character,
 * and later pushes are ignored. So are pieces past the size bound and nesting past the depth bound.
 * Nothing is thrown.
 *
 * Cost: each character is read once, so all pushes together cost O(total length). A snapshot is
 * built only when asked for and only when something visible changed since the last one; it shares
 * every finished string, array and object with earlier snapshots and copies only the arrays and
 * objects still open on the way to the growing end, each once (a shallow copy: its own members, not
 * what is below them). So a snapshot costs O(members of the open containers): small for nested
 * arguments, as much as the text for one flat object of thousands of keys. A snapshot once handed
 * out never changes.
 */
import * as Data from "effect/Data"
import { defaultMaxJsonDepth } from "./JsonSafety.js"

/**
 * Why the text cannot be read: `syntax` (no continuation makes it JSON), `truncated` (`end()` came
 * before the value was complete), `too-deep` or `too-large` (a bound of `PartialJsonLimits`).
 * `offset` is the index of the first character in error (for `truncated` and `too-large`, the text's
 * length, or the bound). The message never quotes more than that one character.
 * @category errors
 */
export class PartialJsonError extends Data.TaggedError("PartialJsonError")<{
  readonly reason: "syntax" | "truncated" | "too-deep" | "too-large"
  readonly offset: number
  readonly message: string
}> {}

/**
 * Bounds of one reader: `maxDepth` the deepest nesting of arrays and objects (a top-level object is
 * depth 1; default `defaultMaxJsonDepth`, 64, as the decoders), `maxLength` the characters it takes
 * in all (default 32 Mi).
 * @category models
 */
export interface PartialJsonLimits {
  readonly maxDepth?: number
  readonly maxLength?: number
}

/** The default `maxLength` of a reader, in UTF-16 code units. @category models */
export const defaultMaxPartialJsonLength = 32 * 1024 * 1024

/** An incremental reader (see the module's documentation for what its snapshot holds). @category models */
export interface PartialJson {
  /** Reads one more piece of the text. Ignored once `error` is set. */
  readonly push: (text: string) => void
  /** Says the text is complete: a number that is the whole text is then complete; an unfinished value is an error (`truncated`). */
  readonly end: () => void
  /** The value of the text so far (see the module's documentation). */
  readonly snapshot: () => unknown
  /** Whether a complete value has been read (only whitespace may follow). */
  readonly done: boolean
  /** Set, and kept, once the text cannot be JSON or passes a bound. */
  readonly error: PartialJsonError | undefined
  /** The characters pushed so far (all of them, read or not). */
  readonly length: number
}

// What the reader expects next.
const VALUE = 0 // a value (`]` too, right after `[`)
const KEY = 1 // a key (`}` too, right after `{`)
const COLON = 2
const AFTER = 3 // `,` or the open container's closer
const STRING = 4 // inside a string (a key or a value)
const NUMBER = 5
const LITERAL = 6 // inside `true`, `false` or `null`
const DONE = 7 // whitespace only
const FAILED = 8

// Where a number is: after `-`, `0`, more digits, `.`, fraction digits, `e`, the exponent's sign, its digits.
const N_MINUS = 0
const N_ZERO = 1
const N_INT = 2
const N_DOT = 3
const N_FRAC = 4
const N_E = 5
const N_ESIGN = 6
const N_EXP = 7

const UNSAFE_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"])

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  "\\": "\\",
  "/": "/",
  b: "\b",
  f: "\f",
  n: "\n",
  r: "\r",
  t: "\t"
}

const isWhitespace = (c: number): boolean => c === 32 || c === 10 || c === 13 || c === 9
const isDigit = (c: number): boolean => c >= 48 && c <= 57

const hexValue = (c: number): number =>
  c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : c >= 65 && c <= 70 ? c - 55 : -1

/** A character as the error messages show it: JSON-quoted, so a control character is visible. */
const shown = (text: string, i: number): string => JSON.stringify(text.charAt(i))

/** An array or object still open, with its finished members. */
interface Frame {
  readonly isArray: boolean
  /** Its members; handed out by a snapshot when `shared`, then copied before the next change. */
  members: Array<unknown> | Record<string, unknown>
  shared: boolean
  /**
   * Whether `members` holds the member still being read, as the last snapshot showed it (an array's
   * last item, an object's member under `key`): the next snapshot or the finished value replaces it.
   */
  slot: boolean
  /** Objects: the key of the member being read, and whether it is one whose member is left out. */
  key: string
  drop: boolean
}

/** A marker for "no value shows yet" in a snapshot under construction. */
const NONE: unique symbol = Symbol("none")

class Reader implements PartialJson {
  private mode: number = VALUE
  private modeAtFailure: number = VALUE
  private closeOk = false
  private readonly stack: Array<Frame> = []
  private failure: PartialJsonError | undefined = undefined
  private pushed = 0
  // The string being read: its text so far, whether it is a key, and a half-read escape (0: none,
  // 1: after `\`, 2–5: after `\u` and that many hex digits less 2, their value in `code`).
  private str = ""
  private isKey = false
  private escape = 0
  private code = 0
  // The number being read: its text from earlier pieces, where it starts in this piece, its state.
  private numText = ""
  private numStart = 0
  private numState = N_MINUS
  // The literal being read and how much of it has been read.
  private word = ""
  private wordAt = 0
  private root: unknown = undefined
  private cached: unknown = undefined
  private dirty = false

  constructor(
    private readonly maxDepth: number,
    private readonly maxLength: number
  ) {}

  get done(): boolean {
    return this.mode === DONE
  }
  get error(): PartialJsonError | undefined {
    return this.failure
  }
  get length(): number {
    return this.pushed
  }

  readonly push = (text: string): void => {
    if (this.mode === FAILED) return
    const base = this.pushed
    this.pushed += text.length
    if (this.pushed > this.maxLength) {
      this.fail("too-large", this.maxLength, `the text is longer than ${this.maxLength} characters (the size bound)`)
      return
    }
    const n = text.length
    let i = 0
    while (i < n) {
      const mode = this.mode
      if (mode === STRING) i = this.readString(text, i, base)
      else if (mode === NUMBER) i = this.readNumber(text, i, base)
      else if (mode === LITERAL) i = this.readLiteral(text, i, base)
      else if (mode === FAILED) return
      else i = this.readStructure(text, i, base)
    }
    if (this.mode === NUMBER) {
      this.numText += text.slice(this.numStart)
      this.numStart = 0
    }
  }

  readonly end = (): void => {
    if (this.mode === FAILED || this.mode === DONE) return
    if (this.mode === NUMBER && this.stack.length === 0 && this.numberMayEnd()) {
      this.attach(Number(this.numText))
      return
    }
    this.fail("truncated", this.pushed, "the text ended before the value was complete")
  }

  readonly snapshot = (): unknown => {
    if (!this.dirty) return this.cached
    this.dirty = false
    const stack = this.stack
    // A failed reader shows what it read before the character in error.
    const mode = this.mode === FAILED ? this.modeAtFailure : this.mode
    let child: unknown = mode === STRING && !this.isKey ? this.str : NONE
    if (stack.length === 0) return (this.cached = child === NONE ? this.root : child)
    // Each open container on the way out is copied (if a snapshot holds it), given its growing
    // member, and handed out: one shallow copy per container per snapshot.
    for (let d = stack.length - 1; d >= 0; d--) {
      const f = stack[d]!
      if (child !== NONE && !(!f.isArray && f.drop)) this.place(f, child)
      f.shared = true
      child = f.members
    }
    return (this.cached = child)
  }

  private fail(reason: PartialJsonError["reason"], offset: number, message: string): void {
    this.modeAtFailure = this.mode
    this.mode = FAILED
    this.failure = new PartialJsonError({ reason, offset, message })
  }

  private syntax(text: string, i: number, base: number, expected: string): number {
    this.fail("syntax", base + i, `unexpected ${shown(text, i)} at offset ${base + i}: expected ${expected}`)
    return text.length
  }

  /** Adds a finished value to the open container (or makes it the whole value). */
  private attach(value: unknown): void {
    // A string, array or object shows from its opening on, and each change since set `dirty`: its
    // closing changes nothing visible, so the next snapshot is the last one (the same reference).
    if (typeof value !== "string" && (typeof value !== "object" || value === null)) this.dirty = true
    const f = this.stack.at(-1)
    if (f === undefined) {
      this.root = value
      this.mode = DONE
      return
    }
    this.mode = AFTER
    if (f.isArray || !f.drop) this.place(f, value)
    f.slot = false
  }

  /** Puts the member being read into a container's members (copied first if a snapshot holds them). */
  private place(f: Frame, value: unknown): void {
    if (f.shared) {
      f.members = f.isArray ? (f.members as Array<unknown>).slice() : { ...f.members }
      f.shared = false
    }
    if (f.isArray) {
      const items = f.members as Array<unknown>
      if (f.slot) items[items.length - 1] = value
      else items.push(value)
    } else (f.members as Record<string, unknown>)[f.key] = value
    f.slot = true
  }

  private open(isArray: boolean, text: string, i: number, base: number): number {
    if (this.stack.length >= this.maxDepth) {
      this.fail("too-deep", base + i, `nesting deeper than ${this.maxDepth} levels (the JSON depth bound)`)
      return text.length
    }
    this.stack.push({ isArray, members: isArray ? [] : {}, shared: false, slot: false, key: "", drop: false })
    this.mode = isArray ? VALUE : KEY
    this.closeOk = true
    this.dirty = true
    return i + 1
  }

  private close(text: string, i: number, base: number, isArray: boolean): number {
    const f = this.stack.at(-1)
    if (f === undefined || f.isArray !== isArray) return this.syntax(text, i, base, this.expected())
    this.stack.pop()
    this.attach(f.members)
    return i + 1
  }

  /** What the reader expects, for error messages. */
  private expected(): string {
    const top = this.stack.at(-1)
    switch (this.mode) {
      case VALUE:
        return `a value (an object, array, string, number, true, false or null)${this.closeOk ? ' or "]"' : ""}`
      case KEY:
        return `a key (a string)${this.closeOk ? ' or "}"' : ""}`
      case COLON:
        return '":" after the key'
      case AFTER:
        return top?.isArray === true ? '"," or "]"' : '"," or "}"'
      default:
        return "nothing but whitespace after the value"
    }
  }

  /** Reads whitespace and one structural character (or the first of a string, number or literal). */
  private readStructure(text: string, i: number, base: number): number {
    const n = text.length
    let c = text.charCodeAt(i)
    while (isWhitespace(c)) {
      if (++i === n) return i
      c = text.charCodeAt(i)
    }
    const mode = this.mode
    if (mode === VALUE) return this.startValue(text, i, base, c)
    if (mode === KEY) {
      if (c === 34) return this.startString(true, i)
      if (c === 125 && this.closeOk) return this.close(text, i, base, false)
    } else if (mode === COLON) {
      if (c === 58) {
        this.mode = VALUE
        this.closeOk = false
        return i + 1
      }
    } else if (mode === AFTER) {
      if (c === 44) {
        this.mode = this.stack.at(-1)!.isArray ? VALUE : KEY
        this.closeOk = false
        return i + 1
      }
      if (c === 93) return this.close(text, i, base, true)
      if (c === 125) return this.close(text, i, base, false)
    }
    return this.syntax(text, i, base, this.expected())
  }

  private startValue(text: string, i: number, base: number, c: number): number {
    switch (c) {
      case 123:
        return this.open(false, text, i, base)
      case 91:
        return this.open(true, text, i, base)
      case 34:
        this.dirty = true
        return this.startString(false, i)
      case 116:
        return this.startLiteral("true", i)
      case 102:
        return this.startLiteral("false", i)
      case 110:
        return this.startLiteral("null", i)
      case 45:
        return this.startNumber(N_MINUS, i)
      case 48:
        return this.startNumber(N_ZERO, i)
      case 93:
        if (this.closeOk) return this.close(text, i, base, true)
        break
      default:
        if (c >= 49 && c <= 57) return this.startNumber(N_INT, i)
    }
    return this.syntax(text, i, base, this.expected())
  }

  private startString(isKey: boolean, i: number): number {
    this.mode = STRING
    this.isKey = isKey
    this.str = ""
    this.escape = 0
    return i + 1
  }

  private startLiteral(word: string, i: number): number {
    this.mode = LITERAL
    this.word = word
    this.wordAt = 1
    return i + 1
  }

  private startNumber(state: number, i: number): number {
    this.mode = NUMBER
    this.numState = state
    this.numText = ""
    this.numStart = i
    return i + 1
  }

  /** Reads string characters up to the closing quote, an escape or the end of the piece. */
  private readString(text: string, i: number, base: number): number {
    if (this.escape !== 0) return this.readEscape(text, i, base)
    const n = text.length
    const from = i
    let c = 0
    while (i < n) {
      c = text.charCodeAt(i)
      if (c === 34 || c === 92 || c < 32) break
      i++
    }
    if (i > from) {
      this.str += text.slice(from, i)
      if (!this.isKey) this.dirty = true
    }
    if (i === n) return i
    if (c === 92) {
      this.escape = 1
      return i + 1
    }
    if (c === 34) {
      this.endString()
      return i + 1
    }
    return this.syntax(text, i, base, "an escape such as \\n or \\u0001 in place of a control character in a string")
  }

  private endString(): void {
    const s = this.str
    this.str = ""
    if (!this.isKey) {
      this.attach(s)
      return
    }
    const f = this.stack.at(-1)!
    f.key = s
    f.drop = UNSAFE_KEYS.has(s)
    this.mode = COLON
  }

  /** Reads one character of an escape (`\` then one of `"\/bfnrt`, or `u` and four hex digits). */
  private readEscape(text: string, i: number, base: number): number {
    const ch = text.charAt(i)
    if (this.escape === 1) {
      if (ch === "u") {
        this.escape = 2
        this.code = 0
        return i + 1
      }
      const decoded = ESCAPES[ch]
      if (decoded === undefined)
        return this.syntax(
          text,
          i,
          base,
          'an escape: one of \\" \\\\ \\/ \\b \\f \\n \\r \\t or \\u and four hex digits'
        )
      this.appendEscaped(decoded)
      return i + 1
    }
    const h = hexValue(text.charCodeAt(i))
    if (h === -1) return this.syntax(text, i, base, "a hex digit in a \\u escape")
    this.code = this.code * 16 + h
    if (++this.escape === 6) this.appendEscaped(String.fromCharCode(this.code))
    return i + 1
  }

  private appendEscaped(s: string): void {
    this.escape = 0
    this.str += s
    if (!this.isKey) this.dirty = true
  }

  private readLiteral(text: string, i: number, base: number): number {
    const word = this.word
    const n = text.length
    while (i < n && this.wordAt < word.length) {
      if (text.charCodeAt(i) !== word.charCodeAt(this.wordAt))
        return this.syntax(text, i, base, `${JSON.stringify(word.charAt(this.wordAt))} (the rest of ${word})`)
      this.wordAt++
      i++
    }
    if (this.wordAt === word.length) this.attach(word === "true" ? true : word === "false" ? false : null)
    return i
  }

  private numberMayEnd(): boolean {
    const s = this.numState
    return s === N_ZERO || s === N_INT || s === N_FRAC || s === N_EXP
  }

  /** Reads number characters; the first one that cannot continue it ends it and is read again as structure. */
  private readNumber(text: string, i: number, base: number): number {
    const n = text.length
    let s = this.numState
    for (; i < n; i++) {
      const c = text.charCodeAt(i)
      const digit = isDigit(c)
      if (s === N_MINUS) {
        if (!digit) return this.syntax(text, i, base, 'a digit after "-"')
        s = c === 48 ? N_ZERO : N_INT
      } else if (digit) {
        if (s === N_ZERO) return this.syntax(text, i, base, '".", "e" or the end of the number after a leading 0')
        s = s === N_DOT ? N_FRAC : s === N_E || s === N_ESIGN ? N_EXP : s
      } else if (c === 46 && (s === N_ZERO || s === N_INT)) s = N_DOT
      else if ((c === 101 || c === 69) && (s === N_ZERO || s === N_INT || s === N_FRAC)) s = N_E
      else if ((c === 43 || c === 45) && s === N_E) s = N_ESIGN
      else if (s === N_DOT) return this.syntax(text, i, base, 'a digit after "."')
      else if (s === N_E || s === N_ESIGN) return this.syntax(text, i, base, "a digit in the exponent")
      else {
        this.numState = s
        this.attach(Number(this.numText + text.slice(this.numStart, i)))
        return i
      }
    }
    this.numState = s
    return i
  }
}

/**
 * A new incremental reader of JSON text, bounded by `limits` (see `PartialJsonLimits`).
 * @category constructors
 */
export const makePartialJson = (limits: PartialJsonLimits = {}): PartialJson =>
  new Reader(boundOf(limits.maxDepth, defaultMaxJsonDepth), boundOf(limits.maxLength, defaultMaxPartialJsonLength))

const boundOf = (n: number | undefined, fallback: number): number =>
  n !== undefined && Number.isSafeInteger(n) && n > 0 ? n : fallback

/** What `parsePartialJson` read: the snapshot, whether the value is complete, and the error if any. @category models */
export interface PartialJsonResult {
  readonly value: unknown
  readonly done: boolean
  readonly error: PartialJsonError | undefined
}

/**
 * Reads a whole prefix at once (the text is not ended: a number that is the whole text is not shown,
 * see `makePartialJson`).
 * @category constructors
 */
export const parsePartialJson = (text: string, limits?: PartialJsonLimits): PartialJsonResult => {
  const reader = makePartialJson(limits)
  reader.push(text)
  return { value: reader.snapshot(), done: reader.done, error: reader.error }
}
