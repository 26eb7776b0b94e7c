/**
 * `conform`: checks a value against its body Schema and turns the first failure into an
 * `InvalidRequest` with the messages of the `Rules` vocabulary — the field path, the value given and
 * the values allowed, or the message of the rule a refinement carries (FieldRules.ts).
 */
import { Effect, Either, Option, ParseResult, Schema, SchemaAST as AST } from "effect"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { type RuleAnnotation, ruleOf } from "./FieldRules.js"
import { literalsOf } from "./NestedFields.js"
import { at, describe, fail, isRecord, listAllowed } from "./Rules.js"

const isInt = (ast: AST.AST): boolean =>
  Option.getOrUndefined(AST.getSchemaIdAnnotation(ast)) === Schema.IntSchemaId

// What a type is called in "expected …" messages.
const kindOf = (ast: AST.AST): string | undefined => {
  if (AST.isRefinement(ast)) return isInt(ast) ? "an integer" : kindOf(ast.from)
  if (AST.isUnion(ast)) {
    const kinds: Array<string> = []
    for (const member of ast.types) {
      if (AST.isUndefinedKeyword(member)) continue
      const kind = kindOf(member)
      if (kind === undefined) return undefined
      if (!kinds.includes(kind)) kinds.push(kind)
    }
    return kinds.length > 0 ? kinds.join(" or ") : undefined
  }
  switch (ast._tag) {
    case "StringKeyword":
      return "a string"
    case "NumberKeyword":
      return "a number"
    case "BooleanKeyword":
      return "true or false"
    case "TypeLiteral":
      return "an object"
    case "TupleType":
      return "an array"
    case "Literal":
      return ast.literal === null ? "null" : typeof ast.literal === "string" ? "a string" : typeof ast.literal === "number" ? "a number" : undefined
    default:
      return undefined
  }
}

// A member that failed only because the value is of another kind (a string given an array).
const kindMismatch = (issue: ParseResult.ParseIssue): boolean =>
  issue._tag === "Type" || ((issue._tag === "Refinement" || issue._tag === "Transformation") && issue.kind !== "Predicate" && kindMismatch(issue.issue))

// A member of a tagged union that failed only on its tag (`type: "none"` given `"auto"`): the member
// the value meant failed elsewhere, and that failure is the one to report.
const tagMismatch = (issue: ParseResult.ParseIssue, tags: ReadonlyArray<PropertyKey>): boolean => {
  if (issue._tag !== "Composite") return false
  const inner: ReadonlyArray<ParseResult.ParseIssue> = Array.isArray(issue.issues) ? issue.issues : [issue.issues as ParseResult.ParseIssue]
  const only = inner.length === 1 ? inner[0] : undefined
  if (only?._tag !== "Pointer" || !tags.includes(Array.isArray(only.path) ? only.path[0] : only.path)) return false
  const tagIssue = only.issue
  // A missing tag counts too: the member that does not need one (an open "other kind") says more.
  if (tagIssue._tag === "Missing") return literalsOf(tagIssue.ast.type) !== undefined
  return (tagIssue._tag === "Type" || tagIssue._tag === "Composite") && literalsOf(tagIssue.ast) !== undefined
}

// The tags of a union: keys that at least two of its object members declare, at least one of them as
// literals (`type`: "custom" in one member, any other name in another).
const tagsOf = (union: AST.AST): ReadonlyArray<PropertyKey> => {
  if (!AST.isUnion(union)) return []
  const counts = new Map<PropertyKey, number>()
  const literal = new Set<PropertyKey>()
  for (const member of union.types) {
    const node = AST.isRefinement(member) ? member.from : member
    if (!AST.isTypeLiteral(node)) continue
    for (const p of node.propertySignatures) {
      counts.set(p.name, (counts.get(p.name) ?? 0) + 1)
      if (literalsOf(p.type) !== undefined) literal.add(p.name)
    }
  }
  return [...counts].filter(([k, n]) => n >= 2 && literal.has(k)).map(([k]) => k)
}

interface Leaf {
  readonly path: ReadonlyArray<PropertyKey>
  readonly issue: ParseResult.ParseIssue
}

