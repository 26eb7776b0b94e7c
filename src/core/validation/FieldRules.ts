/**
 * Rules carried by a body's Schema, so a rule is written once, in the Schema that also gives the body
 * its type. They are refinements annotated with their rule name and message (`range`, `non-empty`,
 * `one-of` for a described form, …); `conform` (Conform.ts) reports them in the words of `Rules`.
 */
import type { SchemaAST as AST } from "effect"
import * as Schema from "effect/Schema"
import { describe, listAllowed } from "./Rules.js"

/**
 * The annotation key of a rule carried by a check (or a Schema node). A string: Schema annotations are
 * keyed by strings.
 * @category annotations
 */
export const RuleAnnotationId = "umg/core/RuleAnnotation"

/** A rule as a refinement carries it: its stable name and its message. @category models */
export interface RuleAnnotation {
  /** The rule's name, or, for a rule that names a value's kind, the name for the value given. */
  readonly rule: string | ((value: unknown) => string)
  /**
   * The message for `field` given `value`; `context` (a model id) says what the rule depends on;
   * `detail` is what a rule across fields (`acrossFields`) found.
   */
  readonly message: (field: string, value: unknown, context: string | undefined, detail: string | undefined) => string
}

const isRuleAnnotation = (u: unknown): u is RuleAnnotation =>
  typeof u === "object" && u !== null && "message" in u && typeof u.message === "function" && "rule" in u

/** The rule a Schema node or one of its checks carries, if any. @category annotations */
export const ruleOf = (node: AST.AST | AST.Check<never>): RuleAnnotation | undefined => {
  const rule = node.annotations?.[RuleAnnotationId]
  return isRuleAnnotation(rule) ? rule : undefined
}

/** Attaches a rule to a predicate: the check fails with that rule's name and message. @category constructors */
export const withRule =
  <A>(predicate: (a: A) => boolean, annotation: RuleAnnotation) =>
  <S extends Schema.Top & { readonly Type: A }>(self: S): S["Rebuild"] =>
    self.check(Schema.makeFilter<A>(predicate, { [RuleAnnotationId]: annotation }))

/**
 * Names what a union takes, for a value of none of its kinds: "documents[1]: expected a string or an
 * object with text, got 3" (rule `type`). A value of one member's kind is reported by that member.
 * @category constructors
 */
export const expected =
  (what: string) =>
  <S extends Schema.Top>(self: S): S["Rebuild"] =>
    self.annotate({
      [RuleAnnotationId]: {
        rule: "type",
        message: (field: string, value: unknown) => `${field}: expected ${what}, got ${describe(value)}`
      } satisfies RuleAnnotation
    })

/**
 * A rule across the fields of a struct (or the items of an array), reported at the field it names:
 * `check` returns that field's key, or its path below the value (`[1, "type"]`; `[]` for the value
 * itself), and a detail for the message (or `undefined` when the value keeps the rule), e.g.
 * "contents[0].parts[1]: holds text and inlineData; a part holds exactly one of …" (rule `one-of`).
 * `message` is also given the context `conform` names (a model id).
 * @category constructors
 */
export const acrossFields = <S extends Schema.Top>(
  self: S,
  rule: string,
  check: (
    a: S["Type"]
  ) => { readonly key: PropertyKey | ReadonlyArray<PropertyKey>; readonly detail: string } | undefined,
  message: (field: string, detail: string, context: string | undefined) => string
): S["Rebuild"] =>
  self.check(
    Schema.makeFilter<S["Type"]>(
      (a) => {
        const found = check(a)
        if (found === undefined) return undefined
        const path: ReadonlyArray<PropertyKey> = typeof found.key === "object" ? found.key : [found.key]
        return { path, issue: found.detail }
      },
      {
        [RuleAnnotationId]: {
          rule,
          message: (field, _value, context, detail) => message(field, detail ?? "", context)
        } satisfies RuleAnnotation
      }
    )
  )

/** The message of an `acrossFields` rule whose detail says it all: `field: detail`. @category rendering */
export const detailed = (field: string, detail: string): string => `${field}: ${detail}`

/** Bounds of `range` (each inclusive unless `minExclusive`). @category models */
export interface Bounds {
  readonly min?: number
  readonly max?: number
  readonly minExclusive?: boolean
}

/** The allowed part of a range message: `0 to 2`, `greater than 0`, `at least 1 and at most 4`. */
const allowedText = ({ min, max, minExclusive }: Bounds): string => {
  if (min !== undefined && max !== undefined && !minExclusive) return `${min} to ${max}`
  const lower = min === undefined ? "" : minExclusive ? `greater than ${min}` : `at least ${min}`
  const upper = max === undefined ? "" : `at most ${max}`
  return [lower, upper].filter(Boolean).join(" and ")
}

/**
 * A number within bounds: "temperature: 3 is out of range for gpt-4o; allowed: 0 to 2" (rule `range`).
 * @category constructors
 */
export const range =
  (bounds: Bounds) =>
  <S extends Schema.Top & { readonly Type: number }>(self: S): S["Rebuild"] =>
    withRule<number>(
      (n) =>
        (bounds.min === undefined || (bounds.minExclusive ? n > bounds.min : n >= bounds.min)) &&
        (bounds.max === undefined || n <= bounds.max),
      {
        rule: "range",
        message: (field, value, context) =>
          `${field}: ${describe(value)} is out of range${context ? ` for ${context}` : ""}; allowed: ${allowedText(bounds)}`
      }
    )(self)

