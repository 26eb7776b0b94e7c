/**
 * Closed nested objects, read from the body's Schema. An object Schema without an index signature
 * is closed, so an unknown key inside it (`thinking.budget_token`) is refused naming the nearest
 * known one; an object Schema with an index signature (`metadata`, a tool's `input_schema`) is open.
 * The Schema is the one place that says which nested objects are closed.
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import { compileParsers } from "./ParserCompiler.js"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { at, isRecord } from "./Rules.js"

// The shape behind suspensions (a node is its own type side; its checks and encoding do not change it).
const unwrap = (ast: AST.AST): AST.AST => {
  let node = ast
  for (let i = 0; i < 32 && AST.isSuspend(node); i++) node = node.thunk()
  return node
}

// One compiled guard per Schema node: compiling is the expensive part, and the nodes are shared.
const guards = new WeakMap<AST.AST, (u: unknown) => boolean>()
const isMatch = (ast: AST.AST, value: unknown): boolean => {
  let guard = guards.get(ast)
  if (guard === undefined) {
    compileParsers(ast)
    guard = Schema.is(Schema.make<Schema.Top>(ast))
    guards.set(ast, guard)
  }
  try {
    return guard(value)
  } catch {
    return false
  }
}

/** The literal values a Schema node takes, when it is a literal or a union of literals (`undefined` aside). @category accessors */
export const literalsOf = (ast: AST.AST): ReadonlyArray<AST.LiteralValue> | undefined => {
  const node = unwrap(ast)
  if (AST.isLiteral(node)) return [node.literal]
  if (AST.isUnion(node)) {
    const out: Array<AST.LiteralValue> = []
    for (const member of node.types) {
      const m = unwrap(member)
      if (AST.isLiteral(m)) out.push(m.literal)
      else if (!AST.isUndefined(m)) return undefined
    }
    return out.length > 0 ? out : undefined
  }
  return undefined
}

// `literalsOf` of a property's type, read once per node (`null`: not literals).
const literalCache = new WeakMap<AST.AST, ReadonlyArray<AST.LiteralValue> | null>()
const cachedLiterals = (ast: AST.AST): ReadonlyArray<AST.LiteralValue> | undefined => {
  let literals = literalCache.get(ast)
  if (literals === undefined) {
    literals = literalsOf(ast) ?? null
    literalCache.set(ast, literals)
  }
  return literals ?? undefined
}

// A union member whose literal fields (`type: "enabled"`) the value carries: the member it means,
// even when another of its fields is misspelled (so the misspelling is what gets named).
const discriminated = (member: AST.AST, value: unknown): boolean => {
  const node = unwrap(member)
  if (!AST.isObjects(node) || !isRecord(value)) return false
  let tagged = false
  for (const p of node.propertySignatures) {
    const literals = cachedLiterals(p.type)
    if (literals === undefined || typeof p.name !== "string") continue
    if (!Object.hasOwn(value, p.name)) {
      if (!AST.isOptional(p.type)) return false
      continue
    }
    if (!literals.includes(value[p.name] as AST.LiteralValue)) return false
    tagged = true
  }
  return tagged
}

// A member a value cannot match, told without running its guard: an object member with a literal field
// (`type: "text"`) that the value gives another value, or lacks when it is required. Such a member is
// neither matched (`isMatch`) nor `discriminated` by the value.
const ruledOut = (member: AST.AST, value: unknown): boolean => {
  const node = unwrap(member)
  if (!AST.isObjects(node) || !isRecord(value)) return false
  for (const p of node.propertySignatures) {
    if (typeof p.name !== "string") continue
    const literals = cachedLiterals(p.type)
    if (literals === undefined) continue
    if (!Object.hasOwn(value, p.name)) {
      if (!AST.isOptional(p.type)) return true
      continue
    }
    const v = value[p.name]
    if (v !== undefined && !literals.includes(v as AST.LiteralValue)) return true
  }
  return false
}

