/**
 * E16 OpenAI-style chat: `POST /v1/chat/completions` as one `chat.completion` or as a chunk stream.
 * The stream is data-only chunks ending with `[DONE]` (`include_usage` adds a usage chunk), the `n`
 * choices' chunks interleaved; answers carry function calls and structured output (the plan in
 * OpenAiPlan.ts), token logprobs on request, text cut at `stop`; tool messages must answer the calls
 * before them.
 */
import type { EmulatorContext } from "../../server/Context.js"
import { errorBody, streamErrorEvent } from "../../server/Family.js"
import { findModel } from "../../gateway/Models.js"
import type { Reply, Route } from "../../server/Route.js"
import { canonicalJson, estimateTokens, jsonPieces, newId, pace, textOf } from "../TextGen.js"
import { onlyAllowed, type Conversation } from "../ToolTurns.js"
import {
  contentText,
  functionTools,
  jsonFormat,
  openAiChoice,
  planText,
  stopSequences,
  type PlanInput,
  type TextPlan,
  tokenLogprobs
} from "./OpenAiPlan.js"

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)

/** An OpenAI-style 4xx/5xx answer. */
export const openAiError = (
  reply: Reply,
  status: number,
  message: string,
  param: string | null = null,
  code: string | null = null
): void => reply.json(status, errorBody("openai", status, message, { param, code }))

/**
 * The model check both endpoints make: the model must be one of the catalogue's OpenAI-style text
 * models (epsilon and zeta text models have their own endpoints); the GPT-5 Pro family is served only
 * by `/v1/responses` (spec capability routing), so chat refuses it.
 */
export const modelProblem = (
  model: unknown,
  endpoint: "chat" | "responses"
): { readonly status: number; readonly message: string } | undefined => {
  if (typeof model !== "string" || model.length === 0)
    return { status: 400, message: "you must provide a model parameter" }
  const entry = findModel(model)
  if (entry === undefined)
    return { status: 404, message: `The model \`${model}\` does not exist or you do not have access to it.` }
  if (entry.kind !== "text" || entry.ownedBy !== "openai")
    return { status: 400, message: `The model \`${model}\` does not support this endpoint.` }
  if (endpoint === "chat" && /^gpt-5(?:\.\d+)?-pro(?:-|$)/.test(model))
    return {
      status: 400,
      message: `The model \`${model}\` is only supported in v1/responses and not in v1/chat/completions.`
    }
  return undefined
}

/** The chat conversation: the prompt (last user message), functions called since, the trailing tool messages. */
const chatConversation = (messages: ReadonlyArray<Obj>): Conversation => {
  let p = messages.length - 1
  while (p >= 0 && messages[p]!.role !== "user") p--
  const called = messages
    .slice(p + 1)
    .flatMap((m) => (m.role === "assistant" && Array.isArray(m.tool_calls) ? m.tool_calls : []))
    .flatMap((c: unknown) =>
      isObj(c) && isObj(c.function) && typeof c.function.name === "string" ? [c.function.name] : []
    )
  let r = messages.length
  while (r > 0 && messages[r - 1]!.role === "tool") r--
  const results = messages.slice(r).map((m) => ({ text: contentText(m.content), isError: false }))
  return { prompt: p >= 0 ? contentText(messages[p]!.content) : "", called, results }
}

const callIds = (m: Obj | undefined): Array<unknown> =>
  m?.role === "assistant" && Array.isArray(m.tool_calls)
    ? m.tool_calls.map((c: unknown) => (isObj(c) ? c.id : undefined))
    : []

/**
 * Checks that each tool message answers a call of the assistant message before it (first), and that
 * each call is answered by the tool messages after it; `[message, param]` of the first failure.
 */