/**
 * The sampling temperature of the chat, responses and native-content bodies: 0 to 2 (rule `range`).
 * @category schemas
 */
export const SamplingTemperature = Schema.Number.pipe(range({ min: 0, max: 2 }))

/** Nucleus sampling (`top_p`, `topP`) of every text body: 0 to 1 (rule `range`). @category schemas */
export const SamplingTopP = Schema.Number.pipe(range({ min: 0, max: 1 }))

/**
 * How many likeliest alternatives each token's logprobs list (`top_logprobs` of the chat and responses
 * bodies): an integer 0 to 20 (rule `range`).
 * @category schemas
 */
export const TopLogprobs = Schema.Int.pipe(range({ min: 0, max: 20 }))

/**
 * The image types a generated image comes in: `mime_type` of an images body (E15) and
 * `imageConfig.imageOutputOptions.mimeType` of a native-content body (E10). The OpenAI images shape's
 * output formats (protocol notes §3.7: png, jpeg, webp), which the emulator makes too.
 * @category models
 */
export const imageOutputTypes = ["image/png", "image/jpeg", "image/webp"] as const

/** A generated image's type, one of `imageOutputTypes` (rule `one-of`). @category schemas */
export const ImageOutputType = Schema.Literals(imageOutputTypes)

/** A string with something besides white space in it: "input must not be empty" (rule `non-empty`). @category schemas */
export const NonBlank = withRule<string>((s) => s.trim() !== "", {
  rule: "non-empty",
  message: (field) => `${field} must not be empty`
})(Schema.String)

/**
 * A string of a described form: "size: \"1024x1024\" is not allowed for M; allowed: an aspect ratio
 * such as 16:9" (rule `one-of`).
 * @category constructors
 */
export const matching =
  (pattern: RegExp, allowed: string) =>
  <S extends Schema.Top & { readonly Type: string }>(self: S): S["Rebuild"] =>
    withRule<string>(
      (s) => {
        pattern.lastIndex = 0
        return pattern.test(s)
      },
      {
        rule: "one-of",
        message: (field, value, context) =>
          `${field}: ${describe(value)} is not allowed${context ? ` for ${context}` : ""}; allowed: ${allowed}`
      }
    )(self)

/**
 * A string of a described form, named the same way for a value of another kind: "imageSize: 5 is not
 * allowed for M; allowed: 1K, 2K, 4K" (rule `one-of`).
 * @category constructors
 */
export const described = (pattern: RegExp, allowed: string): Schema.String =>
  Schema.String.annotate({
    [RuleAnnotationId]: {
      rule: "one-of",
      message: (field, value, context) =>
        `${field}: ${describe(value)} is not allowed${context ? ` for ${context}` : ""}; allowed: ${allowed}`
    } satisfies RuleAnnotation
  }).pipe(matching(pattern, allowed))

/**
 * The characters of a string, as upstream limits count them: Unicode code points, so an emoji (a
 * surrogate pair) is one character and a lone surrogate is one too.
 */
const characterCount = (s: string): number => {
  let count = 0
  // A string iterates by code point, a lone surrogate on its own.
  for (const _ of s) count++
  return count
}

/**
 * A string of at most `max` characters (code points, `characterCount`): "input: 5000 characters is too
 * long; allowed: at most 4096" (rule `max-length`). The value is not repeated: it may be long.
 * @category constructors
 */
export const maxLength =
  (max: number) =>
  <S extends Schema.Top & { readonly Type: string }>(self: S): S["Rebuild"] =>
    withRule<string>((s) => s.length <= max || characterCount(s) <= max, {
      rule: "max-length",
      message: (field, value, context) =>
        `${field}: ${typeof value === "string" ? characterCount(value) : "?"} characters is too long${context ? ` for ${context}` : ""}; allowed: at most ${max}`
    })(self)

/** A string of at least one character: "input must not be empty" (rule `non-empty`). @category schemas */
export const NonEmpty = withRule<string>((s) => s.length > 0, {
  rule: "non-empty",
  message: (field) => `${field} must not be empty`
})(Schema.String)

/** A non-empty array: "messages must not be empty" (rule `non-empty`). @category constructors */
export const nonEmptyArray = <S extends Schema.Top>(item: S) =>
  withRule<ReadonlyArray<S["Type"]>>((a) => a.length > 0, {
    rule: "non-empty",
    message: (field) => `${field} must not be empty`
  })(Schema.Array(item))

/**
 * One of fixed values: "personGeneration: \"x\" is not allowed for M; allowed: allow_all, …" (rule
 * `one-of`; the model is named when `conform` is given one).
 * @category constructors
 */
export const oneOf = <const L extends ReadonlyArray<AST.LiteralValue>>(...values: L) =>
  Schema.Literals(values).annotate({
    [RuleAnnotationId]: {
      rule: "one-of",
      message: (field, value, context) =>
        `${field}: ${describe(value)} is not allowed${context ? ` for ${context}` : ""}; allowed: ${listAllowed(values)}`
    } satisfies RuleAnnotation
  })

/** A plain object whose members stay open ("item: expected an object, got 5", rule `type`). @category schemas */
export const OpenObject = Schema.Record(Schema.String, Schema.Unknown)

/** An integer, named as one for a value of any other kind: "seed: expected an integer, got \"x\"" (rule `type`). @category schemas */
export const Integer = Schema.Number.annotate({
  [RuleAnnotationId]: {
    rule: "type",
    message: (field, value) => `${field}: expected an integer, got ${describe(value)}`
  } satisfies RuleAnnotation
}).check(Schema.isInt())
