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

// What the walk needs of a union's member to tell, without its guard, whether a value can be it: its
// kind, and its literal fields (`type: "text"`). Read once per union (the nodes are shared by every
// request), so a content block's member is found with a few comparisons.
interface Tag {
  readonly name: string
  readonly literals: ReadonlyArray<AST.LiteralValue>
  readonly optional: boolean
}
interface Member {
  readonly ast: AST.AST
  readonly kind: "objects" | "arrays" | "string" | "number" | "boolean" | "literal" | "other"
  readonly literal: AST.LiteralValue | undefined
  readonly tags: ReadonlyArray<Tag>
}

const memberOf = (ast: AST.AST): Member => {
  const node = unwrap(ast)
  const tags: Array<Tag> = []
  if (AST.isObjects(node))
    for (const p of node.propertySignatures) {
      const literals = typeof p.name === "string" ? literalsOf(p.type) : undefined
      if (literals !== undefined) tags.push({ name: p.name as string, literals, optional: AST.isOptional(p.type) })
    }
  const kind = AST.isObjects(node)
    ? "objects"
    : AST.isArrays(node)
      ? "arrays"
      : AST.isString(node)
        ? "string"
        : AST.isNumber(node)
          ? "number"
          : AST.isBoolean(node)
            ? "boolean"
            : AST.isLiteral(node)
              ? "literal"
              : "other"
  return { ast, kind, literal: AST.isLiteral(node) ? node.literal : undefined, tags }
}

const unionMembers = new WeakMap<AST.Union, ReadonlyArray<Member>>()
const membersOf = (union: AST.Union): ReadonlyArray<Member> => {
  let members = unionMembers.get(union)
  if (members === undefined) {
    members = union.types.map(memberOf)
    unionMembers.set(union, members)
  }
  return members
}

// A member whose literal fields the value carries (`type: "enabled"`): the member it means, even
// when another of its fields is misspelled (so the misspelling is what gets named).
const discriminated = (member: Member, value: unknown): boolean => {
  if (member.kind !== "objects" || !isRecord(value)) return false
  let tagged = false
  for (const tag of member.tags) {
    if (!Object.hasOwn(value, tag.name)) {
      if (!tag.optional) return false
      continue
    }
    if (!tag.literals.includes(value[tag.name] as AST.LiteralValue)) return false
    tagged = true
  }
  return tagged
}

// A member a value cannot match, told without running its guard: a member of another kind (a string
// member for an object value, an object member for an array) or another literal, or an object member
// with a literal field that the value gives another value, or lacks when it is required. Such a member
// is neither matched (`isMatch`) nor `discriminated` by the value.
const ruledOut = (member: Member, value: unknown): boolean => {
  switch (member.kind) {
    case "arrays":
      return !Array.isArray(value)
    case "string":
      return typeof value !== "string"
    case "number":
      return typeof value !== "number"
    case "boolean":
      return typeof value !== "boolean"
    case "literal":
      return value !== member.literal
    case "other":
      return false
  }
  // What Schema's object check refuses (an object of a class is left to the guard).
  if (!isRecord(value)) return typeof value !== "object" || value === null || Array.isArray(value)
  for (const tag of member.tags) {
    if (!Object.hasOwn(value, tag.name)) {
      if (!tag.optional) return true
      continue
    }
    const v = value[tag.name]
    if (v !== undefined && !tag.literals.includes(v as AST.LiteralValue)) return true
  }
  return false
}

// The member of a union that describes a value: the first it matches, else the one its tags name. The
// members its literal fields or its kind rule out are skipped: they would match neither way. When one
// member is left, and it has no literal fields or the value's tags name it, the value can only be that
// member, matched or not, so its guard is not run: a tagged union's usual case (a content block's
// `type`), and a union of kinds (a `content` that is a string or an array of blocks). A value that
// does not match it is walked all the same, as a tagged one always was: an unknown key inside is
// named before the Schema's check of the rest.
const memberFor = (union: AST.Union, value: unknown): AST.AST | undefined => {
  const members = membersOf(union)
  let only: Member | undefined
  let left = 0
  for (const m of members) {
    if (ruledOut(m, value)) continue
    left++
    only = m
  }
  if (left === 0) return undefined
  if (left === 1 && (only!.tags.length === 0 || discriminated(only!, value))) return only!.ast
  let discriminatedMember: Member | undefined
  for (const m of members) {
    if (ruledOut(m, value)) continue
    if (isMatch(m.ast, value)) return m.ast
    if (discriminatedMember === undefined && discriminated(m, value)) discriminatedMember = m
  }
  return discriminatedMember?.ast
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
