/**
 * What makes a value safe to cross the wire. It is checked without recursion deeper than a bound (so
 * no input can overflow the stack): nesting depth of decoded JSON, and whether a value given to a builder is one that
 * `JSON.stringify` sends unchanged (no BigInt, function, symbol, `undefined` in an array, non-finite
 * number, cycle or shared-deep object, or nesting deeper than the bound).
 */

/** The default deepest nesting of JSON read or sent (see `Limits.maxJsonDepth`). @category models */
export const defaultMaxJsonDepth = 64

/**
 * Whether `value` nests arrays/objects deeper than `maxDepth` (a top-level object is depth 1).
 * Iterative, stops at the first too-deep container; a cycle counts as too deep. May throw where reading
 * the value throws (a getter, a Proxy): callers that take any input catch.
 * @category predicates
 */
export const exceedsJsonDepth = (value: unknown, maxDepth: number = defaultMaxJsonDepth): boolean => {
  if (value === null || typeof value !== "object") return false
  const stack: Array<[object, number]> = [[value, 1]]
  // An object reached again no deeper than before adds nothing: skipping it keeps the walk linear
  // for shared references (a DAG would otherwise be walked once per path, exponentially often).
  const deepest = new Map<object, number>()
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!
    if (depth > maxDepth) return true
    if ((deepest.get(v) ?? 0) >= depth) continue
    deepest.set(v, depth)
    if (Array.isArray(v)) {
      for (const item of v) if (item !== null && typeof item === "object") stack.push([item, depth + 1])
    } else {
      for (const key in v as object) {
        const item = (v as Record<string, unknown>)[key]
        if (item !== null && typeof item === "object") stack.push([item, depth + 1])
      }
    }
  }
  return false
}

/**
 * The nesting depth of a tree that `JSON.parse` just made, or `-1` when the general checks must
 * decide: it holds a key that must not reach a decoder (`__proto__`, `constructor`, `prototype`), it
 * nests deeper than `maxDepth`, or `maxDepth` is beyond what this walk takes (over 1,024 levels). Such
 * a tree has no cycles, shared parts, getters or Proxies, so one plain recursive walk, which allocates
 * nothing, answers what `exceedsJsonDepth` and a sanitising copy would, at a fraction of their cost
 * per stream event.
 * @category predicates
 */
export const parsedTreeDepth = (
  value: unknown,
  maxDepth: number = defaultMaxJsonDepth,
  /** Whether unsafe keys are walked past (then `-1` means too deep, or a bound over 1,024). */
  unsafeKeysToo = false
): number => {
  const depth = walkParsedTree(value, maxDepth)
  return depth !== -1 && !unsafeKeysToo && unsafeKeyMet ? -1 : depth
}

/** The deepest bound `parsedTreeDepth` and `plainView` walk themselves (a JS stack holds thousands of such frames). @category models */
export const RECURSION_LIMIT = 1024

/**
 * `parsedTreeDepth` walking past unsafe keys (the depth of what is under them counts): the depth, or
 * `-1` when the tree nests deeper than `maxDepth` or the bound is over 1,024. Whether the walk met an
 * unsafe key is `parsedTreeHasUnsafeKey()` until the next walk: one walk answers both.
 * @category predicates
 */
export const walkParsedTree = (value: unknown, maxDepth: number = defaultMaxJsonDepth): number => {
  unsafeKeyMet = false
  if (value === null || typeof value !== "object") return 0
  // The recursion goes as deep as the bound; a bound the call stack might not hold is left to the
  // general checks (same answers, their cost).
  return maxDepth > RECURSION_LIMIT ? -1 : depthBelow(value, 1, maxDepth)
}

/** Whether the last `walkParsedTree` (or `parsedTreeDepth`) met an unsafe key. @category predicates */
export const parsedTreeHasUnsafeKey = (): boolean => unsafeKeyMet

let unsafeKeyMet = false

/** `walkParsedTree` of an object at `depth` (1 for the root): its deepest level, or -1. */
const depthBelow = (v: object, depth: number, maxDepth: number): number => {
  if (depth > maxDepth) return -1
  let deepest = depth
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i]
      if (item !== null && typeof item === "object") {
        const below = depthBelow(item, depth + 1, maxDepth)
        if (below === -1) return -1
        if (below > deepest) deepest = below
      }
    }
  } else {
    for (const key in v) {
      if (key === "__proto__" || key === "constructor" || key === "prototype") unsafeKeyMet = true
      const item = (v as Record<string, unknown>)[key]
      if (item !== null && typeof item === "object") {
        const below = depthBelow(item, depth + 1, maxDepth)
        if (below === -1) return -1
        if (below > deepest) deepest = below
      }
    }
  }
  return deepest
}

