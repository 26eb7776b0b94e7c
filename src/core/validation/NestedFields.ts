/**
 * Closed nested objects, read from the body's Schema: an object Schema without an index signature
 * is closed, so an unknown key inside it (`thinking.budget_token`) is refused naming the nearest
 * known one; an object Schema with an index signature (`metadata`, a tool's `input_schema`) is open.
 * The Schema is the one place that says which nested objects are closed.
 */
import { Either, Schema, SchemaAST as AST } from "effect"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { at, isRecord } from "./Rules.js"

// The object shape behind refinements, suspensions and transformations (the type side).
const unwrap = (ast: AST.AST): AST.AST => {
  let node = ast
  for (let i = 0; i < 32; i++) {
    if (AST.isRefinement(node)) node = node.from
    else if (AST.isSuspend(node)) node = node.f()
    else if (AST.isTransformation(node)) node = node.to
    else return node
  }
  return node
}

// One compiled guard per Schema node: compiling is the expensive part, and the nodes are shared.
const guards = new WeakMap<AST.AST, (u: unknown) => boolean>()
const isMatch = (ast: AST.AST, value: unknown): boolean => {
  let guard = guards.get(ast)
  if (guard === undefined) {
    guard = Schema.is(Schema.make(ast))
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
      else if (!AST.isUndefinedKeyword(m)) return undefined
    }
    return out.length > 0 ? out : undefined
  }
  return undefined
}

// A union member whose literal fields (`type: "enabled"`) the value carries: the member it means,
// even when another of its fields is misspelled (so the misspelling is what gets named).
const discriminated = (member: AST.AST, value: unknown): boolean => {
  const node = unwrap(member)
  if (!AST.isTypeLiteral(node) || !isRecord(value)) return false
  let tagged = false
  for (const p of node.propertySignatures) {
    const literals = literalsOf(p.type)
    if (literals === undefined || typeof p.name !== "string") continue
    if (!Object.hasOwn(value, p.name)) {
      if (!p.isOptional) return false
      continue
    }
    if (!literals.includes(value[p.name] as AST.LiteralValue)) return false
    tagged = true
  }
  return tagged
}

// The member of a union that describes a value: the first it matches, else the one its tags name.
const memberFor = (union: AST.Union, value: unknown): AST.AST | undefined =>
  union.types.find((m) => isMatch(m, value)) ?? union.types.find((m) => discriminated(m, value))

/** One unknown key found inside a closed nested object. @category models */
export interface NestedUnknown {
  /** The path of the object holding it (`thinking`, `messages[0].content[1]`). */
  readonly path: string
  readonly key: string
  /** The keys that object takes. */
  readonly known: ReadonlyArray<string>
}

/**
 * The first key of `value` that a closed object of `schema` below the top level does not take, or
 * `undefined`. The top level is the builder's (`closedBody`); a value the Schema does not describe
 * is left to the Schema check. Iterative and bounded by the value, so it never overflows; never throws
 * on plain data (callers check sendability first).
 * @category validators
 */
export const findNestedUnknown = (schema: Schema.Schema.Any, value: unknown): NestedUnknown | undefined => {
  const stack: Array<{ readonly ast: AST.AST; readonly value: unknown; readonly path: string; readonly top: boolean }> = [
    { ast: schema.ast, value, path: "", top: true }
  ]
  while (stack.length > 0) {
    const { ast, value: v, path, top } = stack.pop()!
    const node = unwrap(ast)
    if (AST.isUnion(node)) {
      const member = memberFor(node, v)
      if (member !== undefined) stack.push({ ast: member, value: v, path, top })
      continue
    }
    if (AST.isTupleType(node)) {
      if (!Array.isArray(v)) continue
      for (let i = v.length - 1; i >= 0; i--) {
        const element = i < node.elements.length ? node.elements[i]!.type : node.rest[0]?.type
        if (element !== undefined) stack.push({ ast: element, value: v[i], path: at(path, i), top: false })
      }
      continue
    }
    if (!AST.isTypeLiteral(node) || !isRecord(v)) continue
    const known = node.propertySignatures.map((p) => String(p.name))
    if (!top && node.indexSignatures.length === 0) {
      const key = Object.keys(v).find((k) => !known.includes(k))
      if (key !== undefined) return { path, key, known }
    }
    for (let i = node.propertySignatures.length - 1; i >= 0; i--) {
      const p = node.propertySignatures[i]!
      const name = String(p.name)
      if (Object.hasOwn(v, name) && v[name] !== undefined) stack.push({ ast: p.type, value: v[name], path: at(path, name), top: false })
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
  schema: Schema.Schema.Any,
  value: unknown,
  refuse: (obj: Readonly<Record<string, unknown>>, known: ReadonlyArray<string>, path: string) => Either.Either<void, InvalidRequest>
): Either.Either<void, InvalidRequest> => {
  const found = findNestedUnknown(schema, value)
  return found === undefined ? Either.void : refuse({ [found.key]: true }, found.known, found.path)
}
