/**
 * E8 `POST /v1/messages` (epsilon): a deterministic reply as one JSON message or as the full SSE event
 * sequence, with thinking blocks, tool use in two rounds and prompt-cache accounting.
 */
import type { EmulatorContext } from "../../server/Context.js"
import { errorBody } from "../../server/Family.js"
import { countInputTokens } from "./MessageTokens.js"
import { findModel } from "../../gateway/Models.js"
import { validateCreate } from "./MessagesValidation.js"
import { accountCache } from "./PromptCache.js"
import type { Reply, Route } from "../../server/Route.js"
import { canonicalJson, hash32, jsonReply, newId, pace, replyWords, sampleArgs, tokenPieces } from "../TextGen.js"

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)

/**
 * An output content block. A text block has no `citations` field: the upstream writes it only when
 * the block cites something (an array), and strict clients (the AI SDK's) refuse a `null` there.
 */
export type OutBlock =
  | { readonly type: "thinking"; readonly thinking: string; readonly signature: string }
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: Obj }

/** What the emulator answers: blocks, stop reason and usage. */
export interface MessagePlan {
  readonly id: string
  readonly model: string
  readonly blocks: ReadonlyArray<OutBlock>
  readonly stopReason: "end_turn" | "max_tokens" | "stop_sequence" | "tool_use"
  readonly stopSequence: string | null
  readonly usage: Obj
}

const resultText = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((b) => (isObj(b) && typeof b.text === "string" ? b.text : "")).join(" ")
      : ""

/** The tool_result blocks of the last user turn (round two of tool use), if any. */
const lastToolResults = (messages: ReadonlyArray<unknown>): Array<Obj> => {
  const last = messages[messages.length - 1]
  if (!isObj(last) || last.role !== "user" || !Array.isArray(last.content)) return []
  return last.content.filter((b): b is Obj => isObj(b) && b.type === "tool_result")
}

/** Plans the reply to a valid body: a pure function of the body, except the ids and the cache. */
export const planMessage = (ctx: EmulatorContext, body: Obj): MessagePlan => {
  const model = body.model as string
  const messages = body.messages as ReadonlyArray<unknown>
  const maxTokens = body.max_tokens as number
  const seed = canonicalJson({ model, system: body.system, messages, tools: body.tools })
  const blocks: Array<OutBlock> = []
  let stopReason: MessagePlan["stopReason"] = "end_turn"
  let stopSequence: string | null = null
  let budget = maxTokens

  if (isObj(body.thinking) && body.thinking.type === "enabled") {
    const thinking = replyWords(`${seed}#thinking`, 12).join(" ")
    blocks.push({ type: "thinking", thinking, signature: Buffer.from(`sig:${hash32(thinking)}`).toString("base64") })
  }

  const tools = Array.isArray(body.tools) ? body.tools.filter((t): t is Obj => isObj(t) && isObj(t.input_schema)) : []
  const choice = isObj(body.tool_choice) ? body.tool_choice : { type: "auto" }
  const results = lastToolResults(messages)
  if (tools.length > 0 && choice.type !== "none" && results.length === 0) {
    const tool = (choice.type === "tool" ? tools.find((t) => t.name === choice.name) : undefined) ?? tools[0]!
    const name = String(tool.name)
    if (choice.type === "auto") blocks.push({ type: "text", text: `I will use the ${name} tool.` })
    blocks.push({ type: "tool_use", id: newId("toolu_"), name, input: sampleArgs(tool.input_schema, seed) })
    stopReason = "tool_use"
  } else {
    const prefix =
      results.length > 0 ? `The tool returned: ${results.map((r) => resultText(r.content)).join("; ")}. ` : ""
    // `output_config.format` (structured output) makes the text JSON of its schema.
    const format = isObj(body.output_config) && isObj(body.output_config.format) ? body.output_config.format : undefined
    const text0 =
      format?.type === "json_schema"
        ? jsonReply(format.schema, seed)
        : prefix + replyWords(seed, ctx.options.text.replyWords).join(" ")
    let pieces = tokenPieces(text0)
    if (pieces.length > budget) {
      pieces = pieces.slice(0, budget)
      stopReason = "max_tokens"
    }
    let text = pieces.join("")
    const stops = Array.isArray(body.stop_sequences) ? (body.stop_sequences as Array<string>) : []
    const hit = stops
      .filter((s) => s.length > 0)
      .map((s) => ({ s, at: text.indexOf(s) }))
      .filter((x) => x.at >= 0)
      .sort((a, b) => a.at - b.at)[0]
    if (hit !== undefined) {
      text = text.slice(0, hit.at)
      stopReason = "stop_sequence"
      stopSequence = hit.s
    }
    budget -= tokenPieces(text).length
    blocks.push({ type: "text", text })
  }

  const output = blocks.reduce(
    (n, b) =>
      n +
      (b.type === "tool_use"
        ? tokenPieces(JSON.stringify(b.input)).length + 5
        : tokenPieces(b.type === "text" ? b.text : b.thinking).length),
    0
  )
  const total = countInputTokens(body)
  const cache = accountCache(ctx, model, body)
  const usage = {
    input_tokens: total - cache.creation - cache.read,
    output_tokens: output,
    cache_creation_input_tokens: cache.creation,
    cache_read_input_tokens: cache.read,
    cache_creation: {
      ephemeral_5m_input_tokens: cache.ttl === "5m" ? cache.creation : 0,
      ephemeral_1h_input_tokens: cache.ttl === "1h" ? cache.creation : 0
    },
    service_tier: "standard"
  }
  return { id: newId("msg_"), model, blocks, stopReason, stopSequence, usage }
}