// The member of a union that describes a value: the first it matches, else the one its tags name. The
// members its literal fields rule out are skipped: they would match neither way.
const memberFor = (union: AST.Union, value: unknown): AST.AST | undefined => {
  let discriminatedMember: AST.AST | undefined
  for (const m of union.types) {
    if (ruledOut(m, value)) continue
    if (isMatch(m, value)) return m
    if (discriminatedMember === undefined && discriminated(m, value)) discriminatedMember = m
  }
  return discriminatedMember
}

/** One unknown key found inside a closed nested object. @category models */
export interface NestedUnknown {
  /** The path of the object holding it (`thinking`, `messages[0].content[1]`). */
  readonly path: string
  readonly key: string
  /** The keys that object takes. */
  readonly known: ReadonlyArray<string>
}

// The keys an object node takes, read once per node (the nodes are shared by every request).
const knownKeys = new WeakMap<AST.Objects, ReadonlyArray<string>>()
const knownOf = (node: AST.Objects): ReadonlyArray<string> => {
  let known = knownKeys.get(node)
  if (known === undefined) {
    known = node.propertySignatures.map((p) => String(p.name))
    knownKeys.set(node, known)
  }
  return known
}

// A value met by the walk: its Schema node, and where it is (its parent's frame and its key). The path
// is written only for a refusal.
interface Frame {
  readonly ast: AST.AST
  readonly value: unknown
  readonly parent: Frame | undefined
  readonly key: string | number
  readonly top: boolean
}

const pathOf = (frame: Frame): string => {
  const keys: Array<string | number> = []
  for (let f = frame; f.parent !== undefined; f = f.parent) keys.push(f.key)
  let path = ""
  for (let i = keys.length - 1; i >= 0; i--) path = at(path, keys[i]!)
  return path
}

/**
 * The first key of `value` that a closed object of `schema` below the top level does not take, or
 * `undefined`. The top level is the builder's (`closedBody`); a value the Schema does not describe
 * is left to the Schema check. Iterative and bounded by the value, so it never overflows; never throws
 * on plain data (callers check sendability first).
 * @category validators
 */
export const findNestedUnknown = (schema: Schema.Top, value: unknown): NestedUnknown | undefined => {
  const stack: Array<Frame> = [{ ast: schema.ast, value, parent: undefined, key: "", top: true }]
  while (stack.length > 0) {
    const frame = stack.pop()!
    const { ast, value: v, top } = frame
    const node = unwrap(ast)
    if (AST.isUnion(node)) {
      const member = memberFor(node, v)
      // The member stands where the union stood: same place, same path.
      if (member !== undefined) stack.push({ ast: member, value: v, parent: frame.parent, key: frame.key, top })
      continue
    }
    if (AST.isArrays(node)) {
      if (!Array.isArray(v)) continue
      for (let i = v.length - 1; i >= 0; i--) {
        const element = i < node.elements.length ? node.elements[i] : node.rest[0]
        if (element !== undefined) stack.push({ ast: element, value: v[i], parent: frame, key: i, top: false })
      }
      continue
    }
    if (!AST.isObjects(node) || !isRecord(v)) continue
    const known = knownOf(node)
    if (!top && node.indexSignatures.length === 0) {
      const key = Object.keys(v).find((k) => !known.includes(k))
      if (key !== undefined) return { path: pathOf(frame), key, known }
    }
    for (let i = node.propertySignatures.length - 1; i >= 0; i--) {
      const name = known[i]!
      if (Object.hasOwn(v, name) && v[name] !== undefined)
        stack.push({ ast: node.propertySignatures[i]!.type, value: v[name], parent: frame, key: name, top: false })
    }
  }
  return undefined
}

/**
 * Fails on the first unknown key inside a closed nested object of `schema` (see `findNestedUnknown`),
 * with the message of `refuse` ("unknown field `budget_token` in thinking; did you mean `budget_tokens`?").
 * @category validators
 */
export const refuseNestedUnknown = (
  schema: Schema.Top,
  value: unknown,
  refuse: (
    obj: Readonly<Record<string, unknown>>,
    known: ReadonlyArray<string>,
    path: string
  ) => Result.Result<void, InvalidRequest>
): Result.Result<void, InvalidRequest> => {
  const found = findNestedUnknown(schema, value)
  return found === undefined ? Result.void : refuse({ [found.key]: true }, found.known, found.path)
}
