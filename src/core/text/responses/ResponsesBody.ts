/**
 * The schema of the POST `/v1/responses` (E16) body. It is closed: the contract shows the minimal
 * payload (`model`, `max_output_tokens`, `input[]` with `role` and `content`); the other fields are
 * the upstream Responses fields. Open, as upstream leaves them: typed `input` items other than
 * messages, `tools`, `tool_choice`, `reasoning`, `text`, `prompt`, `conversation`, `metadata`,
 * `stream_options`.
 */
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type { InvalidRequest } from "../../errors/InvalidRequest.js"
import { ensureRoute } from "../../gateway/Routing.js"
import { type WithExtra, closedBody, buildWith, ModelId } from "../../validation/Closed.js"
import {
  acrossFields,
  expected,
  NonBlank,
  nonEmptyArray,
  range,
  SamplingTemperature,
  SamplingTopP,
  TopLogprobs
} from "../../validation/FieldRules.js"
import { type Paired, type PairedTurn, recordsOf, withToolPairing } from "../ToolPairing.js"
import { JsonSchemaName, type TextBodyOptions } from "../chat/ChatBody.js"
import { misnamedFunctionTool, nameMessage } from "../FunctionToolName.js"

const Open = Schema.Record(Schema.String, Schema.Unknown)
// An object whose other members pass through (an index signature besides its fields).
const openStruct = <const F extends Schema.Struct.Fields>(fields: F) =>
  Schema.StructWithRest(Schema.Struct(fields), [Open])
const opt = Schema.optionalKey

/** The roles of a responses message item. @category models */
export const ResponsesRoles = ["user", "assistant", "system", "developer"] as const

/** One `input` item of a responses body: a `{role, content}` message, or another typed item passed through. @category schemas */
export const ResponsesInputItem = Schema.Union([
  openStruct({
    type: opt(Schema.Literal("message")),
    role: Schema.Literals(ResponsesRoles),
    content: Schema.Union([Schema.String, Schema.Array(Schema.Unknown)]).pipe(
      expected("a string or an array of content parts")
    )
  }),
  // Typed items other than messages (function_call_output, reasoning, …) pass through.
  openStruct({ type: NonBlank.check(Schema.makeFilter((t) => t !== "message")) })
]).pipe(expected("a {role, content} message or a typed item"))

/**
 * `text.format`: `text`, `json_object`, or `json_schema` with `name`, `schema`, `description?` and
 * `strict?` (structured output).
 * @category schemas
 */
export const ResponsesTextFormat = Schema.Union([
  Schema.Struct({ type: Schema.Literals(["text", "json_object"]) }),
  Schema.Struct({
    type: Schema.Literal("json_schema"),
    name: JsonSchemaName,
    schema: Open,
    description: opt(Schema.String),
    strict: opt(Schema.NullOr(Schema.Boolean))
  })
])

/** `text`: its `format` typed, its other members (`verbosity`, …) passed through. @category schemas */
export const ResponsesText = openStruct({ format: opt(ResponsesTextFormat) })

/** Fields that stand in for `input` (a stored prompt, a previous response or a conversation). */
const INPUT_SOURCES = ["prompt", "previous_response_id", "conversation"] as const

/**
 * Where the input's function calls and outputs are: each `function_call_output` answers a
 * `function_call` of the input, each of which needs one. Not checked when earlier items live on the
 * server (`previous_response_id`, `conversation`, an `item_reference`): the calls may be there.
 */
const toolTurns = (body: {
  readonly input?: unknown
  readonly previous_response_id?: string | undefined
  readonly conversation?: unknown
}): Array<PairedTurn> => {
  if (body.previous_response_id !== undefined || body.conversation !== undefined) return []
  const items = recordsOf(body.input)
  if (items.some(([item]) => item.type === "item_reference")) return []
  const of = (type: string): Array<Paired> =>
    items.flatMap(([item, i]) => (item.type === type ? [{ id: item.call_id, key: ["input", i, "call_id"] }] : []))
  const calls = of("function_call")
  const results = of("function_call_output")
  return calls.length === 0 && results.length === 0
    ? []
    : [{ calls, callsWhere: "the function_call items of input", results, complete: "function_call_output in input" }]
}

/** The body of POST `/v1/responses`: `input` is required unless `prompt`, `previous_response_id` or `conversation` stands in for it. @category schemas */
export const ResponsesBody = acrossFields(
  Schema.Struct({
    model: ModelId,
    input: opt(
      Schema.Union([NonBlank, nonEmptyArray(ResponsesInputItem)]).pipe(
        expected("a string or an array of {role, content} items")
      )
    ),
    instructions: opt(Schema.String),
    max_output_tokens: opt(Schema.Int.pipe(range({ min: 0, minExclusive: true }))),
    stream: opt(Schema.Boolean),
    stream_options: opt(Open),
    temperature: opt(SamplingTemperature),
    top_p: opt(SamplingTopP),
    top_logprobs: opt(TopLogprobs),
    tools: opt(Schema.Array(Open)),
    tool_choice: opt(Schema.Union([Schema.String, Open])),
    parallel_tool_calls: opt(Schema.Boolean),
    max_tool_calls: opt(Schema.Int),
    previous_response_id: opt(Schema.String),
    conversation: opt(Schema.Union([Schema.String, Open])),
    prompt: opt(Open),
    reasoning: opt(Open),
    text: opt(ResponsesText),
    truncation: opt(Schema.String),
    include: opt(Schema.Array(Schema.String)),
    background: opt(Schema.Boolean),
    store: opt(Schema.Boolean),
    metadata: opt(Open),
    service_tier: opt(Schema.String),
    user: opt(Schema.String),
    prompt_cache_key: opt(Schema.String),
    safety_identifier: opt(Schema.String)
  }),
  "required",
  (body) =>
    body.input === undefined && INPUT_SOURCES.every((k) => body[k] === undefined)
      ? { key: "input", detail: "" }
      : undefined,
  (field) => `${field} is required`
).pipe(
  (self) =>
    acrossFields(
      self,
      "one-of",
      // A responses function tool names itself: `{type: "function", name}`.
      (body) => misnamedFunctionTool(body.tools, (tool) => ({ name: tool.name, key: ["name"] })),
      nameMessage
    ),
  withToolPairing(toolTurns)
)
/** @category models */
export type ResponsesBody = typeof ResponsesBody.Type
/** A responses body as callers write it, with the `extra` escape hatch. @category models */
export type ResponsesBodyInput = WithExtra<ResponsesBody>

const responses = closedBody(ResponsesBody, "a responses body")

/**
 * Builds the body of POST `/v1/responses`: only its known fields (plus `extra`); `model` must take
 * responses (GPT-5, GPT-5 Pro, o-series and the chat models the catalog lists; not epsilon or zeta);
 * `input` required unless `prompt`, `previous_response_id` or `conversation` stands in for it; then
 * the Schema's rules: `input` a non-empty string or a non-empty array of `{role, content}` items (or
 * typed items), `max_output_tokens` a positive integer, `stream` a boolean, `temperature` 0–2,
 * `top_p` 0–1 and `top_logprobs` an integer 0–20 (chat's rules: `SamplingTemperature`, `SamplingTopP`,
 * `TopLogprobs`).
 * @category constructors
 */
export const buildResponsesBody = (
  input: unknown,
  options: TextBodyOptions = {}
): Effect.Effect<ResponsesBody, InvalidRequest> =>
  buildWith(() => responses.build(input, (model) => ensureRoute(model, "responses", options)))