/** The non-stream `Message` body of a plan. */
export const messageBody = (plan: MessagePlan): Obj => ({
  id: plan.id,
  type: "message",
  role: "assistant",
  model: plan.model,
  content: plan.blocks,
  stop_reason: plan.stopReason,
  stop_sequence: plan.stopSequence,
  usage: plan.usage
})

const emptyBlock = (b: OutBlock): Obj => {
  switch (b.type) {
    case "text":
      return { type: "text", text: "" }
    case "thinking":
      return { type: "thinking", thinking: "", signature: "" }
    case "tool_use":
      return { type: "tool_use", id: b.id, name: b.name, input: {} }
  }
}

/** Streams a plan as the messages-style stream does: `event:` lines, a ping, deltas per token, cumulative usage. */
export const streamMessage = async (ctx: EmulatorContext, reply: Reply, plan: MessagePlan): Promise<void> => {
  const w = reply.sse()
  const send = (name: string, data: Obj): Promise<void> => w.event(name, JSON.stringify({ type: name, ...data }))
  const { output_tokens: _out, ...startUsage } = plan.usage
  await send("message_start", {
    message: {
      ...messageBody(plan),
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...startUsage, output_tokens: 1 }
    }
  })
  for (let index = 0; index < plan.blocks.length; index++) {
    const b = plan.blocks[index]!
    await send("content_block_start", { index, content_block: emptyBlock(b) })
    if (index === 0) await send("ping", {})
    const deltas: Array<Obj> =
      b.type === "text"
        ? tokenPieces(b.text).map((text) => ({ type: "text_delta", text }))
        : b.type === "thinking"
          ? [
              ...tokenPieces(b.thinking).map((thinking) => ({ type: "thinking_delta", thinking })),
              { type: "signature_delta", signature: b.signature }
            ]
          : jsonPieces(JSON.stringify(b.input)).map((partial_json) => ({ type: "input_json_delta", partial_json }))
    for (const delta of deltas) {
      if (w.closed) return
      await pace(ctx)
      await send("content_block_delta", { index, delta })
    }
    await send("content_block_stop", { index })
  }
  await send("message_delta", {
    delta: { stop_reason: plan.stopReason, stop_sequence: plan.stopSequence },
    usage: plan.usage
  })
  w.final()
  await send("message_stop", {})
  w.end()
}

/** A tool input's JSON in the pieces it streams as: an empty first piece, then two halves. */
const jsonPieces = (json: string): Array<string> => {
  const half = Math.ceil(json.length / 2)
  return ["", json.slice(0, half), json.slice(half)].filter((p, i) => i === 0 || p.length > 0)
}

/** `POST /v1/messages`. */
export const messagesRoute: Route = {
  name: "messages",
  method: "POST",
  path: "/v1/messages",
  handle: async (req, reply, ctx) => {
    const requestId = req.requestId === undefined ? {} : { requestId: req.requestId }
    const bad = (status: number, message: string): void =>
      reply.json(status, errorBody("messages", status, message, requestId))
    if (!isObj(req.json))
      return bad(
        400,
        req.jsonError === undefined ? "request body must be a JSON object" : `invalid JSON body: ${req.jsonError}`
      )
    const body = req.json
    const invalid = validateCreate(body)
    if (invalid !== undefined) return bad(400, invalid.message)
    const model = findModel(body.model as string)
    if (model === undefined || model.ownedBy !== "epsilon") return bad(404, `model: ${String(body.model)} not found`)
    const plan = planMessage(ctx, body)
    if (body.stream === true) return streamMessage(ctx, reply, plan)
    reply.json(200, messageBody(plan))
  }
}
