/**
 * `conform`: checks a value against its body Schema and turns the first failure into an
 * `InvalidRequest` in the words of the `Rules` vocabulary. The message gives the field path, the value
 * given and the values allowed, or the message of the rule a check carries (FieldRules.ts).
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import * as SchemaIssue from "effect/SchemaIssue"
import * as SchemaParser from "effect/SchemaParser"
import { compileParsers } from "./ParserCompiler.js"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { type RuleAnnotation, ruleOf } from "./FieldRules.js"
import { literalsOf } from "./NestedFields.js"
import { at, describe, fail, isRecord, listAllowed } from "./Rules.js"

type Issue = SchemaIssue.Issue

// The value an issue was given (the decoder runs with `reportInput`); `undefined` when none.
const inputOf = (issue: Issue): unknown => (SchemaIssue.hasInput(issue) ? issue.input : undefined)

const unwrap = (ast: AST.AST): AST.AST => {
  let node = ast
  for (let i = 0; i < 32 && AST.isSuspend(node); i++) node = node.thunk()
  return node
}

const isIntCheck = (check: AST.Check<never>): boolean =>
  check._tag === "Filter" ? check.annotations?.expected === "an integer" : check.checks.some(isIntCheck)

// A node refined to integers (`Schema.Int`, `Integer`).
const isInt = (ast: AST.AST): boolean => ast.checks?.some(isIntCheck) ?? false

// What a type is called in "expected …" messages; `own` says whether the node's own checks count (a
// value of another kind fails before any check runs, so it is named by the kind alone).
const kindOf = (ast: AST.AST, own = true): string | undefined => {
  if (own && isInt(ast)) return "an integer"
  if (AST.isUnion(ast)) {
    const kinds: Array<string> = []
    for (const member of ast.types) {
      if (AST.isUndefined(member)) continue
      const kind = kindOf(member)
      if (kind === undefined) return undefined
      if (!kinds.includes(kind)) kinds.push(kind)
    }
    return kinds.length > 0 ? kinds.join(" or ") : undefined
  }
  switch (ast._tag) {
    case "String":
      return "a string"
    case "Number":
      return "a number"
    case "Boolean":
      return "true or false"
    case "Objects":
      return "an object"
    case "Arrays":
      return "an array"
    case "Null":
      return "null"
    case "Literal":
      return typeof ast.literal === "string" ? "a string" : typeof ast.literal === "number" ? "a number" : undefined
    default:
      return undefined
  }
}

// A member that failed only because the value is of another kind (a string given an array).
const kindMismatch = (issue: Issue): boolean =>
  issue._tag === "InvalidType" || (issue._tag === "Encoding" && kindMismatch(issue.issue))

// The type of a property of an object node, if it declares it.
const propertyType = (ast: AST.AST, key: PropertyKey): AST.AST | undefined => {
  const node = unwrap(ast)
  return AST.isObjects(node) ? node.propertySignatures.find((p) => p.name === key)?.type : undefined
}

// A member of a tagged union that failed only on its tag (`type: "none"` given `"auto"`): the member
// the value meant failed elsewhere, and that failure is the one to report.
const tagMismatch = (issue: Issue, tags: ReadonlyArray<PropertyKey>): boolean => {
  if (issue._tag !== "Composite") return false
  const only = issue.issues.length === 1 ? issue.issues[0] : undefined
  if (only?._tag !== "Pointer" || only.path.length !== 1 || !tags.includes(only.path[0]!)) return false
  const tagIssue = only.issue
  // A missing tag counts too: the member that does not need one (an open "other kind") says more.
  if (tagIssue._tag === "MissingKey") {
    const type = propertyType(issue.ast, only.path[0]!)
    return type !== undefined && literalsOf(type) !== undefined
  }
  return (tagIssue._tag === "InvalidType" || tagIssue._tag === "AnyOf") && literalsOf(tagIssue.ast) !== undefined
}

// The object members of a union, seen through suspensions.
const objectMembers = (union: AST.Union): ReadonlyArray<AST.Objects> => {
  const out: Array<AST.Objects> = []
  for (const member of union.types) {
    const node = unwrap(member)
    if (AST.isObjects(node)) out.push(node)
  }
  return out
}

// The tags of a union: keys that at least two of its object members declare, at least one of them as
// literals (`type`: "custom" in one member, any other name in another).
const tagsOf = (union: AST.AST): ReadonlyArray<PropertyKey> => {
  if (!AST.isUnion(union)) return []
  const counts = new Map<PropertyKey, number>()
  const literal = new Set<PropertyKey>()
  for (const node of objectMembers(union)) {
    for (const p of node.propertySignatures) {
      counts.set(p.name, (counts.get(p.name) ?? 0) + 1)
      if (literalsOf(p.type) !== undefined) literal.add(p.name)
    }
  }
  return [...counts].filter(([k, n]) => n >= 2 && literal.has(k)).map(([k]) => k)
}

/**
 * The literal keys that select a member of a union (required properties of one literal value), each
 * with the values the members take, in the order the union declares them; suspended members are
 * looked through. The one reading of a union's tags, for checking bodies and for decode messages.
 * @internal
 */
