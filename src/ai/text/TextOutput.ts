/**
 * Structured output for the frameworks' providers. The JSON Schema a framework asks for is fitted by
 * umg's rules and sent through the family's own mechanism (docs/ARCHITECTURE.md, structured output),
 * and the answer's JSON text is given back as the framework's schema reads it (what the fitting
 * changed undone).
 */
import * as Result from "effect/Result"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { fitJsonSchema, type FittedSchema, type JsonSchemaObject } from "../../core/structured/JsonSchemaFit.js"
import { type SchemaTarget, schemaTarget } from "../../core/structured/Mechanisms.js"
import type { SchemaNotExpressible } from "../../core/structured/StructuredErrors.js"
import { isRecord } from "../../core/validation/Rules.js"
import { parseJsonText } from "../../core/wire/WireJson.js"

/**
 * The structured output of a request. `target` is what the family's mechanism sends (absent: JSON
 * text without a schema, where the family has such a mode). `streamable` is true when the answer's
 * text is already what the framework's schema reads, so a stream can hand its pieces on as they come;
 * otherwise the text is rewritten once it is whole (`answerText`).
 * @category models
 */
export interface TextOutput {
  readonly target: SchemaTarget | undefined
  readonly streamable: boolean
  readonly relax: (answer: unknown) => unknown
}

/** What a framework says about the output besides its schema. @category models */
export interface OutputOptions {
  readonly name?: string | undefined
  readonly description?: string | undefined
  /** `false` never asks for strict mode; by default it is asked when the fitted schema meets its rules. */
  readonly strict?: boolean | undefined
}

const maxWalkDepth = 64

/**
 * Whether a fitted schema has a property that accepts `null`: the fitting turns an optional property
 * into a nullable one, and `relax` drops such a `null` again, so an answer's text can differ from what
 * the framework's schema reads only then (a property nullable of its own is counted too, which only
 * costs a rewrite).
 */
const hasNullableProperty = (schema: unknown, depth = 0): boolean => {
  if (depth > maxWalkDepth) return true
  if (Array.isArray(schema)) return schema.some((s) => hasNullableProperty(s, depth + 1))
  if (!isRecord(schema)) return false
  const properties = schema["properties"]
  if (isRecord(properties) && Object.values(properties).some(acceptsNull)) return true
  return Object.entries(schema).some(
    ([key, value]) => key !== "enum" && key !== "const" && hasNullableProperty(value, depth + 1)
  )
}

const acceptsNull = (schema: unknown): boolean => {
  if (!isRecord(schema)) return false
  const type = schema["type"]
  if (type === "null" || (Array.isArray(type) && type.includes("null"))) return true
  const anyOf = schema["anyOf"]
  return Array.isArray(anyOf) && anyOf.some(acceptsNull)
}

/**
 * The output of a fitted schema (an Effect Schema's or a JSON Schema's, see `fitJsonSchema`), named
 * and with strict mode decided as `schemaTarget` does.
 * @category constructors
 */
export const outputOfFitted = (
  fitted: FittedSchema,
  options: OutputOptions = {}
): Result.Result<TextOutput, InvalidRequest> =>
  Result.map(
    schemaTarget(fitted, {
      ...(options.name === undefined ? {} : { name: safeName(options.name) }),
      ...(options.description === undefined ? {} : { description: options.description }),
      ...(options.strict === undefined ? {} : { strict: options.strict })
    }),
    (target) => ({
      target,
      streamable: !fitted.wrapped && !hasNullableProperty(fitted.schema),
      relax: fitted.relax
    })
  )

// Frameworks derive names from identifiers ("Person Card"): the family's rule is ^[a-zA-Z0-9_-]{1,64}$.
const safeName = (name: string): string => name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 64) || "structured_output"

/**
 * The output a framework's JSON Schema asks for: fitted (refused, naming the part, when it cannot be
 * sent: `SchemaNotExpressible`), or JSON text without a schema when `schema` is absent.
 * @category constructors
 */
export const outputOfJsonSchema = (
  schema: JsonSchemaObject | undefined,
  options: OutputOptions = {}
): Result.Result<TextOutput, InvalidRequest | SchemaNotExpressible> => {
  if (schema === undefined) return Result.succeed({ target: undefined, streamable: true, relax: (u) => u })
  const { $defs, definitions, ...root } = schema
  const defs = isRecord($defs) ? $defs : isRecord(definitions) ? definitions : {}
  return Result.flatMap(fitJsonSchema(root, defs), (fitted) => outputOfFitted(fitted, options))
}

/**
 * The answer's JSON text as the framework's schema reads it: itself when the output is streamable,
 * else parsed, relaxed (`FittedSchema.relax`) and written again. Text that is not JSON is left as it
 * is, for the framework to report with its own error.
 * @category constructors
 */
export const answerText = (output: TextOutput, text: string): string => {
  if (output.streamable) return text
  const parsed = parseJsonText(text, "openai", "the answer")
  return Result.isSuccess(parsed) ? JSON.stringify(output.relax(parsed.success)) : text
}
