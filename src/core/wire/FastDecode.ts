/**
 * A fast path for decoding parsed JSON with a Schema, compiled from the Schema's own AST: for the
 * plain shapes answers and stream events are made of (structs, arrays, unions, literals, strings,
 * numbers, booleans, refinements, declarations and transformations that answer synchronously), it
 * gives a value equal to what `Schema.decodeUnknownEither` gives (an input that decodes to itself is
 * returned as it is, so its keys keep their own order where the Schema lays them out in its own), or
 * says it cannot tell. The Schema stays the one source of each shape: this only walks it, and a union
 * tries its members in the order the Schema's own decoding does (the members the input's literal tag
 * names, then the untagged ones; the first that accepts wins). `decodeWith` tries it first and
 * decodes with the Schema itself whenever the fast path cannot tell — on a mismatch (so every error
 * message is the Schema's own), an asynchronous declaration or transformation, or anything else it
 * does not model. Measured on the messages stream's events: about a tenth of the Schema's decoding
 * time for a text delta.
 */
import { Either, Option, ParseResult, SchemaAST as AST } from "effect"

/** The fast path's answer when the input does not match (the Schema's own decode then says why). */
export const NoMatch: unique symbol = Symbol.for("umg/core/FastDecode/NoMatch")
/** The fast path's answer when it cannot tell (the Schema's own decode then runs). */
export const Unknown: unique symbol = Symbol.for("umg/core/FastDecode/Unknown")

type Result = unknown
type Fast = (input: unknown) => Result

const unknownAlways: Fast = () => Unknown

/** The options every declaration and refinement is called with: the Schema's defaults. */
const noOptions: AST.ParseOptions = {}

/**
 * The order in which the Schema's own union decoding tries its members (`ParseResult.getSearchTree`:
 * by the literal tags the input carries, then the untagged members), taken from Effect itself so the
 * fast path follows the very same rule; exported by Effect's module but left out of its typings, so
 * looked up, and without it unions fall back to trying every member.
 */
interface SearchTree {
  readonly keys: { readonly [key: PropertyKey]: { readonly buckets: { readonly [literal: string]: ReadonlyArray<AST.AST> } } }
  readonly otherwise: ReadonlyArray<AST.AST>
}
const searchTreeOf = ((ParseResult as unknown as { getSearchTree?: unknown }).getSearchTree ?? undefined) as
  | ((members: ReadonlyArray<AST.AST>, isDecoding: boolean) => SearchTree)
  | undefined
const hasOwn = Object.prototype.hasOwnProperty

const isPlainRecord = (u: unknown): u is Record<string, unknown> => typeof u === "object" && u !== null && !Array.isArray(u)

/** What one compilation shares: the compiled nodes, and whether structs may be generated as code. */
interface Context {
  readonly memo: Map<AST.AST, Fast>
  readonly generate: boolean
}

const compileWith = (ast: AST.AST, ctx: Context): Fast => {
  const known = ctx.memo.get(ast)
  if (known !== undefined) return known
  // A placeholder first, so that a recursive (suspended) schema refers to itself.
  let compiled: Fast = unknownAlways
  const self: Fast = (input) => compiled(input)
  ctx.memo.set(ast, self)
  compiled = build(ast, ctx)
  // Later uses call the compiled function directly (only a recursive schema keeps the indirection).
  ctx.memo.set(ast, compiled)
  return compiled
}

