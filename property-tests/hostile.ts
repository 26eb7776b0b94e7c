// Hostile values for the core's properties: deep, cyclic, shared, BigInt, function, symbol, Date,
// NaN, throwing getters, Proxies and junk; plus a fingerprint that tells whether a value was mutated.
import fc from "fast-check"

/** The number of runs of every property here: at least 1,000, more when FC_RUNS asks for more. */
export const runs = (): number => Math.max(1_000, fc.readConfigureGlobal().numRuns ?? 0)

/**
 * A hostile value as a recipe: properties build it fresh in each run, and fast-check prints the label
 * (printing the value itself would run its throwing getters and Proxy traps, hiding the real failure).
 */
export interface Hostile {
  readonly build: () => unknown
  readonly [fc.toStringMethod]: () => string
}

const recipe = (label: () => string, build: () => unknown): Hostile => ({ build, [fc.toStringMethod]: label })
const asIs = (value: unknown): Hostile =>
  recipe(
    () => fc.stringify(value),
    () => value
  )

/** `depth` nested containers around `leaf`, built without recursion (arrays, objects or both). */
export const nest = (depth: number, leaf: unknown, shape: "array" | "object" | "mixed"): unknown => {
  let v = leaf
  for (let i = 0; i < depth; i++) v = shape === "array" || (shape === "mixed" && i % 2 === 0) ? [v] : { a: v }
  return v
}

const cyclic = fc.constantFrom("self", "pair", "array").map((kind) =>
  recipe(
    () => `a cyclic ${kind}`,
    (): unknown => {
      if (kind === "self") {
        const o: Record<string, unknown> = { type: "text", text: "x" }
        o["self"] = o
        return o
      }
      if (kind === "pair") {
        const a: Record<string, unknown> = { name: "a" }
        a["b"] = { back: a }
        return a
      }
      const arr: Array<unknown> = [1]
      arr.push(arr)
      return arr
    }
  )
)

const throwingGetter = fc.string().map((s) =>
  recipe(
    () => `an object with a throwing getter (ok: ${JSON.stringify(s)})`,
    (): unknown => {
      const o: Record<string, unknown> = { ok: s }
      Object.defineProperty(o, "bad", {
        enumerable: true,
        get() {
          throw new Error("getter says no")
        }
      })
      return o
    }
  )
)

const trap = (): never => {
  throw new Error("trap says no")
}
const hostileProxy = fc.constantFrom("object", "array").map((kind) =>
  recipe(
    () => `a Proxy of an ${kind} whose every trap throws`,
    (): unknown =>
      new Proxy(kind === "array" ? [] : {}, {
        get: trap,
        has: trap,
        ownKeys: trap,
        getOwnPropertyDescriptor: trap,
        getPrototypeOf: trap
      })
  )
)

const symbolKeyed = fc.string().map((s) =>
  recipe(
    () => `an object with a symbol key (${JSON.stringify(s)})`,
    () => ({ [Symbol("k")]: s, v: 1 })
  )
)

const unsafeKeys = fc.constantFrom("__proto__", "constructor", "prototype").chain((key) =>
  fc.integer({ min: 1, max: 80 }).map((depth) =>
    recipe(
      () => `${key} at depth ${depth}`,
      () => JSON.parse(`${'{"a":'.repeat(depth - 1)}{"${key}":{"polluted":true},"k":1}${"}".repeat(depth - 1)}`)
    )
  )
)

// Shared references up to `levels` deep: 2^levels paths through `levels` objects (a walker that
// follows every path hangs; so does JSON.stringify, which is why builder properties keep it small).
const sharedUpTo = (maxLevels: number) =>
  fc.integer({ min: 2, max: maxLevels }).map((levels) =>
    recipe(
      () => `shared references ${levels} levels deep`,
      (): unknown => {
        let v: unknown = { leaf: 1 }
        for (let i = 0; i < levels; i++) v = { l: v, r: v }
        return v
      }
    )
  )

const deep = fc
  .tuple(
    fc.integer({ min: 60, max: 3_000 }),
    fc.constantFrom("array", "object", "mixed") as fc.Arbitrary<"array" | "object" | "mixed">
  )
  .map(([depth, shape]) =>
    recipe(
      () => `${depth} nested ${shape} levels`,
      () => nest(depth, 1, shape)
    )
  )

const odd = fc.constantFrom<unknown>(
  Number.NaN,
  Number.POSITIVE_INFINITY,
  -0,
  10n ** 30n,
  Symbol("s"),
  () => 1,
  new Date(0),
  new Date(Number.NaN),
  new Map([["a", 1]]),
  new Set([1]),
  new Uint8Array([1, 2]),
  /re/g,
  Object.create(null),
  undefined,
  [undefined],
  new Error("e")
)

