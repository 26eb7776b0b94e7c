/**
 * E16 OpenAI-style chat: `POST /v1/chat/completions` as one `chat.completion` or as data-only
 * chunks ending with `[DONE]` (`include_usage` adds a usage chunk); plus the reply plan (text or one
 * function call) that chat and responses share.
 */
import type { EmulatorContext } from "../../server/Context.js"
import { errorBody } from "../../server/Family.js"
import { findModel } from "../../gateway/Models.js"
import type { Reply, Route } from "../../server/Route.js"
import {
  canonicalJson,
  estimateTokens,
  jsonReply,
  newId,
  pace,
  replyWords,
  sampleArgs,
  tokenPieces
} from "../TextGen.js"

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)

/** What chat and responses answer: text pieces, or one function call. */
export interface TextPlan {
  readonly pieces: ReadonlyArray<string>
  readonly call: { readonly id: string; readonly name: string; readonly arguments: string } | undefined
  /** True when the token limit cut the text. */
  readonly truncated: boolean
  readonly outputTokens: number
}

/** The inputs of a plan: what seeds the text, the tools, the tool output being answered, the token limit. */
export interface PlanInput {
  readonly seed: unknown
  readonly tools: unknown
  readonly toolChoice: unknown
  readonly toolOutput: string | undefined
  readonly maxTokens: unknown
  /** Structured output asked for: the text is JSON (matching `schema` when given). */
  readonly json: { readonly schema: unknown } | undefined
}

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

const functionTools = (tools: unknown): Array<{ name: string; parameters: unknown }> =>
  (Array.isArray(tools) ? tools : []).filter(isObj).flatMap((t) => {
    // Chat nests the function (`{type, function: {name, parameters}}`); responses flattens it.
    const f = isObj(t.function) ? t.function : t
    return t.type === "function" && typeof f.name === "string" ? [{ name: f.name, parameters: f.parameters }] : []
  })

/** Plans the reply: a function call when function tools are offered and no tool output is being answered, else text. */
export const planText = (ctx: EmulatorContext, input: PlanInput): TextPlan => {
  const seed = canonicalJson(input.seed)
  const fns = functionTools(input.tools)
  const choice = input.toolChoice
  const named = isObj(choice) ? (isObj(choice.function) ? choice.function.name : choice.name) : undefined
  if (fns.length > 0 && choice !== "none" && input.toolOutput === undefined) {
    const fn = fns.find((f) => f.name === named) ?? fns[0]!
    const args = JSON.stringify(sampleArgs(fn.parameters, seed))
    return {
      pieces: [],
      call: { id: newId("call_"), name: fn.name, arguments: args },
      truncated: false,
      outputTokens: tokenPieces(args).length + 5
    }
  }
  const prefix = input.toolOutput === undefined ? "" : `The tool returned: ${input.toolOutput}. `
  const text =
    input.json !== undefined
      ? jsonReply(input.json.schema, seed)
      : prefix + replyWords(seed, ctx.options.text.replyWords).join(" ")
  const all = tokenPieces(text)
  const max = typeof input.maxTokens === "number" && input.maxTokens > 0 ? input.maxTokens : Infinity
  const pieces = all.slice(0, max)
  return { pieces, call: undefined, truncated: all.length > max, outputTokens: pieces.length }
}

/** The structured output a `{type: "json_object" | "json_schema", …}` format asks for (chat nests the schema in `json_schema`). */
export const jsonFormat = (format: unknown): PlanInput["json"] => {
  if (!isObj(format)) return undefined
  if (format.type === "json_object") return { schema: undefined }
  if (format.type !== "json_schema") return undefined
  return { schema: isObj(format.json_schema) ? format.json_schema.schema : format.schema }
}

/** The text of a message `content`: a string or an array of parts with `text`. */
export const contentText = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((p) => (isObj(p) && typeof p.text === "string" ? p.text : "")).join(" ")
      : ""

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
    if (!isObj(msg) || !CHAT_ROLES.includes(String(msg.role))) return [`Invalid value for '${at}.role'.`, `${at}.role`]
    if (msg.content === undefined && msg.tool_calls === undefined)
      return [`Missing required parameter: '${at}.content'.`, `${at}.content`]
  }
  for (const name of ["max_tokens", "max_completion_tokens"])
    if (body[name] !== undefined && !isPositiveInt(body[name]))
      return [`Invalid '${name}': must be a positive integer.`, name]
  const t = body.temperature
  if (t !== undefined && !(typeof t === "number" && t >= 0 && t <= 2))
    return ["Invalid 'temperature': must be between 0 and 2.", "temperature"]
  return undefined
}

