/**
 * E16 `POST /v1/responses`: one `response` object, or the typed event sequence of the responses stream.
 * The stream has `event:` lines, increasing `sequence_number` and no `[DONE]`; answers carry function
 * calls and structured output (the plan in OpenAiPlan.ts); function outputs must answer calls. The
 * reply is planned from the whole conversation: the stored chain of `previous_response_id` or the
 * items of `conversation`, then `input` (ResponsesHistory.ts); a response is stored unless `store: false`.
 */
import type { EmulatorContext, SseErrorFault } from "../../server/Context.js"
import { openAiErrorObject, streamErrorOf } from "../../server/Family.js"
import {
  formatTypeProblem,
  modelProblem,
  openAiError,
  rangeProblem,
  samplingProblem,
  topLogprobsRange,
  topLogprobsType,
  type TypedParam,
  typedParamProblem
} from "../chat/OpenAiText.js"
import { contentText, functionTools, jsonFormat, openAiChoice, planText, type TextPlan } from "../chat/OpenAiPlan.js"
import type { Reply, Route, SseEvent } from "../../server/Route.js"
import { canonicalJson, estimateTokens, jsonPieces, newId, pace, textOf } from "../TextGen.js"
import { onlyAllowed, type Conversation } from "../ToolTurns.js"
import { duplicateItem, historyOf } from "./ResponsesHistory.js"
import { streamThought, type Thought, thoughtItem, thoughtOf } from "./ResponsesReasoning.js"
import { charsOf, responsesStateOf, type ResponsesState, type StoredConversation } from "./ResponsesState.js"

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)

const problemOf = (body: Obj): [string, string, number?] | undefined => {
  const m = modelProblem(body.model, "responses")
  if (m !== undefined) return [m.message, "model", m.status]
  // A previous response or a conversation stands in for `input`.
  const continues = (body.previous_response_id ?? body.conversation ?? undefined) !== undefined
  if (body.input === undefined) {
    if (!continues) return ["Missing required parameter: 'input'.", "input"]
  } else if (!(typeof body.input === "string" || (Array.isArray(body.input) && body.input.length > 0)))
    return ["Invalid 'input': expected a string or a non-empty array.", "input"]
  if (typeof body.input === "string" && body.input.trim() === "")
    return ["Invalid 'input': string must contain non-whitespace text.", "input"]
  const roles = ["user", "assistant", "system", "developer"]
  const badRole = Array.isArray(body.input)
    ? body.input.findIndex((i: unknown) => isObj(i) && i.role !== undefined && !roles.includes(textOf(i.role)))
    : -1
  if (badRole !== -1)
    return [
      `Invalid value for 'input[${badRole}].role': supported values are 'user', 'assistant', 'system' and 'developer'.`,
      `input[${badRole}].role`
    ]
  const max = body.max_output_tokens
  if (max !== undefined && !(typeof max === "number" && Number.isInteger(max) && max > 0))
    return ["Invalid 'max_output_tokens': must be a positive integer.", "max_output_tokens"]
  return (
    samplingProblem(body) ??
    typedParamProblem(body, responsesTypedParams) ??
    rangeProblem(body, [topLogprobsRange]) ??
    formatTypeProblem(isObj(body.text) ? body.text.format : undefined, "text.format")
  )
}

const responsesTypedParams: ReadonlyArray<TypedParam> = [
  ["stream", "a boolean", (v) => typeof v === "boolean"],
  ["store", "a boolean", (v) => typeof v === "boolean"],
  ["instructions", "a string", (v) => typeof v === "string"],
  ["metadata", "an object", isObj],
  ["previous_response_id", "a string", (v) => typeof v === "string" || v === null],
  topLogprobsType
]

/** The input items (a string input is one user message). */
const itemsOf = (input: unknown): Array<Obj> =>
  typeof input === "string"
    ? [{ type: "message", role: "user", content: input }]
    : Array.isArray(input)
      ? input.filter(isObj)
      : []

const outputText = (output: unknown): string => (typeof output === "string" ? output : contentText(output))

/**
 * The conversation: the prompt (last user message), functions called since, the trailing function
 * outputs. A function those outputs answer counts as called even when its call comes before the
 * prompt: a client continuing a `conversation` may send the user's message again with the outputs
 * (the AI SDK does), and the call it answers must not be made again.
 */
const responsesConversation = (items: ReadonlyArray<Obj>): Conversation => {
  let p = items.length - 1
  while (p >= 0 && !(items[p]!.role === "user" && (items[p]!.type ?? "message") === "message")) p--
  let r = items.length
  while (r > 0 && items[r - 1]!.type === "function_call_output") r--
  const answered = new Set(items.slice(r).map((i) => i.call_id))
  const called = items
    .filter((i, k) => i.type === "function_call" && typeof i.name === "string" && (k > p || answered.has(i.call_id)))
    .map((i) => String(i.name))
  const results = items.slice(r).map((i) => ({ text: outputText(i.output), isError: false }))
  return { prompt: p >= 0 ? contentText(items[p]!.content) : "", called, results }
}