/** Anything: fast-check's values with BigInt, Dates, typed arrays and null prototypes, small and nested. */
export const anything = fc.anything({
  withObjectString: true,
  withNullPrototype: true,
  withTypedArray: true,
  withBigInt: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withSparseArray: true,
  maxDepth: 4
})

/** Values that JSON cannot carry as they are, but that can be read: shared references nest up to `sharedLevels` deep. */
export const hostileData = (sharedLevels: number): fc.Arbitrary<Hostile> =>
  fc.oneof(
    { weight: 4, arbitrary: anything.map(asIs) },
    { weight: 2, arbitrary: deep },
    { weight: 2, arbitrary: cyclic },
    { weight: 1, arbitrary: sharedUpTo(sharedLevels) },
    { weight: 1, arbitrary: symbolKeyed },
    { weight: 2, arbitrary: unsafeKeys },
    { weight: 2, arbitrary: odd.map(asIs) }
  )

/** Values whose reading throws: an object with a throwing getter, a Proxy whose every trap throws. */
export const hostileReads: fc.Arbitrary<Hostile> = fc.oneof(throwingGetter, hostileProxy)

/** One hostile value of any of the kinds above; shared references nest up to `sharedLevels` deep. */
export const hostileWith = (sharedLevels: number): fc.Arbitrary<Hostile> =>
  fc.oneof({ weight: 15, arbitrary: hostileData(sharedLevels) }, { weight: 2, arbitrary: hostileReads })

/** Hostile values for decoders: shared references 30 levels deep (2^30 paths) included. */
export const hostile: fc.Arbitrary<Hostile> = hostileWith(30)

/** JSON text a hostile server could send: valid JSON, deep nesting, unsafe keys, truncated or junk text. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  fc.json({ maxDepth: 4 }),
  fc.integer({ min: 60, max: 100_000 }).map((n) => `${"[".repeat(n)}${"]".repeat(n)}`),
  fc.integer({ min: 60, max: 20_000 }).map((n) => `${'{"a":'.repeat(n)}1${"}".repeat(n)}`),
  fc.json({ maxDepth: 3 }).map((t) => t.slice(0, Math.max(0, t.length - 1))),
  fc.string(),
  fc.constantFrom("", "[DONE]", "null", "NaN", "1e999", '{"__proto__":{"x":1}}', '{"type":"error"}', "\u0000")
)

/**
 * A fingerprint of `value` that changes when anything reachable in it is changed (a key added,
 * removed or reassigned, an item pushed, a prototype swapped), read without invoking getters or
 * Proxy traps that throw, and without recursion. Shared and cyclic parts are visited once.
 */
export const fingerprint = (value: unknown): Array<string> => {
  const ids = new Map<unknown, number>()
  const out: Array<string> = []
  const stack: Array<unknown> = [value]
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v === "function" || (typeof v === "object" && v !== null)) {
      const known = ids.get(v)
      if (known !== undefined) {
        out.push(`ref#${known}`)
        continue
      }
      ids.set(v, ids.size)
      if (typeof v === "function") {
        out.push(`fn#${ids.get(v)}`)
        continue
      }
      try {
        const proto = Object.getPrototypeOf(v)
        const descriptors = Object.getOwnPropertyDescriptors(v)
        const keys = Reflect.ownKeys(descriptors)
        out.push(`obj#${ids.get(v)} ${proto === null ? "null" : (proto.constructor?.name ?? "?")} ${keys.length}`)
        if (v instanceof Date) out.push(`date ${v.getTime()}`)
        if (ArrayBuffer.isView(v))
          out.push(`view ${Array.from(new Uint8Array(v.buffer, v.byteOffset, v.byteLength)).join(",")}`)
        if (v instanceof Map) stack.push([...v.entries()])
        if (v instanceof Set) stack.push([...v.values()])
        for (let i = keys.length - 1; i >= 0; i--) {
          const key = keys[i]!
          const d = descriptors[key as string]!
          out.push(`key ${String(key)}`)
          if ("value" in d) stack.push(d.value)
          else out.push("accessor")
        }
      } catch {
        out.push("unreadable")
      }
    } else if (typeof v === "number") out.push(Object.is(v, -0) ? "-0" : `n ${v}`)
    else if (typeof v === "bigint") out.push(`${v}n`)
    else if (typeof v === "symbol") out.push(v.toString())
    else out.push(`${typeof v} ${String(v)}`)
  }
  return out
}