export const selectorsOf = (
  union: AST.Union
): ReadonlyArray<readonly [PropertyKey, ReadonlyArray<AST.LiteralValue>]> => {
  const keys = new Map<PropertyKey, Array<AST.LiteralValue>>()
  for (const node of objectMembers(union))
    for (const p of node.propertySignatures) {
      if (AST.isOptional(p.type) || !AST.isLiteral(p.type)) continue
      const values = keys.get(p.name) ?? []
      if (!values.includes(p.type.literal)) values.push(p.type.literal)
      keys.set(p.name, values)
    }
  return [...keys]
}

const reported: AST.ParseOptions = { reportInput: true }

/**
 * The failures on a union's selecting keys that Schema does not report (it only tries the members a
 * value's tag selects): an unknown tag value, or a missing tag, each listing the values the members take.
 */
const selectorIssues = (union: AST.Union, value: unknown): ReadonlyArray<Issue> => {
  const selectors = selectorsOf(union)
  if (selectors.length === 0) return []
  if (!isRecord(value) && !Array.isArray(value)) return [new SchemaIssue.InvalidType(union, value, reported)]
  const out: Array<Issue> = []
  for (const [key, values] of selectors) {
    const type = new AST.Union(values.map((v) => new AST.Literal(v)))
    const owner = new AST.Objects([new AST.PropertySignature(key, type)], [])
    if (!Object.hasOwn(value, key))
      out.push(
        new SchemaIssue.Composite(owner, [new SchemaIssue.Pointer([key], new SchemaIssue.MissingKey(undefined))])
      )
    else {
      const given: unknown = (value as Readonly<Record<PropertyKey, unknown>>)[key]
      if (!values.some((v) => v === given))
        out.push(
          new SchemaIssue.Composite(
            owner,
            [new SchemaIssue.Pointer([key], new SchemaIssue.AnyOf(type, [], given, reported))],
            value,
            reported
          )
        )
    }
  }
  return out
}

interface Leaf {
  readonly path: ReadonlyArray<PropertyKey>
  readonly issue: Issue
  /** The type of the field a missing key names, when known. */
  readonly field?: AST.AST | undefined
  /** What a check found (`acrossFields`), for its message. */
  readonly detail?: string | undefined
}

// Every member of a tagged union refused the tag: one failure on the tag, listing every member's values.
const mergedTags = (
  union: AST.AST,
  tags: ReadonlyArray<PropertyKey>,
  issues: ReadonlyArray<Issue>,
  path: ReadonlyArray<PropertyKey>
): Leaf | undefined => {
  if (issues.length === 0) return undefined
  let key: PropertyKey | undefined
  let actual: unknown
  const values: Array<AST.LiteralValue> = []
  for (const issue of issues) {
    if (!tagMismatch(issue, tags) || issue._tag !== "Composite") return undefined
    const pointer = issue.issues[0]
    if (pointer._tag !== "Pointer" || pointer.issue._tag === "MissingKey") return undefined
    const k = pointer.path[0]
    if (key !== undefined && k !== key) return undefined
    key = k
    actual = inputOf(pointer.issue)
    const tagAst =
      pointer.issue._tag === "InvalidType" || pointer.issue._tag === "AnyOf" ? pointer.issue.ast : undefined
    for (const v of (tagAst && literalsOf(tagAst)) ?? []) if (!values.includes(v)) values.push(v)
  }
  if (key === undefined) return undefined
  // In the order the union declares its members.
  if (AST.isUnion(union)) {
    const ordered: Array<AST.LiteralValue> = []
    for (const node of objectMembers(union)) {
      const p = node.propertySignatures.find((ps) => ps.name === key)
      for (const v of (p && literalsOf(p.type)) ?? []) if (!ordered.includes(v)) ordered.push(v)
    }
    if (values.every((v) => ordered.includes(v))) values.splice(0, values.length, ...ordered)
  }
  const type = new AST.Union(values.map((v) => new AST.Literal(v)))
  return { path: [...path, key], issue: new SchemaIssue.AnyOf(type, [], actual, reported) }
}

