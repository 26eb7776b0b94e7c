/**
 * A tool defined once — its name, description, parameters schema and handler — and the checked
 * declarations every text family's tool loop sends for it (see docs/ARCHITECTURE.md).
 */
import type * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { InvalidRequest } from "../errors/InvalidRequest.js"
import { type AnySchema, type JsonSchemaObject, prepareSchema, type TypeOf } from "../structured/AnySchema.js"
import type { SchemaMismatch, SchemaNotExpressible } from "../structured/StructuredErrors.js"
import { at, describe, listAllowed } from "../validation/Rules.js"
import { toolNamePattern } from "./ToolName.js"

export { toolNamePattern } from "./ToolName.js"

/** The most tools one loop declares. @category models */
export const maxTools = 128

/**
 * A tool: the model sees its `name`, `description` and the JSON Schema of `parameters`; the loop
 * decodes each call's arguments with `parameters` and runs `handler` on the decoded input. `jsonSchema`
 * overrides the JSON Schema derived from `parameters`. `strict` (chat, responses, messages-style) asks
 * for arguments that match the schema exactly; left out, chat and responses ask for it whenever the
 * schema allows, and `false` turns it off.
 * @category models
 */
export interface Tool<I, O, E = never, R = never> {
  readonly _tag: "Tool"
  readonly name: string
  readonly description: string
  readonly parameters: AnySchema<I>
  readonly handler: (input: I) => Effect.Effect<O, E, R>
  readonly jsonSchema?: JsonSchemaObject | undefined
  readonly strict?: boolean | undefined
}

/**
 * Any tool whose handler needs the services `R`. `any` only at the type level: a list of tools holds
 * handlers of different inputs, each called with what its own schema decoded.
 * @category models
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool<R = never> = Tool<any, unknown, unknown, R>

/** What `make` takes. @category models */
export interface ToolDefinition<S extends AnySchema<unknown>, O, E, R> {
  readonly name: string
  readonly description: string
  readonly parameters: S
  readonly handler: (input: TypeOf<S>) => Effect.Effect<O, E, R>
  readonly jsonSchema?: JsonSchemaObject | undefined
  readonly strict?: boolean | undefined
}

/**
 * A tool from its definition. Nothing is checked here (a builder never throws): the loop checks the
 * name, the uniqueness and the schema before sending anything, failing with a typed error.
 * @category constructors
 */
export const make = <S extends AnySchema<unknown>, O, E = never, R = never>(
  definition: ToolDefinition<S, O, E, R>
): Tool<TypeOf<S>, O, E, R> => ({ _tag: "Tool", ...definition }) as Tool<TypeOf<S>, O, E, R>

/**
 * What the families declare for one tool: its name, description and parameters as the fitted JSON
 * Schema object (always an object schema: a root that is not one is sent as `{ value: … }`).
 * `strict` is the tool's own `strict` when given; `strictCapable` whether the schema meets strict
 * mode's rules (families that take `strict` send it by default then).
 * @category models
 */
export interface ToolDeclaration {
  readonly name: string
  readonly description: string
  readonly parameters: JsonSchemaObject
  readonly strict: boolean | undefined
  readonly strictCapable: boolean
}

/**
 * A tool ready for a loop: its declaration, and the decoder of a call's arguments (what the fitting
 * changed undone first: the `null` of an optional property dropped, a wrapped root unwrapped).
 * @category models
 */
export interface PreparedTool<R> {
  readonly tool: AnyTool<R>
  readonly declaration: ToolDeclaration
  readonly decodeArguments: (input: unknown) => Effect.Effect<unknown, SchemaMismatch>
}

const invalid = (field: string, rule: string, message: string) =>
  Result.fail(new InvalidRequest({ field, rule, message }))

/**
 * A loop's tools prepared, in order, or the first thing wrong with them: no tools or more than
 * `maxTools` (`tools`), a name outside `toolNamePattern`, declared twice or also among the names the
 * body declares itself (`bodyNames`) (`tools[i].name`), a
 * parameters schema that cannot be expressed (`SchemaNotExpressible`, naming the part), `strict: true`
 * for a schema strict mode does not take (`tools[i].strict`).
 * @category constructors
 */
export const prepareTools = <R>(
  tools: ReadonlyArray<AnyTool<R>>,
  bodyNames: ReadonlyArray<string> = []
): Result.Result<ReadonlyArray<PreparedTool<R>>, InvalidRequest | SchemaNotExpressible> => {
  if (tools.length === 0)
    return invalid("tools", "non-empty", "tools: an empty list; a tool loop needs at least one tool")
  if (tools.length > maxTools)
    return invalid("tools", "range", `tools: ${tools.length} tools is out of range; allowed: at most ${maxTools}`)
  const out: Array<PreparedTool<R>> = []
  for (const [i, tool] of tools.entries()) {
    const field = at(at("tools", i), "name")
    if (typeof tool.name !== "string" || !toolNamePattern.test(tool.name))
      return invalid(
        field,
        "pattern",
        `${field}: ${describe(tool.name)} is not allowed; allowed: 1 to 64 letters, digits, _ or -`
      )
    if (out.some((p) => p.declaration.name === tool.name))
      return invalid(field, "unique", `${field}: ${describe(tool.name)} is declared twice; tool names must be unique`)
    if (bodyNames.includes(tool.name))
      return invalid(
        field,
        "unique",
        `${field}: ${describe(tool.name)} is also declared in the body's own tools; tool names must be unique`
      )
    const prepared = prepareSchema(tool.parameters, tool.jsonSchema)
    if (Result.isFailure(prepared)) return Result.fail(prepared.failure)
    const fit = prepared.success
    if (tool.strict === true && !fit.strict) {
      const strict = at(at("tools", i), "strict")
      return invalid(
        strict,
        "strict",
        `${strict}: true is not allowed for this parameters schema: it uses keywords strict mode does not take; allowed: false, or leave it out`
      )
    }
    out.push({
      tool,
      declaration: {
        name: tool.name,
        description: tool.description,
        parameters: fit.schema,
        strict: tool.strict,
        strictCapable: fit.strict
      },
      decodeArguments: fit.decodeAnswer
    })
  }
  return Result.succeed(out)
}

/** The names of a loop's tools, for the error an unknown name gets. @category getters */
export const toolNames = (tools: ReadonlyArray<{ readonly name: string }>): string =>
  listAllowed(tools.map((t) => t.name))