/** Everything a chat answer is made of. */
interface ChatAnswer {
  readonly id: string
  readonly created: number
  readonly model: string
  readonly plan: TextPlan
  readonly finish: "tool_calls" | "length" | "stop"
  readonly usage: Obj
  readonly toolCall: Obj | undefined
}

const FINGERPRINT = "fp_umg_emulator"

const chatCompletion = (a: ChatAnswer): Obj => {
  const content = a.plan.call === undefined ? a.plan.pieces.join("") : null
  const message = {
    role: "assistant",
    content,
    refusal: null,
    ...(a.toolCall === undefined ? {} : { tool_calls: [a.toolCall] })
  }
  return {
    id: a.id,
    object: "chat.completion",
    created: a.created,
    model: a.model,
    choices: [{ index: 0, message, finish_reason: a.finish, logprobs: null }],
    usage: a.usage,
    system_fingerprint: FINGERPRINT
  }
}

/** Streams the OpenAI chat stream: a role chunk, tool-call fragments or content deltas, a finish chunk, usage, `[DONE]`. */
const streamChat = async (ctx: EmulatorContext, reply: Reply, a: ChatAnswer, includeUsage: boolean): Promise<void> => {
  const w = reply.sse()
  const base = {
    id: a.id,
    object: "chat.completion.chunk",
    created: a.created,
    model: a.model,
    system_fingerprint: FINGERPRINT
  }
  const chunk = (choices: Array<Obj>, extra: Obj = {}): Promise<void> =>
    w.event(undefined, JSON.stringify({ ...base, choices, ...(includeUsage ? { usage: null } : {}), ...extra }))
  const choice = (delta: Obj, finishReason: string | null = null): Obj => ({
    index: 0,
    delta,
    logprobs: null,
    finish_reason: finishReason
  })
  const call = a.plan.call
  await chunk([choice({ role: "assistant", content: call === undefined ? "" : null, refusal: null })])
  if (call !== undefined) {
    await chunk([
      choice({
        tool_calls: [{ index: 0, id: call.id, type: "function", function: { name: call.name, arguments: "" } }]
      })
    ])
    await chunk([choice({ tool_calls: [{ index: 0, function: { arguments: call.arguments } }] })])
  }
  for (const content of a.plan.pieces) {
    if (w.closed) return
    await pace(ctx)
    await chunk([choice({ content })])
  }
  await chunk([choice({}, a.finish)])
  if (includeUsage) await chunk([], { usage: a.usage })
  w.final()
  await w.event(undefined, "[DONE]")
  w.end()
}

/** `POST /v1/chat/completions`. */
export const chatRoute: Route = {
  name: "chat",
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
    const last = messages[messages.length - 1]!
    const plan = planText(ctx, {
      seed: { model: body.model, messages, tools: body.tools },
      tools: body.tools,
      toolChoice: body.tool_choice,
      toolOutput: last.role === "tool" ? contentText(last.content) : undefined,
      maxTokens: body.max_completion_tokens ?? body.max_tokens,
      json: jsonFormat(body.response_format)
    })
    const input =
      estimateTokens(canonicalJson(messages)) +
      (body.tools === undefined ? 0 : estimateTokens(canonicalJson(body.tools)))
    const answer: ChatAnswer = {
      id: newId("chatcmpl-"),
      created: Math.floor(ctx.clock.now() / 1000),
      model: String(body.model),
      plan,
      finish: plan.call !== undefined ? "tool_calls" : plan.truncated ? "length" : "stop",
      usage: {
        prompt_tokens: input,
        completion_tokens: plan.outputTokens,
        total_tokens: input + plan.outputTokens,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 }
      },
      toolCall:
        plan.call === undefined
          ? undefined
          : { id: plan.call.id, type: "function", function: { name: plan.call.name, arguments: plan.call.arguments } }
    }
    if (body.stream !== true) return reply.json(200, chatCompletion(answer))
    return streamChat(ctx, reply, answer, isObj(body.stream_options) && body.stream_options.include_usage === true)
  }
}