// The message of the innermost issue a check produced (`{ path, issue: "…" }` of `acrossFields`).
const detailOf = (issue: Issue): string | undefined => {
  let node = issue
  for (let i = 0; i < 32 && node._tag === "Pointer"; i++) node = node.issue
  const message = node._tag === "InvalidValue" ? node.annotations?.message : undefined
  return typeof message === "string" ? message : undefined
}

// The first failure, with its path; a union of literals is one failure (`one-of`), and an optional
// field's union with `undefined` is seen through.
const firstLeaf = (root: Issue): Leaf => {
  let issue = root
  let path: ReadonlyArray<PropertyKey> = []
  let field: AST.AST | undefined
  for (let i = 0; i < 256; i++) {
    switch (issue._tag) {
      case "Pointer":
        path = [...path, ...issue.path]
        issue = issue.issue
        continue
      case "Encoding":
        issue = issue.issue
        continue
      case "Composite": {
        // An object's or array's failures, or its checks': the first (decoding stops at the first).
        const first = issue.issues[0]
        if (first._tag === "Pointer" && first.path.length === 1) field = propertyType(issue.ast, first.path[0]!)
        issue = first
        continue
      }
      case "AnyOf": {
        const union = issue.ast
        const actual = inputOf(issue)
        if (literalsOf(union) !== undefined) return { path, issue }
        // The members tried failed, and the members a tag rules out are failures on the tag.
        const pool = [...selectorIssues(union, actual), ...issue.issues]
        const tags = tagsOf(union)
        const merged = mergedTags(union, tags, pool, path)
        if (merged !== undefined) return merged
        // An array reaches the tag lookup of a union of objects too; for it, a tag is not what is wrong.
        const tagged = isRecord(actual) ? pool : pool.filter((i) => !tagMismatch(i, tags))
        const inner =
          tagged.find((i) => !kindMismatch(i) && !tagMismatch(i, tags)) ?? tagged.find((i) => !kindMismatch(i))
        if (inner !== undefined) {
          issue = inner
          continue
        }
        // A value of none of the members' kinds: the union's own `expected` message, or the first
        // member's kind (Schema tries only the members of the value's kind).
        if (ruleOf(union) !== undefined) return { path, issue }
        const first = tagged[0] ?? (pool.length > 0 ? undefined : union.types.find((m) => !AST.isUndefined(m)))
        if (first === undefined) return { path, issue: new SchemaIssue.InvalidType(union, actual, reported) }
        if (AST.isAST(first)) return { path, issue: new SchemaIssue.InvalidType(first, actual, reported) }
        issue = first
        continue
      }
      case "Filter": {
        const rule = ruleOf(issue.filter)
        // A rule across fields points at the field it names (`acrossFields`), or at the value itself.
        if (rule !== undefined && issue.issue._tag === "Pointer")
          return { path: [...path, ...issue.issue.path], issue, detail: detailOf(issue.issue) }
        return { path, issue, detail: detailOf(issue.issue) }
      }
      default:
        return { path, issue, field }
    }
  }
  return { path, issue }
}

const rendered = (field: string): string => (field === "" ? "the request" : field)

interface Failure {
  readonly field: string
  readonly rule: string
  readonly message: string
}

// The failure a rule annotation describes.
const byRule = (
  rule: RuleAnnotation,
  name: string,
  where: string,
  actual: unknown,
  context: string | undefined,
  detail: string | undefined
): Failure => ({
  field: name,
  rule: typeof rule.rule === "function" ? rule.rule(actual) : rule.rule,
  message: rule.message(rendered(where), actual, context, detail)
})

