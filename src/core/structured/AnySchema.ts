/**
 * One face for the schemas a user brings (an Effect Schema or any Standard Schema: zod 4, valibot,
 * arktype): the JSON Schema sent to the gateway and the decoding of a value, with typed failures.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type * as SchemaAST from "effect/SchemaAST"
import * as SchemaIssue from "effect/SchemaIssue"
import type { StandardJSONSchemaV1, StandardSchemaV1 } from "effect/StandardSchema"
import { isRecord } from "../validation/Rules.js"
import { fitJsonSchema, type FittedSchema, type JsonSchemaObject } from "./JsonSchemaFit.js"
import { SchemaMismatch, SchemaNotExpressible } from "./StructuredErrors.js"

export type { FittedSchema, JsonSchemaObject } from "./JsonSchemaFit.js"

/**
 * An Effect Schema whose decoding needs no services, or any Standard Schema value (zod 4, valibot,
 * arktype, …) whose output is `A`.
 * @category models
 */
export type AnySchema<A> = Schema.Codec<A, unknown, never, never> | StandardSchemaV1<unknown, A>

/** The decoded type of an `AnySchema`. @category models */
export type TypeOf<S> =
  S extends Schema.Codec<infer A, infer _E, infer _RD, infer _RE>
    ? A
    : S extends StandardSchemaV1<infer _I, infer A>
      ? A
      : never

/** A schema prepared for structured output: the fitted JSON Schema and the decoder of an answer. @category models */
export interface PreparedSchema<A> extends FittedSchema {
  /**
   * Decodes a parsed answer: undoes the fitting (the `null` of an optional property dropped, a
   * wrapped root unwrapped), then decodes with the schema.
   */
  readonly decodeAnswer: (answer: unknown) => Effect.Effect<A, SchemaMismatch>
}

// An `Objects` node with no property and no index signature, no checks and no encoding of its own.
const isEmptyStruct = (ast: SchemaAST.AST): boolean =>
  ast._tag === "Objects" &&
  ast.propertySignatures.length === 0 &&
  ast.indexSignatures.length === 0 &&
  ast.checks === undefined &&
  ast.encoding === undefined

const MAX_ISSUE_LINES = 20
const MAX_ISSUE_CHARS = 4000

const isEffectSchema = (schema: AnySchema<unknown>): schema is Schema.Codec<unknown, unknown, never, never> =>
  Schema.isSchema(schema)

const hasJsonSchema = (
  props: StandardSchemaV1.Props<unknown, unknown>
): props is StandardSchemaV1.Props<unknown, unknown> & StandardJSONSchemaV1.Props<unknown, unknown> => {
  const converter: unknown = (props as { readonly jsonSchema?: unknown }).jsonSchema
  return (
    typeof converter === "object" &&
    converter !== null &&
    typeof (converter as { readonly input?: unknown }).input === "function"
  )
}

const thrownMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e)).slice(0, 500)

// The raw JSON Schema and its definitions, before fitting.
const rawJsonSchema = (
  schema: AnySchema<unknown>
): Result.Result<
  { readonly root: unknown; readonly defs: Readonly<Record<string, unknown>> },
  SchemaNotExpressible
> => {
  if (isEffectSchema(schema)) {
    // `Schema.Struct({})` is "any value but null" to JSON Schema; as a tool's parameters or an answer
    // it means an object with no fields, which is what is sent.
    if (isEmptyStruct(schema.ast)) return Result.succeed({ root: { type: "object", properties: {} }, defs: {} })
    try {
      const document = Schema.toJsonSchemaDocument(schema)
      return Result.succeed({ root: document.schema, defs: document.definitions })
    } catch (e) {
      return Result.fail(
        new SchemaNotExpressible({
          path: "",
          message: `The Effect Schema cannot be expressed as JSON Schema: ${thrownMessage(e)}`
        })
      )
    }
  }
  const props = schema["~standard"]
  if (!hasJsonSchema(props))
    return Result.fail(
      new SchemaNotExpressible({
        path: "",
        message: `The ${props.vendor} schema offers no JSON Schema (no ~standard.jsonSchema): pass an explicit jsonSchema, or use an Effect Schema or a zod 4 schema.`
      })
    )
  try {
    const root = props.jsonSchema.input({ target: "draft-2020-12" })
    const defs = root["$defs"] ?? root["definitions"]
    return Result.succeed({ root, defs: isRecord(defs) ? defs : {} })
  } catch (e) {
    return Result.fail(
      new SchemaNotExpressible({
        path: "",
        message: `The ${props.vendor} schema cannot be expressed as JSON Schema: ${thrownMessage(e)}; pass an explicit jsonSchema, or change the part it names.`
      })
    )
  }
}

// The root's own `$defs`/`definitions` are read as the definitions, not walked as keywords.
const withoutDefs = (root: unknown): unknown => {
  if (!isRecord(root)) return root
  const { $defs: _defs, definitions: _definitions, ...rest } = root
  return rest
}