const build = (ast: AST.AST, ctx: Context): Fast => {
  switch (ast._tag) {
    case "StringKeyword":
      return (input) => (typeof input === "string" ? input : NoMatch)
    case "NumberKeyword":
      return (input) => (typeof input === "number" ? input : NoMatch)
    case "BooleanKeyword":
      return (input) => (typeof input === "boolean" ? input : NoMatch)
    case "UnknownKeyword":
    case "AnyKeyword":
      return (input) => input
    case "UndefinedKeyword":
      return (input) => (input === undefined ? input : NoMatch)
    case "Literal": {
      const literal = ast.literal
      return (input) => (input === literal ? input : NoMatch)
    }
    case "Suspend": {
      // Resolved on first use (the suspended schema may not exist yet when this one is compiled).
      let target: Fast | undefined
      return (input) => (target ??= compileWith(ast.f(), ctx))(input)
    }
    case "Refinement": {
      const from = compileWith(ast.from, ctx)
      return (input) => {
        const out = from(input)
        if (out === NoMatch || out === Unknown) return out
        try {
          return Option.isNone(ast.filter(out, noOptions, ast)) ? out : NoMatch
        } catch {
          return Unknown
        }
      }
    }
    case "Union": {
      const compiled = new Map(ast.types.map((member) => [member, compileWith(member, ctx)] as const))
      const tree = searchTreeOf?.(ast.types, true)
      if (tree === undefined) {
        // Without the Schema's own member order: the one member that accepts the input; two that
        // give different values leave the choice to the Schema.
        const members = [...compiled.values()]
        return (input) => {
          let found: Result = NoMatch
          for (const member of members) {
            const out = member(input)
            if (out === Unknown) return Unknown
            if (out === NoMatch) continue
            // Two members giving the very same value (`null` for a `NullOr(Unknown)`) leave no choice.
            if (found !== NoMatch && found !== out) return Unknown
            found = out
          }
          return found
        }
      }
      // The Schema's own order: the members whose literal (a `type` tag) the input carries, then the
      // members without one; the first that accepts the input is the answer, as in the Schema.
      const first = (members: ReadonlyArray<Fast>, input: unknown): Result => {
        for (const member of members) {
          const out = member(input)
          if (out !== NoMatch) return out
        }
        return NoMatch
      }
      /** One function per bucket and for the rest: its one member itself, else the members in order. */
      const anyOf = (members: ReadonlyArray<AST.AST>): Fast => {
        const fast = members.map((m) => compiled.get(m)!)
        return fast.length === 1 ? fast[0]! : fast.length === 0 ? () => NoMatch : (input) => first(fast, input)
      }
      // Nearly always one key (a `type` field): one lookup, and the bucket's member called directly.
      const byKey = Reflect.ownKeys(tree.keys).map((key) => ({
        key,
        buckets: new Map(Object.entries(tree.keys[key]!.buckets).map(([literal, members]) => [literal, anyOf(members)] as const))
      }))
      const rest = anyOf(tree.otherwise)
      return (input) => {
        if (typeof input === "object" && input !== null) {
          for (let i = 0; i < byKey.length; i++) {
            const { key, buckets } = byKey[i]!
            if (!hasOwn.call(input, key)) continue
            const tag: unknown = (input as Record<PropertyKey, unknown>)[key]
            const member = buckets.get(typeof tag === "string" ? tag : String(tag))
            if (member === undefined) continue
            const out = member(input)
            if (out !== NoMatch) return out
          }
        }
        return rest(input)
      }
    }
    case "TupleType": {
      if (ast.rest.length > 1) return unknownAlways
      const elements = ast.elements.map((e) => ({ fast: compileWith(e.type, ctx), optional: e.isOptional }))
      const rest = ast.rest.length === 1 ? compileWith(ast.rest[0]!.type, ctx) : undefined
      return (input) => {
        if (!Array.isArray(input)) return NoMatch
        if (rest === undefined && input.length > elements.length) return NoMatch
        // The input itself while every element decodes to itself; a copy from the first that does not.
        let out: Array<unknown> | undefined
        for (let i = 0; i < elements.length; i++) {
          const element = elements[i]!
          if (i >= input.length) {
            if (element.optional) continue
            return NoMatch
          }
          const raw: unknown = input[i]
          const value = element.fast(raw)
          if (value === NoMatch || value === Unknown) return value
          if (out === undefined && value !== raw) out = input.slice(0, i)
          if (out !== undefined) out.push(value)
        }
        if (rest !== undefined)
          for (let i = elements.length; i < input.length; i++) {
            const raw: unknown = input[i]
            const value = rest(raw)
            if (value === NoMatch || value === Unknown) return value
            if (out === undefined && value !== raw) out = input.slice(0, i)
            if (out !== undefined) out.push(value)
          }
        return out ?? input
      }
    }
    case "TypeLiteral": {
      if (ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0)
        return (input) => (input === null || input === undefined ? NoMatch : input)
      if (ast.indexSignatures.length > 1 || ast.indexSignatures.some((s) => s.parameter._tag !== "StringKeyword")) return unknownAlways
      if (ast.propertySignatures.some((p) => typeof p.name !== "string")) return unknownAlways
      const properties = ast.propertySignatures.map((p) => ({ name: p.name as string, optional: p.isOptional, fast: compileWith(p.type, ctx) }))
      const expected = new Set(properties.map((p) => p.name))
      const index = ast.indexSignatures.length === 1 ? compileWith(ast.indexSignatures[0]!.type, ctx) : undefined
      /** A fresh object with the properties before `end` the input has (each decoded to itself). */
      const copyBefore = (input: Record<string, unknown>, end: number): Record<string, unknown> => {
        const out: Record<string, unknown> = {}
        for (let j = 0; j < end; j++) {
          const name = properties[j]!.name
          if (hasOwn.call(input, name)) out[name] = input[name]
        }
        return out
      }
      if (index === undefined && ctx.generate) {
        const generated = generateStruct(ast.propertySignatures, properties, copyBefore)
        if (generated !== undefined) return generated
      }
      return (input) => {
        if (!isPlainRecord(input)) return NoMatch
        // The input itself when every property decodes to itself and it has no other key (the common
        // case for parsed JSON: no allocation); a copy from the first property that differs.
        let out: Record<string, unknown> | undefined
        let present = 0
        for (let i = 0; i < properties.length; i++) {
          const property = properties[i]!
          const has = hasOwn.call(input, property.name)
          if (!has && property.optional) continue
          const raw = input[property.name]
          const value = property.fast(raw)
          if (value === NoMatch || value === Unknown) return value
          if (has) present++
          if (out === undefined && (value !== raw || !has)) out = copyBefore(input, i)
          if (out !== undefined) out[property.name] = value
        }
        if (index !== undefined) {
          out ??= copyBefore(input, properties.length)
          for (const key of Object.keys(input)) {
            const value = index(input[key])
            if (value === NoMatch || value === Unknown) return value
            if (!expected.has(key)) out[key] = value
          }
          return out
        }
        if (out !== undefined) return out
        let keys = 0
        for (const key in input) if (hasOwn.call(input, key)) keys++
        // Keys the schema does not name are dropped, as the Schema drops them.
        return keys === present ? input : copyBefore(input, properties.length)
      }
    }
    case "Declaration": {
      // A declared type decides by its own parse; only a synchronous answer is taken.
      let parse: (input: unknown, options: AST.ParseOptions, self: AST.Declaration) => unknown
      try {
        parse = ast.decodeUnknown(...ast.typeParameters)
      } catch {
        return unknownAlways
      }
      return (input) => {
        try {
          const result = parse(input, noOptions, ast)
          return Either.isEither(result) ? (Either.isRight(result) ? result.right : NoMatch) : Unknown
        } catch {
          return Unknown
        }
      }
    }
    case "Transformation": {
      if (ast.transformation._tag === "TypeLiteralTransformation") return typeLiteralTransformation(ast, ast.transformation, ctx)
      if (ast.transformation._tag !== "FinalTransformation") return unknownAlways
      const from = compileWith(ast.from, ctx)
      const to = compileWith(ast.to, ctx)
      const decode = ast.transformation.decode
      return (input) => {
        const decoded = from(input)
        if (decoded === NoMatch || decoded === Unknown) return decoded
        try {
          const result: unknown = decode(decoded, noOptions, ast, input)
          if (!Either.isEither(result)) return Unknown
          return Either.isRight(result) ? to(result.right) : NoMatch
        } catch {
          return Unknown
        }
      }
    }
    default:
      // Template literals, enums, symbols, other transformations: the Schema decodes them.
      return unknownAlways
  }
}