const chatPairing = (messages: ReadonlyArray<Obj>): [string, string] | undefined => {
  // Each run of tool messages against the calls of the message before the run.
  const runs: Array<{
    readonly at: number
    readonly calls: Array<unknown>
    readonly answered: Array<[number, unknown]>
  }> = []
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!
    if (m.role === "tool") {
      if (i === 0 || messages[i - 1]!.role !== "tool")
        runs.push({ at: i - 1, calls: callIds(messages[i - 1]), answered: [] })
      runs[runs.length - 1]!.answered.push([i, m.tool_call_id])
    } else if (callIds(m).length > 0 && messages[i + 1]?.role !== "tool")
      runs.push({ at: i, calls: callIds(m), answered: [] })
  }
  for (const run of runs) {
    const calls = new Set(run.calls)
    const unknown = run.answered.find(([, id]) => !calls.has(id))
    if (unknown !== undefined)
      return [
        `Invalid parameter: 'tool_call_id' of '${textOf(unknown[1])}' not found in 'tool_calls' of previous message.`,
        `messages.[${unknown[0]}].tool_call_id`
      ]
  }
  for (const run of runs) {
    const answered = new Set(run.answered.map(([, id]) => id))
    const missing = run.calls.filter((id) => !answered.has(id))
    if (missing.length > 0)
      return [
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.map(String).join(", ")}`,
        `messages.[${run.at}].role`
      ]
  }
  return undefined
}

const CHAT_ROLES = ["system", "developer", "user", "assistant", "tool", "function"]
const isPositiveInt = (v: unknown): boolean => typeof v === "number" && Number.isInteger(v) && v > 0

const chatProblem = (body: Obj): [string, string, number?] | undefined => {
  const m = modelProblem(body.model, "chat")
  if (m !== undefined) return [m.message, "model", m.status]
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== "boolean")
    return [`Invalid type for 'stream': expected a boolean.`, "stream"]
  if (body.messages === undefined) return ["'messages' is a required property", "messages"]
  if (!Array.isArray(body.messages) || body.messages.length === 0) return ["[] is too short - 'messages'", "messages"]
  for (let i = 0; i < body.messages.length; i++) {
    const msg: unknown = body.messages[i]
    const at = `messages[${i}]`
    if (!isObj(msg) || !CHAT_ROLES.includes(textOf(msg.role))) return [`Invalid value for '${at}.role'.`, `${at}.role`]
    if (msg.content === undefined && msg.tool_calls === undefined)
      return [`Missing required parameter: '${at}.content'.`, `${at}.content`]
    if (msg.content === null && msg.role !== "assistant")
      return [
        `Invalid value for '${at}.content': expected a string or an array of content parts, got null.`,
        `${at}.content`
      ]
  }
  for (const name of ["max_tokens", "max_completion_tokens"])
    if (body[name] !== undefined && !isPositiveInt(body[name]))
      return [`Invalid '${name}': must be a positive integer.`, name]
  return samplingProblem(body) ?? typeProblem(body) ?? rangeProblem(body, chatRanges)
}

/** `temperature` (0 to 2) and `top_p` (0 to 1), which chat and responses bodies share, in upstream's words. */
export const samplingProblem = (body: Obj): [string, string] | undefined => {
  const t = body.temperature
  if (t !== undefined && !(typeof t === "number" && t >= 0 && t <= 2))
    return ["Invalid 'temperature': must be between 0 and 2.", "temperature"]
  const p = body.top_p
  if (p !== undefined && !(typeof p === "number" && p >= 0 && p <= 1))
    return ["Invalid 'top_p': must be between 0 and 1.", "top_p"]
  return undefined
}

/** A numeric parameter with a range upstream enforces: name, integer or decimal, min, max. */
export type RangedParam = readonly [name: string, kind: "integer" | "decimal", min: number, max: number]

/** `top_logprobs`, which chat and responses bodies share: an integer 0 to 20. */
export const topLogprobsRange: RangedParam = ["top_logprobs", "integer", 0, 20]

/** The numeric parameters of a chat body with a range upstream enforces. */
const chatRanges: ReadonlyArray<RangedParam> = [
  ["n", "integer", 1, 128],
  ["presence_penalty", "decimal", -2, 2],
  ["frequency_penalty", "decimal", -2, 2],
  topLogprobsRange
]

/** The first of `ranges` outside its range, in upstream's words (its type was checked before: `typedParamProblem`). */
export const rangeProblem = (body: Obj, ranges: ReadonlyArray<RangedParam>): [string, string] | undefined => {
  for (const [name, kind, min, max] of ranges) {
    const v = body[name]
    if (typeof v !== "number") continue
    if (v < min)
      return [`Invalid '${name}': ${kind} below minimum value. Expected a value >= ${min}, but got ${v} instead.`, name]
    if (v > max)
      return [`Invalid '${name}': ${kind} above maximum value. Expected a value <= ${max}, but got ${v} instead.`, name]
  }
  return undefined
}

/** A parameter checked only for its JSON type: its name, what it must be, and the test. */
export type TypedParam = readonly [name: string, what: string, ok: (value: unknown) => boolean]

const isInteger = (v: unknown): boolean => typeof v === "number" && Number.isInteger(v)

/** `top_logprobs`'s type, which chat and responses bodies share. */
export const topLogprobsType: TypedParam = ["top_logprobs", "an integer", isInteger]

/** The first of `params` present in `body` with the wrong type, as upstream's "Invalid type for …". */
export const typedParamProblem = (body: Obj, params: ReadonlyArray<TypedParam>): [string, string] | undefined => {
  for (const [name, what, ok] of params)
    if (body[name] !== undefined && !ok(body[name])) return [`Invalid type for '${name}': expected ${what}.`, name]
  return undefined
}

/** A structured-output schema's name, upstream's: 1 to 64 letters, digits, `_` or `-`. */
const SCHEMA_NAME = /^[a-zA-Z0-9_-]{1,64}$/

/**
 * A `response_format` (chat) or `text.format` (responses) whose `type` is not one of the three, or a
 * `json_schema` one without what upstream requires: a `name` of its pattern, and (responses, where the
 * schema sits beside the name) a `schema` object; chat nests name and optional schema in `json_schema`.
 */
export const formatTypeProblem = (format: unknown, where: string): [string, string] | undefined => {
  if (format === undefined) return undefined
  if (!(isObj(format) && ["text", "json_object", "json_schema"].includes(textOf(format.type))))
    return [
      `Invalid value for '${where}.type': supported values are 'text', 'json_object' and 'json_schema'.`,
      `${where}.type`
    ]
  if (format.type !== "json_schema") return undefined
  const nested = where === "response_format"
  const inner = nested ? format.json_schema : format
  const at = nested ? `${where}.json_schema` : where
  if (!isObj(inner)) return [`Missing required parameter: '${at}'.`, at]
  if (inner.name === undefined) return [`Missing required parameter: '${at}.name'.`, `${at}.name`]
  if (typeof inner.name !== "string" || !SCHEMA_NAME.test(inner.name))
    return [
      `Invalid '${at}.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$' (at most 64 characters).`,
      `${at}.name`
    ]
  if (!nested && inner.schema === undefined) return [`Missing required parameter: '${at}.schema'.`, `${at}.schema`]
  return inner.schema === undefined || isObj(inner.schema)
    ? undefined
    : [`Invalid type for '${at}.schema': expected an object.`, `${at}.schema`]
}

const isNumber = (v: unknown): boolean => typeof v === "number"

const chatTypedParams: ReadonlyArray<TypedParam> = [
  ["n", "an integer", isInteger],
  ["presence_penalty", "a number", isNumber],
  ["frequency_penalty", "a number", isNumber],
  topLogprobsType,
  ["seed", "an integer", isInteger],
  ["logprobs", "a boolean", (v) => typeof v === "boolean"],
  ["user", "a string", (v) => typeof v === "string"],
  [
    "stop",
    "a string, an array of strings or null",
    (v) => v === null || typeof v === "string" || (Array.isArray(v) && v.every((x) => typeof x === "string"))
  ]
]

const typeProblem = (body: Obj): [string, string] | undefined =>
  typedParamProblem(body, chatTypedParams) ?? formatTypeProblem(body.response_format, "response_format")

/** Everything a chat answer is made of: one plan per choice (`n` of them). */
interface ChatAnswer {
  readonly id: string
  readonly created: number
  readonly model: string
  readonly plans: ReadonlyArray<TextPlan>
  /** How many alternatives each token's logprobs entry lists; `undefined` when logprobs were not asked for. */
  readonly topLogprobs: number | undefined
  readonly usage: Obj
}

const FINGERPRINT = "fp_umg_emulator"

const finishOf = (plan: TextPlan): "tool_calls" | "length" | "stop" =>
  plan.calls.length > 0 ? "tool_calls" : plan.truncated ? "length" : "stop"

/** A choice's `logprobs`: null unless asked for, else the entries of `tokens` (none for function calls). */
const logprobsOf = (a: ChatAnswer, tokens: ReadonlyArray<string>): Obj | null =>
  a.topLogprobs === undefined ? null : { content: tokenLogprobs(tokens, a.topLogprobs), refusal: null }

const chatChoice = (a: ChatAnswer, plan: TextPlan, index: number): Obj => {
  const calls = plan.calls
  const message = {
    role: "assistant",
    content: calls.length === 0 ? plan.pieces.join("") : null,
    refusal: null,
    ...(calls.length === 0
      ? {}
      : {
          tool_calls: calls.map((c) => ({
            id: c.id,
            type: "function",
            function: { name: c.name, arguments: c.arguments }
          }))
        })
  }
  return { index, message, finish_reason: finishOf(plan), logprobs: logprobsOf(a, plan.pieces) }
}

const chatCompletion = (a: ChatAnswer): Obj => ({
  id: a.id,
  object: "chat.completion",
  created: a.created,
  model: a.model,
  choices: a.plans.map((plan, index) => chatChoice(a, plan, index)),
  usage: a.usage,
  system_fingerprint: FINGERPRINT
})

/** One chunk of one choice: its delta, logprobs and finish reason, and whether a token wait comes before it. */
interface ChoiceStep {
  readonly delta: Obj
  readonly logprobs: Obj | null
  readonly finish: string | null
  readonly paced: boolean
}

/** The chunks of one choice: a role chunk, tool-call fragments or content deltas, a finish chunk. */
const choiceSteps = (a: ChatAnswer, plan: TextPlan): Array<ChoiceStep> => {
  const calls = plan.calls
  const step = (delta: Obj, paced: boolean, logprobs: Obj | null = null, finish: string | null = null): ChoiceStep => ({
    delta,
    logprobs,
    finish,
    paced
  })
  const steps = [
    step({ role: "assistant", content: calls.length === 0 ? "" : null, refusal: null }, false, logprobsOf(a, []))
  ]
  for (let index = 0; index < calls.length; index++) {
    const call = calls[index]!
    steps.push(
      step(
        { tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] },
        false
      )
    )
    for (const piece of jsonPieces(call.arguments))
      steps.push(step({ tool_calls: [{ index, function: { arguments: piece } }] }, true))
  }
  for (const content of plan.pieces) steps.push(step({ content }, true, logprobsOf(a, [content])))
  steps.push(step({}, false, null, finishOf(plan)))
  return steps
}

/**
 * Streams the OpenAI chat stream: each choice's chunks (`choiceSteps`), one chunk per choice in turn
 * as upstream interleaves them, a token wait per round; then usage and `[DONE]`. An injected in-stream
 * error is a data-only `{"error": {…}}` payload.
 */
const streamChat = async (ctx: EmulatorContext, reply: Reply, a: ChatAnswer, includeUsage: boolean): Promise<void> => {
  const w = reply.sse({}, { errorEvent: (fault) => streamErrorEvent("openai", fault) })
  const base = {
    id: a.id,
    object: "chat.completion.chunk",
    created: a.created,
    model: a.model,
    system_fingerprint: FINGERPRINT
  }
  const chunk = (choices: Array<Obj>, extra: Obj = {}): Promise<void> =>
    w.event(undefined, JSON.stringify({ ...base, choices, ...(includeUsage ? { usage: null } : {}), ...extra }))
  const steps = a.plans.map((plan) => choiceSteps(a, plan))
  const rounds = Math.max(...steps.map((s) => s.length))
  for (let round = 0; round < rounds; round++) {
    const due = steps.flatMap((s, index) => (round < s.length ? [{ index, step: s[round]! }] : []))
    if (due.some((d) => d.step.paced)) {
      if (w.closed) return
      await pace(ctx)
    }
    for (const { index, step } of due) {
      if (w.closed) return
      await chunk([{ index, delta: step.delta, logprobs: step.logprobs, finish_reason: step.finish }])
    }
  }
  if (includeUsage) await chunk([], { usage: a.usage })
  w.final()
  await w.event(undefined, "[DONE]")
  w.end()
}

/** The plans of the `n` choices (1 when `n` is left out), or the 400 of the first the emulator refuses. */
const planChoices = (
  ctx: EmulatorContext,
  n: unknown,
  input: PlanInput
): { readonly plans: Array<TextPlan> } | { readonly param: string; readonly message: string } => {
  const plans: Array<TextPlan> = []
  for (let variant = 0; variant < (typeof n === "number" ? n : 1); variant++) {
    const planned = planText(ctx, { ...input, variant })
    if (!planned.ok) return planned
    plans.push(planned.plan)
  }
  return { plans }
}

/** `POST /v1/chat/completions`. */
export const chatRoute: Route = {
  name: "chat",
  streams: true,
  method: "POST",
  path: "/v1/chat/completions",
  handle: (req, reply, ctx) => {
    if (!isObj(req.json))
      return openAiError(
        reply,
        400,
        `We could not parse the JSON body of your request.${req.jsonError === undefined ? "" : ` ${req.jsonError}`}`
      )
    const body = req.json
    const problem = chatProblem(body)
    if (problem !== undefined)
      return openAiError(
        reply,
        problem[2] ?? 400,
        problem[0],
        problem[1],
        problem[2] === 404 ? "model_not_found" : null
      )
    const messages = body.messages as Array<Obj>
    const unpaired = chatPairing(messages)
    if (unpaired !== undefined) return openAiError(reply, 400, unpaired[0], unpaired[1])
    const { choice, allowed } = openAiChoice(body.tool_choice)
    const tools = onlyAllowed(functionTools(body.tools, true), allowed)
    const planned = planChoices(ctx, body.n, {
      seed: { model: body.model, messages, tools: body.tools },
      tools,
      choice,
      conversation: chatConversation(messages),
      parallel: body.parallel_tool_calls !== false,
      maxTokens: body.max_completion_tokens ?? body.max_tokens,
      json: jsonFormat(body.response_format, "response_format"),
      stop: stopSequences(body.stop)
    })
    if (!("plans" in planned)) return openAiError(reply, 400, planned.message, planned.param)
    const input =
      estimateTokens(canonicalJson(messages)) +
      (body.tools === undefined ? 0 : estimateTokens(canonicalJson(body.tools)))
    const output = planned.plans.reduce((sum, plan) => sum + plan.outputTokens, 0)
    const answer: ChatAnswer = {
      id: newId("chatcmpl-"),
      created: Math.floor(ctx.clock.now() / 1000),
      model: textOf(body.model),
      plans: planned.plans,
      topLogprobs: body.logprobs === true ? (typeof body.top_logprobs === "number" ? body.top_logprobs : 0) : undefined,
      usage: {
        prompt_tokens: input,
        completion_tokens: output,
        total_tokens: input + output,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 }
      }
    }
    if (body.stream !== true) return reply.json(200, chatCompletion(answer))
    return streamChat(ctx, reply, answer, isObj(body.stream_options) && body.stream_options.include_usage === true)
  }
}