/**
 * Checks that each `function_call_output` answers a `function_call` of the conversation (the stored
 * items, then the input) and each call has an output; skipped when an `item_reference` stands for an
 * item the emulator does not resolve.
 */
const responsesPairing = (items: ReadonlyArray<Obj>): string | undefined => {
  if (items.some((i) => i.type === "item_reference")) return undefined
  const calls = items.filter((i) => i.type === "function_call").map((i) => i.call_id)
  const outputs = items.filter((i) => i.type === "function_call_output").map((i) => i.call_id)
  const callSet = new Set(calls)
  const outputSet = new Set(outputs)
  const unknown = outputs.find((id) => !callSet.has(id))
  if (unknown !== undefined) return `No tool call found for function call output with call_id ${textOf(unknown)}.`
  const missing = calls.find((id) => !outputSet.has(id))
  return missing === undefined ? undefined : `No tool output found for function call ${textOf(missing)}.`
}

/** What a response reads beyond its body: the items the model sees (history, then input) and its conversation. */
interface Reading {
  readonly input: unknown
  readonly conversation: string | undefined
}

/** Builds the response object and its output items at each stage. */
const shapes = (ctx: EmulatorContext, body: Obj, { input, conversation }: Reading, p: TextPlan) => {
  const ids = { response: newId("resp_"), message: newId("msg_"), calls: p.calls.map(() => newId("fc_")) }
  const thought: Thought | undefined = thoughtOf(body, p)
  const reasoningTokens = thought?.tokens ?? 0
  const createdAt = Math.floor(ctx.clock.now() / 1000)
  const text = p.pieces.join("")
  const inputTokens =
    estimateTokens(canonicalJson(input)) +
    estimateTokens(typeof body.instructions === "string" ? body.instructions : "")
  const usage = {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: p.outputTokens + reasoningTokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: inputTokens + p.outputTokens + reasoningTokens
  }
  /** The output items: the reasoning item when there is one, then one message or one function call per planned call. */
  const items = (status: string, done: boolean): Array<Obj> => [
    ...(thought === undefined ? [] : [thoughtItem(thought, done)]),
    ...answerItems(status, done)
  ]
  const answerItems = (status: string, done: boolean): Array<Obj> =>
    p.calls.length > 0
      ? p.calls.map((call, k) => ({
          type: "function_call",
          id: ids.calls[k],
          call_id: call.id,
          name: call.name,
          arguments: done ? call.arguments : "",
          status
        }))
      : [
          {
            type: "message",
            id: ids.message,
            role: "assistant",
            status,
            content: done ? [{ type: "output_text", text, annotations: [], logprobs: [] }] : []
          }
        ]
  const response = (status: string, output: Array<Obj>, withUsage: boolean): Obj => ({
    id: ids.response,
    object: "response",
    created_at: createdAt,
    status,
    model: body.model,
    output,
    previous_response_id: body.previous_response_id ?? null,
    ...(conversation === undefined ? {} : { conversation: { id: conversation } }),
    store: body.store !== false,
    error: null,
    incomplete_details: status === "incomplete" ? { reason: "max_output_tokens" } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    metadata: {},
    parallel_tool_calls: body.parallel_tool_calls !== false,
    temperature: 1,
    top_p: 1,
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    usage: withUsage ? usage : null
  })
  return { ids, text, thought, items, response, status: p.truncated ? "incomplete" : "completed" }
}

/**
 * The stream `error` event of an injected in-stream error. The API reference puts `code`, `message` and
 * `param` at the top level; the live API nests them under `error` (which the official SDK throws on): both.
 */
const errorEvent = (fault: SseErrorFault, sequence_number: number): SseEvent => {
  const e = streamErrorOf("openai", fault)
  const object = openAiErrorObject(e.status, e.message, e.details)
  const error = { ...object, code: object.code ?? object.type }
  const { code, message, param } = error
  return { name: "error", data: JSON.stringify({ type: "error", sequence_number, code, message, param, error }) }
}