/**
 * The test a property's value passes when its type is a keyword, a literal, or a union of those: a JS
 * expression over `v` (such a type decodes a value to the value itself). `undefined` for anything else.
 */
const inlineCheck = (ast: AST.AST, v: string): string | undefined => {
  switch (ast._tag) {
    case "StringKeyword":
      return `typeof ${v} === "string"`
    case "NumberKeyword":
      return `typeof ${v} === "number"`
    case "BooleanKeyword":
      return `typeof ${v} === "boolean"`
    case "UnknownKeyword":
    case "AnyKeyword":
      return "true"
    case "UndefinedKeyword":
      return `${v} === undefined`
    case "Literal": {
      const literal = ast.literal
      if (literal === null) return `${v} === null`
      if (typeof literal === "string") return `${v} === ${JSON.stringify(literal)}`
      if (typeof literal === "boolean") return `${v} === ${String(literal)}`
      return typeof literal === "number" && Number.isFinite(literal) ? `${v} === ${String(literal)}` : undefined
    }
    case "Union": {
      // Every member answers with the value itself, so the first that accepts gives what any would.
      const members = ast.types.map((member) => inlineCheck(member, v))
      return members.every((m) => m !== undefined) ? members.map((m) => `(${m})`).join(" || ") : undefined
    }
    default:
      return undefined
  }
}