const oneOfValues = (
  name: string,
  where: string,
  allowed: ReadonlyArray<AST.LiteralValue>,
  actual: unknown
): Failure =>
  actual === undefined
    ? { field: name, rule: "required", message: `${rendered(where)} is required; allowed: ${listAllowed(allowed)}` }
    : {
        field: name,
        rule: "one-of",
        message: `${rendered(where)}: ${describe(actual)} is not allowed; allowed: ${listAllowed(allowed)}`
      }

const schemaMessage = SchemaIssue.makeFormatterStandardSchemaV1()

/** The `InvalidRequest` of a Schema failure at `field`, in the words of `Rules`. */
const invalidRequest = (root: Issue, field: string, context: string | undefined): Failure => {
  const leaf = firstLeaf(root)
  const where = leaf.path.reduce<string>((p, k) => at(p, typeof k === "number" ? k : String(k)), field)
  const name = where === "" ? "(body)" : where
  const issue = leaf.issue
  const actual = inputOf(issue)
  switch (issue._tag) {
    case "MissingKey": {
      const allowed = leaf.field === undefined ? undefined : literalsOf(leaf.field)
      return {
        field: name,
        rule: "required",
        message: `${rendered(where)} is required${allowed ? `; allowed: ${listAllowed(allowed)}` : ""}`
      }
    }
    case "AnyOf": {
      const rule = ruleOf(issue.ast)
      if (rule !== undefined) return byRule(rule, name, where, actual, context, undefined)
      return oneOfValues(name, where, literalsOf(issue.ast) ?? [], actual)
    }
    case "Filter": {
      const rule = ruleOf(issue.filter)
      if (rule !== undefined) return byRule(rule, name, where, actual, context, leaf.detail)
      if (isIntCheck(issue.filter))
        return {
          field: name,
          rule: "type",
          message: `${rendered(where)}: expected an integer, got ${describe(actual)}`
        }
      break
    }
    case "InvalidType": {
      const rule = ruleOf(issue.ast)
      if (rule !== undefined) return byRule(rule, name, where, actual, context, undefined)
      const allowed = literalsOf(issue.ast)
      if (allowed !== undefined) return oneOfValues(name, where, allowed, actual)
      const kind = kindOf(issue.ast, false)
      if (kind !== undefined)
        return { field: name, rule: "type", message: `${rendered(where)}: expected ${kind}, got ${describe(actual)}` }
      break
    }
  }
  const first = schemaMessage(issue).issues[0]
  return {
    field: name,
    rule: "schema",
    message: `${rendered(where)}: ${first?.message ?? "does not match the expected shape"}`
  }
}

// Builders are on the request path: each Schema's guard and check are made once, not per request,
// at the first use, and compiled where the platform chose a compiler (`ParserCompiler.ts`: Effect's
// JIT compiler outside browsers; its results and issues are the interpreter's).
interface Checker<A> {
  readonly is: (u: unknown) => u is A
  readonly check: (u: unknown) => Result.Result<A, Issue>
}
const checkers = new WeakMap<object, Checker<unknown>>()
const checkerOf = <S extends Schema.Top>(schema: S): Checker<S["Type"]> => {
  const known = checkers.get(schema)
  // The checker stored for this schema is the one built below for it: a checker of `S["Type"]`.
  if (known !== undefined) return known as Checker<S["Type"]>
  const type = Schema.toType(schema)
  compileParsers(type.ast)
  const checker: Checker<S["Type"]> = { is: Schema.is(type), check: SchemaParser.decodeUnknownResult(type, reported) }
  checkers.set(schema, checker)
  return checker
}

/**
 * The check of a value against its Schema, the one place a body's rules live: it narrows the type
 * without a cast, and its first failure becomes an `InvalidRequest` naming the path under `field`,
 * the value given and the values allowed (`context`, a model id, is named where a rule depends on it).
 * @category validators
 */
export const conform = <S extends Schema.Top>(
  schema: S,
  value: unknown,
  field: string,
  context?: string
): Result.Result<S["Type"], InvalidRequest> => {
  const checker = checkerOf(schema)
  if (checker.is(value)) return Result.succeed(value)
  const result = checker.check(value)
  if (Result.isSuccess(result)) return Result.succeed(result.success)
  const { field: name, message, rule } = invalidRequest(result.failure, field, context)
  return fail(name, rule, message)
}