/** What `plainView` gives for a value nesting deeper than the bound (a cycle does). @category models */
export const TOO_DEEP: unique symbol = Symbol.for("umg/core/JsonSafety/TooDeep")

/** What `plainView` gives where the general checks must decide. @category models */
export const NOT_PLAIN: unique symbol = Symbol.for("umg/core/JsonSafety/NotPlain")

/** The members `plainView` may still read (counted down as it reads them). @category models */
export interface PlainWalk {
  left: number
}

/**
 * Plain data as a sanitising copy would read, without copying what needs no change: the value itself
 * when it has no `__proto__`, `constructor` or `prototype` key, else copies of only the arrays and
 * objects on the way to such a key (the key left out). Walked recursively, allocating nothing for
 * clean data; it reads every member, including those of unsafe keys, for the depth bound.
 * `TOO_DEEP` when the value nests deeper than `maxDepth` (a cycle does); `NOT_PLAIN` when the general
 * checks must decide: an object of another prototype than `Object`'s (or none), a bound over 1,024,
 * or more members than `walk.left` (a value sharing parts is walked once per path, so the walk stops
 * where that could grow; `walk.left` is what is left after the walk). May throw where reading the
 * value throws, as `exceedsJsonDepth` does.
 * @category predicates
 */
export const plainView = (
  value: unknown,
  maxDepth: number = defaultMaxJsonDepth,
  walk: PlainWalk = { left: 1 << 22 }
): unknown => {
  if (value === null || typeof value !== "object") return value
  if (maxDepth > RECURSION_LIMIT) return NOT_PLAIN
  return viewBelow(value, 1, maxDepth, walk)
}

const isUnsafeKey = (key: string): boolean => key === "__proto__" || key === "constructor" || key === "prototype"

/** `plainView` of an object at `depth` (1 for the root). */
const viewBelow = (v: object, depth: number, maxDepth: number, walk: PlainWalk): unknown => {
  if (depth > maxDepth) return TOO_DEEP
  if (Array.isArray(v)) {
    if ((walk.left -= v.length) < 0) return NOT_PLAIN
    let copy: Array<unknown> | undefined
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i]
      let view = item
      if (item !== null && typeof item === "object") {
        view = viewBelow(item, depth + 1, maxDepth, walk)
        if (view === TOO_DEEP || view === NOT_PLAIN) return view
      }
      if (copy !== undefined) copy.push(view)
      else if (view !== item) {
        copy = v.slice(0, i)
        copy.push(view)
      }
    }
    return copy ?? v
  }
  const proto: unknown = Object.getPrototypeOf(v)
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN
  // The keys read once: the members before the first that changes are copied from them, without a
  // second enumeration (which costs as much as the first for an object of many keys).
  const keys = Object.keys(v)
  if ((walk.left -= keys.length) < 0) return NOT_PLAIN
  let copy: Record<string, unknown> | undefined
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    const item: unknown = (v as Record<string, unknown>)[key]
    let view = item
    if (item !== null && typeof item === "object") {
      view = viewBelow(item, depth + 1, maxDepth, walk)
      if (view === TOO_DEEP || view === NOT_PLAIN) return view
    }
    const unsafe = isUnsafeKey(key)
    if (copy === undefined && (unsafe || view !== item)) copy = membersBefore(v, keys, i)
    if (copy !== undefined && !unsafe) copy[key] = view
  }
  return copy ?? v
}

// The members of `v` before its `stop`-th key (the first that changes in its view: all before it are kept as they are).
const membersBefore = (v: object, keys: ReadonlyArray<string>, stop: number): Record<string, unknown> => {
  const out: Record<string, unknown> = {}
  for (let i = 0; i < stop; i++) out[keys[i]!] = (v as Record<string, unknown>)[keys[i]!]
  return out
}

/**
 * `plainView` of an object's members named in `keep` only, for a decoder that reads no other member
 * of it: a new object of those members' views (the others left out, as an unsafe key is), after the
 * others were checked as `plainCheck` checks them (unless `othersChecked`: the caller knows the whole
 * value is plain and within the bound). `NOT_PLAIN` for a value that is not a plain object.
 * @category predicates
 */