/**
 * A struct's decoder as straight-line code: the loop of the closure above unrolled, with keyword and
 * literal tests written in place instead of called, the same answers in the same order. About a
 * third of the closure's time on the stream events. Property names and literals enter the code only
 * through `JSON.stringify`. `undefined` where code cannot be made (`new Function` refused, as under a
 * strict Content-Security-Policy): the closure decodes then.
 */
const generateStruct = (
  signatures: ReadonlyArray<AST.PropertySignature>,
  properties: ReadonlyArray<{ readonly name: string; readonly optional: boolean; readonly fast: Fast }>,
  copyBefore: (input: Record<string, unknown>, end: number) => Record<string, unknown>
): Fast | undefined => {
  const lines: Array<string> = [
    '"use strict";',
    "return function (input) {",
    "if (typeof input !== 'object' || input === null || Array.isArray(input)) return NoMatch;",
    "let out, present = 0, has, raw, value;"
  ]
  properties.forEach((property, i) => {
    const name = JSON.stringify(property.name)
    const check = inlineCheck(signatures[i]!.type, "raw")
    lines.push(`has = hasOwn.call(input, ${name});`)
    lines.push(property.optional ? "if (has) {" : "{")
    lines.push(`raw = input[${name}];`)
    if (check !== undefined) {
      lines.push(`if (!(${check})) return NoMatch;`)
      lines.push("if (has) present++;")
      lines.push(`if (out === undefined && !has) out = copyBefore(input, ${i});`)
      lines.push(`if (out !== undefined) out[${name}] = raw;`)
    } else {
      lines.push(`value = fast[${i}](raw);`)
      lines.push("if (value === NoMatch || value === Unknown) return value;")
      lines.push("if (has) present++;")
      lines.push(`if (out === undefined && (value !== raw || !has)) out = copyBefore(input, ${i});`)
      lines.push(`if (out !== undefined) out[${name}] = value;`)
    }
    lines.push("}")
  })
  lines.push(
    "if (out !== undefined) return out;",
    "let keys = 0;",
    "for (const key in input) if (hasOwn.call(input, key)) keys++;",
    `return keys === present ? input : copyBefore(input, ${properties.length});`,
    "};"
  )
  try {
    const make = new Function("NoMatch", "Unknown", "hasOwn", "fast", "copyBefore", lines.join("\n")) as (
      noMatch: typeof NoMatch,
      unknown: typeof Unknown,
      own: typeof hasOwn,
      fast: ReadonlyArray<Fast>,
      copy: typeof copyBefore
    ) => Fast
    return make(NoMatch, Unknown, hasOwn, properties.map((p) => p.fast), copyBefore)
  } catch {
    return undefined
  }
}