const fitted = new WeakMap<object, Result.Result<FittedSchema, SchemaNotExpressible>>()

/**
 * The schema fitted for structured output (see JsonSchemaFit.ts for the rules): from the Effect
 * Schema (`Schema.toJsonSchemaDocument`, the JSON codec's side), the Standard JSON Schema
 * (`~standard.jsonSchema.input`, draft 2020-12), or `override` when given (fitted by the same rules).
 * A schema that cannot be expressed fails with `SchemaNotExpressible` naming the part.
 * @category constructors
 */
export const fitSchema = (
  schema: AnySchema<unknown>,
  override?: JsonSchemaObject
): Result.Result<FittedSchema, SchemaNotExpressible> => {
  if (override !== undefined) {
    const defs = override["$defs"] ?? override["definitions"]
    return fitJsonSchema(withoutDefs(override), isRecord(defs) ? defs : {})
  }
  const cached = fitted.get(schema)
  if (cached !== undefined) return cached
  const result = Result.flatMap(rawJsonSchema(schema), ({ root, defs }) => fitJsonSchema(withoutDefs(root), defs))
  fitted.set(schema, result)
  return result
}

/**
 * The JSON Schema object sent to the gateway for `schema` (always an object schema; see `fitSchema`).
 * @category constructors
 */
export const jsonSchemaOf = (
  schema: AnySchema<unknown>,
  override?: JsonSchemaObject
): Result.Result<JsonSchemaObject, SchemaNotExpressible> => Result.map(fitSchema(schema, override), (f) => f.schema)

const pointer = (path: ReadonlyArray<PropertyKey | StandardSchemaV1.PathSegment> | undefined): string =>
  path === undefined || path.length === 0
    ? "the root"
    : path
        .map((segment) => {
          const key = typeof segment === "object" ? segment.key : segment
          return `/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`
        })
        .join("")

const mismatch = (issues: ReadonlyArray<StandardSchemaV1.Issue>): SchemaMismatch => {
  const lines = issues.slice(0, MAX_ISSUE_LINES).map((issue) => `at ${pointer(issue.path)}: ${issue.message}`)
  if (issues.length > MAX_ISSUE_LINES) lines.push(`… and ${issues.length - MAX_ISSUE_LINES} more`)
  const issue = lines.join("\n").slice(0, MAX_ISSUE_CHARS)
  const first = lines[0] ?? "at the root: the value was rejected"
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue${issues.length > 2 ? "s" : ""})` : ""
  return new SchemaMismatch({ message: `The value does not match the schema ${first}${more}`, issue })
}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1()

/**
 * Decodes an unknown value with `schema`. An Effect Schema decodes through its JSON codec
 * (`Schema.toCodecJson`, the side its JSON Schema describes); a Standard Schema through `validate`
 * (which may return a Promise). Issues become `SchemaMismatch`, each line naming its path.
 * @category decoding
 */
export const decode = <A>(schema: AnySchema<A>): ((u: unknown) => Effect.Effect<A, SchemaMismatch>) => {
  if (Schema.isSchema(schema)) {
    const codec = Schema.toCodecJson(schema as Schema.Codec<A, unknown, never, never>)
    const run = Schema.decodeUnknownEffect(codec)
    return (u) => Effect.mapError(run(u), (e) => mismatch(formatter(e.issue).issues))
  }
  const standard = schema as StandardSchemaV1<unknown, A>
  const failed = (e: unknown) =>
    new SchemaMismatch({ message: `The schema's validate failed: ${thrownMessage(e)}`, issue: thrownMessage(e) })
  const settle = (result: StandardSchemaV1.Result<A>): Effect.Effect<A, SchemaMismatch> =>
    result.issues === undefined ? Effect.succeed(result.value) : Effect.fail(mismatch(result.issues))
  return (u) =>
    Effect.suspend(() => {
      let result: StandardSchemaV1.Result<A> | Promise<StandardSchemaV1.Result<A>>
      try {
        result = standard["~standard"].validate(u)
      } catch (e) {
        return Effect.fail(failed(e))
      }
      if (result instanceof Promise)
        return Effect.flatMap(Effect.tryPromise({ try: () => result, catch: failed }), settle)
      return settle(result)
    })
}

/**
 * `fitSchema` with the decoder of an answer: what structured output and tool arguments use.
 * @category constructors
 */
export const prepareSchema = <A>(
  schema: AnySchema<A>,
  override?: JsonSchemaObject
): Result.Result<PreparedSchema<A>, SchemaNotExpressible> =>
  Result.map(fitSchema(schema as AnySchema<unknown>, override), (fit) => {
    const decoder = decode(schema)
    return { ...fit, decodeAnswer: (answer: unknown) => Effect.suspend(() => decoder(fit.relax(answer))) }
  })