export const plainProjection = (
  value: unknown,
  keep: ReadonlySet<string>,
  maxDepth: number = defaultMaxJsonDepth,
  walk: PlainWalk = { left: 1 << 22 },
  othersChecked = false
): unknown => {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return NOT_PLAIN
  const proto: unknown = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN
  if (maxDepth > RECURSION_LIMIT) return NOT_PLAIN
  if (maxDepth < 1) return TOO_DEEP
  const out: Record<string, unknown> = {}
  if (!othersChecked) {
    const keys = Object.keys(value)
    if ((walk.left -= keys.length) < 0) return NOT_PLAIN
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!
      if (keep.has(key)) continue
      const item: unknown = (value as Record<string, unknown>)[key]
      if (item !== null && typeof item === "object") {
        const wrong = checkBelow(item, 2, maxDepth, walk)
        if (wrong !== undefined) return wrong
      }
    }
  }
  for (const key of keep) {
    if (isUnsafeKey(key) || !Object.hasOwn(value, key)) continue
    const item: unknown = (value as Record<string, unknown>)[key]
    let view = item
    if (item !== null && typeof item === "object") {
      view = viewBelow(item, 2, maxDepth, walk)
      if (view === TOO_DEEP || view === NOT_PLAIN) return view
    }
    out[key] = view
  }
  return out
}

/**
 * `plainView`'s checks without its copies, for a decoder that reads no unsafe key: `undefined` when
 * `value` is plain data within `maxDepth` (unsafe keys included: what is under them is walked for the
 * depth bound), else `TOO_DEEP` or `NOT_PLAIN` as `plainView` gives them. May throw where reading the
 * value throws.
 * @category predicates
 */
export const plainCheck = (
  value: unknown,
  maxDepth: number = defaultMaxJsonDepth,
  walk: PlainWalk = { left: 1 << 22 }
): typeof TOO_DEEP | typeof NOT_PLAIN | undefined => {
  if (value === null || typeof value !== "object") return undefined
  if (maxDepth > RECURSION_LIMIT) return NOT_PLAIN
  return checkBelow(value, 1, maxDepth, walk)
}

/** `plainCheck` of an object at `depth` (1 for the root). */
const checkBelow = (
  v: object,
  depth: number,
  maxDepth: number,
  walk: PlainWalk
): typeof TOO_DEEP | typeof NOT_PLAIN | undefined => {
  if (depth > maxDepth) return TOO_DEEP
  if (Array.isArray(v)) {
    if ((walk.left -= v.length) < 0) return NOT_PLAIN
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i]
      if (item !== null && typeof item === "object") {
        const wrong = checkBelow(item, depth + 1, maxDepth, walk)
        if (wrong !== undefined) return wrong
      }
    }
    return undefined
  }
  const proto: unknown = Object.getPrototypeOf(v)
  if (proto !== Object.prototype && proto !== null) return NOT_PLAIN
  const keys = Object.keys(v)
  if ((walk.left -= keys.length) < 0) return NOT_PLAIN
  for (let i = 0; i < keys.length; i++) {
    const item: unknown = (v as Record<string, unknown>)[keys[i]!]
    if (item !== null && typeof item === "object") {
      const wrong = checkBelow(item, depth + 1, maxDepth, walk)
      if (wrong !== undefined) return wrong
    }
  }
  return undefined
}

/** Why a value cannot be sent as JSON, and where. @category models */
export interface UnsendableValue {
  /** The path below the checked value, e.g. `tools[0].input_schema.default` (empty for the value itself). */
  readonly path: string
  readonly reason: string
}

const describe = (v: unknown): string | undefined => {
  switch (typeof v) {
    case "bigint":
      return "a BigInt cannot be sent as JSON"
    case "function":
      return "a function cannot be sent as JSON"
    case "symbol":
      return "a symbol cannot be sent as JSON"
    case "number":
      return Number.isFinite(v) ? undefined : `${String(v)} cannot be sent as JSON`
    default:
      return undefined
  }
}

const childPath = (path: string, key: string | number): string =>
  typeof key === "number"
    ? `${path}[${key}]`
    : /^[A-Za-z_$][\w$]*$/.test(key)
      ? path === ""
        ? key
        : `${path}.${key}`
      : `${path}[${JSON.stringify(key)}]`

/**
 * The first reason `value` is not plain JSON data that `JSON.stringify` sends as it is, or
 * `undefined` when it is. `undefined` object members are allowed (they are omitted, as in JSON);
 * `undefined` array items are not (they would become `null`). Objects with a `toJSON` method
 * (such as `Date`) are refused too: what they send is not what was given. Never throws.
 * @category predicates
 */