/**
 * A struct whose property signatures transform (`Schema.optionalWith(..., { default })`, renamed
 * keys): the encoded side decoded, each transformed key moved or defaulted into a fresh object, then
 * the type side checked. Transformations that feed one another are left to the Schema.
 */
const typeLiteralTransformation = (ast: AST.Transformation, transformation: AST.TypeLiteralTransformation, ctx: Context): Fast => {
  const steps = transformation.propertySignatureTransformations
  const fromKeys = new Set<PropertyKey>(steps.map((step) => step.from))
  if (fromKeys.size !== steps.length || steps.some((step) => typeof step.from !== "string" || typeof step.to !== "string")) return unknownAlways
  if (steps.some((step) => step.to !== step.from && fromKeys.has(step.to))) return unknownAlways
  const from = compileWith(ast.from, ctx)
  // The decoded side already holds type-side values: only the moved or defaulted ones are checked
  // against the type side (walking the whole struct twice, as the Schema does, doubled the cost).
  const target = ast.to._tag === "TypeLiteral" ? ast.to : undefined
  const plan: Array<{ readonly from: string; readonly to: string; readonly decode: (o: Option.Option<unknown>) => Option.Option<unknown>; readonly type: Fast; readonly required: boolean }> = []
  for (const step of steps) {
    const signature = target?.propertySignatures.find((p) => p.name === step.to)
    if (signature === undefined) return unknownAlways
    plan.push({ from: step.from as string, to: step.to as string, decode: step.decode, type: compileWith(signature.type, ctx), required: !signature.isOptional })
  }
  return (input) => {
    const decoded = from(input)
    if (decoded === NoMatch || decoded === Unknown) return decoded
    if (!isPlainRecord(decoded)) return Unknown
    // The decoded side itself while every step keeps its key and value (a default whose key is
    // there); a fresh object, built without `delete`, from the first step that moves or fills one.
    let out: Record<string, unknown> | undefined
    try {
      for (let i = 0; i < plan.length; i++) {
        const step = plan[i]!
        const has = hasOwn.call(decoded, step.from)
        const moved = step.decode(has ? Option.some(decoded[step.from]) : Option.none())
        let value: unknown
        if (Option.isSome(moved)) {
          value = step.type(moved.value)
          if (value === NoMatch || value === Unknown) return value
        } else if (step.required) return Unknown
        if (out === undefined) {
          if (Option.isSome(moved) && has && step.to === step.from && value === decoded[step.from]) continue
          out = {}
          for (const key in decoded) if (hasOwn.call(decoded, key) && !fromKeys.has(key)) out[key] = decoded[key]
          // The steps before this one kept their key and value.
          for (let j = 0; j < i; j++) out[plan[j]!.to] = decoded[plan[j]!.to]
        }
        if (Option.isSome(moved)) out[step.to] = value
      }
    } catch {
      return Unknown
    }
    return out ?? decoded
  }
}

/**
 * The fast path of a Schema's decoding: the decoded value, `NoMatch` when the input does not match,
 * or `Unknown` when only the Schema can tell. For inputs that are plain JSON data (no `undefined`, no
 * getters, no prototypes): `decodeWith` gives it only trees it parsed or copied itself.
 * @category decoding
 */
export const compile = (ast: AST.AST, options?: { readonly generate?: boolean }): Fast =>
  compileWith(ast, { memo: new Map(), generate: options?.generate ?? true })
