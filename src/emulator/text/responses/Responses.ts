/**
 * E16 `POST /v1/responses`: one `response` object, or the typed event sequence of the responses
 * stream (`event:` lines, increasing `sequence_number`, no `[DONE]`), with function calls.
 */
import type { EmulatorContext } from "../../server/Context.js"
import { jsonFormat, modelProblem, openAiError, planText, type TextPlan } from "../chat/OpenAiText.js"
import type { Reply, Route } from "../../server/Route.js"
import { canonicalJson, estimateTokens, newId, pace } from "../TextGen.js"

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)

const problemOf = (body: Obj): [string, string, number?] | undefined => {
  const m = modelProblem(body.model, "responses")
  if (m !== undefined) return [m.message, "model", m.status]
  if (body.input === undefined) return ["Missing required parameter: 'input'.", "input"]
  if (!(typeof body.input === "string" || (Array.isArray(body.input) && body.input.length > 0)))
    return ["Invalid 'input': expected a string or a non-empty array.", "input"]
  const max = body.max_output_tokens
  if (max !== undefined && !(typeof max === "number" && Number.isInteger(max) && max > 0))
    return ["Invalid 'max_output_tokens': must be a positive integer.", "max_output_tokens"]
  return undefined
}

/** The output of the last input item when it is a `function_call_output` (round two of a function call). */
const toolOutputOf = (input: unknown): string | undefined => {
  const last: unknown = Array.isArray(input) ? input[input.length - 1] : undefined
  return isObj(last) && last.type === "function_call_output" ? String(last.output) : undefined
}

/** Builds the response object and its output item at each stage. */
const shapes = (ctx: EmulatorContext, body: Obj, p: TextPlan) => {
  const ids = { response: newId("resp_"), message: newId("msg_"), call: newId("fc_") }
  const text = p.pieces.join("")
  const inputTokens =
    estimateTokens(canonicalJson(body.input)) +
    estimateTokens(typeof body.instructions === "string" ? body.instructions : "")
  const usage = {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: p.outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + p.outputTokens
  }
  const item = (status: string, done: boolean): Obj =>
    p.call !== undefined
      ? {
          type: "function_call",
          id: ids.call,
          call_id: p.call.id,
          name: p.call.name,
          arguments: done ? p.call.arguments : "",
          status
        }
      : {
          type: "message",
          id: ids.message,
          role: "assistant",
          status,
          content: done ? [{ type: "output_text", text, annotations: [], logprobs: [] }] : []
        }
  const response = (status: string, output: Array<Obj>, withUsage: boolean): Obj => ({
    id: ids.response,
    object: "response",
    created_at: Math.floor(ctx.clock.now() / 1000),
    status,
    model: body.model,
    output,
    error: null,
    incomplete_details: status === "incomplete" ? { reason: "max_output_tokens" } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    metadata: {},
    parallel_tool_calls: true,
    temperature: 1,
    top_p: 1,
    tool_choice: body.tool_choice ?? "auto",
    tools: body.tools ?? [],
    usage: withUsage ? usage : null
  })
  return { ids, text, item, response, status: p.truncated ? "incomplete" : "completed" }
}

const stream = async (ctx: EmulatorContext, reply: Reply, p: TextPlan, s: ReturnType<typeof shapes>): Promise<void> => {
  const w = reply.sse()
  let seq = 0
  const send = (type: string, data: Obj): Promise<void> =>
    w.event(type, JSON.stringify({ type, sequence_number: seq++, ...data }))
  const finalItem = s.item("completed", true)
  await send("response.created", { response: s.response("in_progress", [], false) })
  await send("response.in_progress", { response: s.response("in_progress", [], false) })
  await send("response.output_item.added", { output_index: 0, item: s.item("in_progress", false) })
  if (p.call !== undefined) {
    const at = { output_index: 0, item_id: s.ids.call }
    await send("response.function_call_arguments.delta", { ...at, delta: p.call.arguments })
    await send("response.function_call_arguments.done", { ...at, name: p.call.name, arguments: p.call.arguments })
  } else {
    const at = { item_id: s.ids.message, output_index: 0, content_index: 0 }
    await send("response.content_part.added", { ...at, part: { type: "output_text", text: "", annotations: [] } })
    for (const delta of p.pieces) {
      if (w.closed) return
      await pace(ctx)
      await send("response.output_text.delta", { ...at, delta, logprobs: [] })
    }
    await send("response.output_text.done", { ...at, text: s.text, logprobs: [] })
    await send("response.content_part.done", { ...at, part: { type: "output_text", text: s.text, annotations: [] } })
  }
  await send("response.output_item.done", { output_index: 0, item: finalItem })
  w.final()
  await send(`response.${s.status}`, { response: s.response(s.status, [finalItem], true) })
  w.end()
}

/** `POST /v1/responses`. */
export const responsesRoute: Route = {
  name: "responses",
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
    const p = planText(ctx, {
      seed: { model: body.model, input: body.input, instructions: body.instructions, tools: body.tools },
      tools: body.tools,
      toolChoice: body.tool_choice,
      toolOutput: toolOutputOf(body.input),
      maxTokens: body.max_output_tokens,
      json: jsonFormat(isObj(body.text) ? body.text.format : undefined)
    })
    const s = shapes(ctx, body, p)
    if (body.stream !== true) return reply.json(200, s.response(s.status, [s.item("completed", true)], true))
    return stream(ctx, reply, p, s)
  }
}