export const findUnsendable = (value: unknown, maxDepth: number = defaultMaxJsonDepth): UnsendableValue | undefined => {
  const onPath = new Set<object>()
  // Objects already found clean, with the depth they were checked at: met again no deeper, they are
  // skipped, so shared references cost one walk each instead of one per path (exponential in a DAG).
  const cleanAt = new Map<object, number>()
  // Explicit stack of frames (and leave frames, so that cycles are told from shared references). A
  // frame names its place by its parent frame and key: the path is written only for a refusal.
  const stack: Array<Frame> = [{ v: value, parent: undefined, key: "", depth: 0, leave: undefined }]
  while (stack.length > 0) {
    const frame = stack.pop()!
    if (frame.leave !== undefined) {
      onPath.delete(frame.leave)
      // Reaching the leave frame means nothing below was refused (the walk returns at the first refusal).
      cleanAt.set(frame.leave, frame.depth)
      continue
    }
    const { v, depth } = frame
    const simple = describe(v)
    if (simple !== undefined) return { path: pathOf(frame), reason: simple }
    if (v === null || typeof v !== "object") continue
    if (depth + 1 > maxDepth)
      return { path: pathOf(frame), reason: `nesting deeper than ${maxDepth} levels cannot be sent` }
    if (onPath.has(v))
      return { path: pathOf(frame), reason: "a cycle (a value containing itself) cannot be sent as JSON" }
    const clean = cleanAt.get(v)
    if (clean !== undefined && depth <= clean) continue
    try {
      if (typeof (v as { toJSON?: unknown }).toJSON === "function") {
        return {
          path: pathOf(frame),
          reason: "an object with toJSON (such as a Date) is not plain JSON data; pass its JSON value"
        }
      }
      const isArray = Array.isArray(v)
      if (!isArray) {
        const proto = Object.getPrototypeOf(v)
        if (proto !== Object.prototype && proto !== null) {
          return { path: pathOf(frame), reason: "only plain objects and arrays can be sent as JSON" }
        }
      }
      onPath.add(v)
      stack.push({ v: undefined, parent: undefined, key: "", depth, leave: v })
      if (isArray) {
        const arr = v as ReadonlyArray<unknown>
        for (let i = arr.length - 1; i >= 0; i--) {
          if (arr[i] === undefined)
            return { path: childPath(pathOf(frame), i), reason: "undefined in an array cannot be sent as JSON" }
          stack.push({ v: arr[i], parent: frame, key: i, depth: depth + 1, leave: undefined })
        }
      } else {
        if (Object.getOwnPropertySymbols(v).length > 0)
          return { path: pathOf(frame), reason: "symbol keys cannot be sent as JSON" }
        const keys = Object.keys(v)
        for (let i = keys.length - 1; i >= 0; i--) {
          const key = keys[i]!
          const item = (v as Record<string, unknown>)[key]
          if (item === undefined) continue
          stack.push({ v: item, parent: frame, key, depth: depth + 1, leave: undefined })
        }
      }
    } catch {
      // A Proxy or getter that throws: not plain data.
      return { path: pathOf(frame), reason: "a value whose properties cannot be read cannot be sent as JSON" }
    }
  }
  return undefined
}

/** A value met by `findUnsendable`: where it is (its parent's frame and its key), or a leave frame. */
interface Frame {
  readonly v: unknown
  readonly parent: Frame | undefined
  readonly key: string | number
  readonly depth: number
  readonly leave: object | undefined
}

/** The path of a frame's value, written from its parents' keys. */
const pathOf = (frame: Frame): string => {
  const keys: Array<string | number> = []
  for (let f = frame; f.parent !== undefined; f = f.parent) keys.push(f.key)
  let path = ""
  for (let i = keys.length - 1; i >= 0; i--) path = childPath(path, keys[i]!)
  return path
}

/**
 * One id as one URL path segment: refuses the empty string, `.`, `..` and anything with `/` or `\`
 * (which would move the request to another path), encodes the rest. `undefined` when refused.
 * @category constructors
 */
export const pathSegment = (id: string): string | undefined => {
  if (id === "" || id === "." || id === ".." || /[/\\]/.test(id)) return undefined
  // A segment that decodes to a dot segment (`%2e%2E`) is refused as well.
  let decoded: string
  try {
    decoded = decodeURIComponent(id)
  } catch {
    decoded = id
  }
  if (decoded === "." || decoded === ".." || /[/\\]/.test(decoded)) return undefined
  return encodeURIComponent(id)
}