// Every member of a tagged union refused the tag: one failure on the tag, listing every member's values.
const mergedTags = (
  union: AST.AST,
  tags: ReadonlyArray<PropertyKey>,
  issues: ReadonlyArray<ParseResult.ParseIssue>,
  path: ReadonlyArray<PropertyKey>
): Leaf | undefined => {
  let key: PropertyKey | undefined
  let actual: unknown
  const values: Array<AST.LiteralValue> = []
  for (const issue of issues) {
    if (!tagMismatch(issue, tags) || issue._tag !== "Composite") return undefined
    const pointer = (Array.isArray(issue.issues) ? issue.issues[0] : issue.issues) as ParseResult.Pointer
    if (pointer.issue._tag === "Missing") return undefined
    const k = Array.isArray(pointer.path) ? pointer.path[0] : pointer.path
    if (key !== undefined && k !== key) return undefined
    key = k
    actual = pointer.issue.actual
    for (const v of literalsOf((pointer.issue as ParseResult.Type).ast) ?? []) if (!values.includes(v)) values.push(v)
  }
  if (key === undefined) return undefined
  // In the order the union declares its members.
  if (AST.isUnion(union)) {
    const ordered: Array<AST.LiteralValue> = []
    for (const member of union.types) {
      const node = AST.isRefinement(member) ? member.from : member
      const p = AST.isTypeLiteral(node) ? node.propertySignatures.find((ps) => ps.name === key) : undefined
      for (const v of (p && literalsOf(p.type)) ?? []) if (!ordered.includes(v)) ordered.push(v)
    }
    if (values.every((v) => ordered.includes(v))) values.splice(0, values.length, ...ordered)
  }
  return { path: [...path, key], issue: new ParseResult.Type(AST.Union.make(values.map((v) => new AST.Literal(v))), actual) }
}

// The first failure, with its path; a union of literals is one failure (`one-of`), and an optional
// field's union with `undefined` is seen through.
const firstLeaf = (issue: ParseResult.ParseIssue, path: ReadonlyArray<PropertyKey>): Leaf => {
  for (let i = 0; i < 256; i++) {
    switch (issue._tag) {
      case "Pointer":
        path = [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path])]
        issue = issue.issue
        continue
      case "Composite": {
        const issues: ReadonlyArray<ParseResult.ParseIssue> = Array.isArray(issue.issues) ? issue.issues : [issue.issues as ParseResult.ParseIssue]
        if (literalsOf(issue.ast) !== undefined) return { path, issue }
        // A union's members: the one whose kind the value has (its failure is not a plain type
        // mismatch) says what is wrong; when none has, the union's own `expected` message does.
        const tags = tagsOf(issue.ast)
        const merged = mergedTags(issue.ast, tags, issues, path)
        if (merged !== undefined) return merged
        // An array reaches the tag lookup of a union of objects too; for it, a tag is not what is wrong.
        const tagged = isRecord(issue.actual) ? issues : issues.filter((i) => !tagMismatch(i, tags))
        if (tagged.length === 0) return { path, issue: new ParseResult.Type(issue.ast, issue.actual) }
        const pool = tagged
        const inner = pool.find((i) => !kindMismatch(i) && !tagMismatch(i, tags)) ?? pool.find((i) => !kindMismatch(i))
        if (inner === undefined && ruleOf(issue.ast) !== undefined) return { path, issue }
        issue = inner ?? pool.find((i) => !(i._tag === "Type" && AST.isUndefinedKeyword(i.ast))) ?? pool[0]!
        continue
      }
      case "Refinement":
        // A rule across fields points at the field it names (`acrossFields`).
        if (issue.kind === "Predicate" && issue.issue._tag === "Pointer" && ruleOf(issue.ast) !== undefined) {
          issue = issue.issue
          continue
        }
        // …or at the value itself (an empty path): its detail is the inner issue's message.
        if (issue.kind === "Predicate" && issue.issue._tag === "Type" && issue.issue.message !== undefined && ruleOf(issue.ast) !== undefined)
          return { path, issue: issue.issue }
        if (issue.kind === "Predicate") return { path, issue }
        issue = issue.issue
        continue
      case "Transformation":
        issue = issue.issue
        continue
      default:
        return { path, issue }
    }
  }
  return { path, issue }
}

const rendered = (field: string): string => (field === "" ? "the request" : field)