const stream = async (ctx: EmulatorContext, reply: Reply, p: TextPlan, s: ReturnType<typeof shapes>): Promise<void> => {
  let seq = 0
  // `send` numbers an event before writing it, so the error takes the number of the event it replaces.
  const w = reply.sse({}, { errorEvent: (fault) => errorEvent(fault, seq - 1) })
  const send = (type: string, data: Obj): Promise<void> =>
    w.event(type, JSON.stringify({ type, sequence_number: seq++, ...data }))
  const started = s.items("in_progress", false)
  const finals = s.items(s.status, true)
  await send("response.created", { response: s.response("in_progress", [], false) })
  await send("response.in_progress", { response: s.response("in_progress", [], false) })
  // The reasoning item comes first (output index 0), then the answer's items.
  const first = s.thought === undefined ? 0 : 1
  if (s.thought !== undefined && !(await streamThought(ctx, s.thought, send, () => w.closed))) return
  for (let k = 0; k < p.calls.length; k++) {
    const call = p.calls[k]!
    const index = first + k
    const at = { output_index: index, item_id: s.ids.calls[k] }
    await send("response.output_item.added", { output_index: index, item: started[index] })
    for (const delta of jsonPieces(call.arguments)) {
      if (w.closed) return
      await pace(ctx)
      await send("response.function_call_arguments.delta", { ...at, delta })
    }
    await send("response.function_call_arguments.done", { ...at, name: call.name, arguments: call.arguments })
    await send("response.output_item.done", { output_index: index, item: finals[index] })
  }
  if (p.calls.length === 0) {
    const at = { item_id: s.ids.message, output_index: first, content_index: 0 }
    await send("response.output_item.added", { output_index: first, item: started[first] })
    await send("response.content_part.added", { ...at, part: { type: "output_text", text: "", annotations: [] } })
    for (const delta of p.pieces) {
      if (w.closed) return
      await pace(ctx)
      await send("response.output_text.delta", { ...at, delta, logprobs: [] })
    }
    await send("response.output_text.done", { ...at, text: s.text, logprobs: [] })
    await send("response.content_part.done", { ...at, part: { type: "output_text", text: s.text, annotations: [] } })
    await send("response.output_item.done", { output_index: first, item: finals[first] })
  }
  w.final()
  await send(`response.${s.status}`, { response: s.response(s.status, finals, true) })
  w.end()
}

/**
 * Stores an answered response (unless `store: false`), sized by its body and answer, and appends its
 * input and output items to its conversation (whatever `store` says: the conversation is the store).
 */
const remember = (
  state: ResponsesState,
  body: Obj,
  r: {
    readonly key: string | undefined
    readonly bodyBytes: number
    readonly input: ReadonlyArray<Obj>
    readonly response: Obj
    readonly conversation: StoredConversation | undefined
  }
): void => {
  const output = r.response.output as ReadonlyArray<Obj>
  if (body.store !== false) {
    const id = String(r.response.id)
    const previous = typeof body.previous_response_id === "string" ? body.previous_response_id : undefined
    const stored = { id, key: r.key, previous, input: r.input, response: r.response }
    state.responses.put(id, stored, r.bodyBytes + charsOf(r.response))
  }
  if (r.conversation !== undefined) state.append(r.conversation, [...r.input, ...output])
}

/** `POST /v1/responses`. */
export const responsesRoute: Route = {
  name: "responses",
  streams: true,
  method: "POST",
  path: "/v1/responses",
  handle: (req, reply, ctx) => {
    if (!isObj(req.json)) return openAiError(reply, 400, "We could not parse the JSON body of your request.")
    const body = req.json
    const problem = problemOf(body)
    if (problem !== undefined)
      return openAiError(
        reply,
        problem[2] ?? 400,
        problem[0],
        problem[1],
        problem[2] === 404 ? "model_not_found" : null
      )
    const state = responsesStateOf(ctx)
    const history = historyOf(state, body, req.key)
    if (!history.ok) return openAiError(reply, history.status, history.message, history.param, history.code)
    const input = itemsOf(body.input)
    const duplicate = duplicateItem(history.items, input)
    if (duplicate !== undefined)
      return openAiError(reply, duplicate.status, duplicate.message, duplicate.param, duplicate.code)
    const items = [...history.items, ...input]
    const unpaired = responsesPairing(items)
    if (unpaired !== undefined) return openAiError(reply, 400, unpaired, "input")
    const reading = {
      input: history.items.length === 0 ? body.input : items,
      conversation: history.conversation?.id
    }
    const { choice, allowed } = openAiChoice(body.tool_choice)
    const planned = planText(ctx, {
      seed: { model: body.model, input: reading.input, instructions: body.instructions, tools: body.tools },
      tools: onlyAllowed(functionTools(body.tools, false), allowed),
      choice,
      conversation: responsesConversation(items),
      parallel: body.parallel_tool_calls !== false,
      maxTokens: body.max_output_tokens,
      json: jsonFormat(isObj(body.text) ? body.text.format : undefined, "text.format")
    })
    if (!planned.ok) return openAiError(reply, 400, planned.message, planned.param)
    const p = planned.plan
    const s = shapes(ctx, body, reading, p)
    const answered = s.response(s.status, s.items(s.status, true), true)
    // Kept as answered from the start: a stream is planned whole before its first event.
    const kept = { key: req.key, bodyBytes: req.body.byteLength, input, response: answered }
    remember(state, body, { ...kept, conversation: history.conversation })
    if (body.stream !== true) return reply.json(200, answered)
    return stream(ctx, reply, p, s)
  }
}