// The failure a rule annotation describes.
const byRule = (
  rule: RuleAnnotation,
  name: string,
  where: string,
  issue: ParseResult.ParseIssue,
  context: string | undefined
): { readonly field: string; readonly rule: string; readonly message: string } => ({
  field: name,
  rule: typeof rule.rule === "function" ? rule.rule(issue.actual) : rule.rule,
  message: rule.message(rendered(where), issue.actual, context, issue._tag === "Type" ? issue.message : undefined)
})

/** The `InvalidRequest` of a Schema failure at `field`, in the words of `Rules`. */
const invalidRequest = (
  error: ParseResult.ParseError,
  field: string,
  context: string | undefined
): { readonly field: string; readonly rule: string; readonly message: string } => {
  const leaf = firstLeaf(error.issue, [])
  const where = leaf.path.reduce<string>((p, k) => at(p, typeof k === "number" ? k : String(k)), field)
  const name = where === "" ? "(body)" : where
  const issue = leaf.issue
  switch (issue._tag) {
    case "Missing": {
      const allowed = literalsOf(issue.ast.type)
      return { field: name, rule: "required", message: `${rendered(where)} is required${allowed ? `; allowed: ${listAllowed(allowed)}` : ""}` }
    }
    case "Composite": {
      const rule = ruleOf(issue.ast)
      if (rule !== undefined) return byRule(rule, name, where, issue, context)
      const allowed = literalsOf(issue.ast) ?? []
      if (issue.actual === undefined) return { field: name, rule: "required", message: `${rendered(where)} is required; allowed: ${listAllowed(allowed)}` }
      return { field: name, rule: "one-of", message: `${rendered(where)}: ${describe(issue.actual)} is not allowed; allowed: ${listAllowed(allowed)}` }
    }
    case "Refinement": {
      const rule = ruleOf(issue.ast)
      if (rule !== undefined) return byRule(rule, name, where, issue, context)
      if (isInt(issue.ast)) return { field: name, rule: "type", message: `${rendered(where)}: expected an integer, got ${describe(issue.actual)}` }
      break
    }
    case "Type": {
      const rule = ruleOf(issue.ast)
      if (rule !== undefined) return byRule(rule, name, where, issue, context)
      const allowed = literalsOf(issue.ast)
      if (allowed !== undefined && issue.actual === undefined)
        return { field: name, rule: "required", message: `${rendered(where)} is required; allowed: ${listAllowed(allowed)}` }
      if (allowed !== undefined)
        return { field: name, rule: "one-of", message: `${rendered(where)}: ${describe(issue.actual)} is not allowed; allowed: ${listAllowed(allowed)}` }
      const kind = kindOf(issue.ast)
      if (kind !== undefined) return { field: name, rule: "type", message: `${rendered(where)}: expected ${kind}, got ${describe(issue.actual)}` }
      break
    }
  }
  const first = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
  return { field: name, rule: "schema", message: `${rendered(where)}: ${first?.message ?? "does not match the expected shape"}` }
}

// Builders are on the request path: each Schema's guard is made once, not per request.
const guards = new WeakMap<object, (u: unknown) => boolean>()
const guardOf = <A, I>(schema: Schema.Schema<A, I, never>): ((u: unknown) => u is A) => {
  let guard = guards.get(schema)
  if (guard === undefined) {
    guard = Schema.is(schema)
    guards.set(schema, guard)
  }
  // The guard stored for this schema is `Schema.is(schema)`, a guard for A.
  return guard as (u: unknown) => u is A
}

/**
 * The check of a value against its Schema, the one place a body's rules live: it narrows the type
 * without a cast, and its first failure becomes an `InvalidRequest` naming the path under `field`,
 * the value given and the values allowed (`context`, a model id, is named where a rule depends on it).
 * @category validators
 */
export const conform = <A, I>(
  schema: Schema.Schema<A, I, never>,
  value: unknown,
  field: string,
  context?: string
): Either.Either<A, InvalidRequest> => {
  if (guardOf(schema)(value)) return Either.right(value)
  const result = Schema.validateEither(schema)(value)
  if (Either.isRight(result)) return Either.right(result.right)
  const { field: name, message, rule } = invalidRequest(result.left, field, context)
  return fail(name, rule, message)
}
