/**
 * E8 `POST /v1/messages` (epsilon): a deterministic reply as one JSON message or as the SSE event sequence.
 * With thinking blocks, tool calls and structured output (the rules of ToolTurns.ts), and
 * prompt-cache accounting.
 */
import type { EmulatorContext } from "../../server/Context.js"
import { errorBody, streamErrorEvent } from "../../server/Family.js"
import { countInputTokens } from "./MessageTokens.js"
import { findModel } from "../../gateway/Models.js"
import { thinkingSignature, validateCreate } from "./MessagesValidation.js"
import { accountCache } from "./PromptCache.js"
import type { Reply, Route } from "../../server/Route.js"
import { canonicalJson, cutAtStop, jsonPieces, newId, pace, replyWords, textOf, tokenPieces } from "../TextGen.js"
import { checkTools, planTurn, resultsPrefix, structuredText, wantsMismatch, type Conversation } from "../ToolTurns.js"
import type { SchemaProblem } from "../schema/SchemaWalk.js"
import {
  checkToolPairing,
  messagesChoice,
  messagesConversation,
  messagesFormat,
  messagesTools
} from "./MessagesTools.js"

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
  /** The text block is structured JSON: it streams in `jsonPieces`, not word by word. */
  readonly json: boolean
}

/** The plan, or the 400 message of a schema the emulator refuses. */
export type Planned =
  { readonly ok: true; readonly plan: MessagePlan } | { readonly ok: false; readonly message: string }

const refusal = (field: string, problem: SchemaProblem): Planned => ({
  ok: false,
  message: `field ${field}: ${problem.path}: ${problem.message}`
})

/** The answer's text (words after the tool results, or structured JSON) cut by max_tokens and stop sequences. */
const answerText = (
  ctx: EmulatorContext,
  body: Obj,
  seed: string,
  conversation: Conversation
):
  | { readonly text: string; readonly json: boolean; readonly stop: Pick<MessagePlan, "stopReason" | "stopSequence"> }
  | { readonly field: string; readonly problem: SchemaProblem } => {
  const format = messagesFormat(body)
  let pieces: Array<string>
  if (format !== undefined) {
    const structured = structuredText(format.schema, seed, wantsMismatch(conversation.prompt))
    if (!structured.ok) return { field: format.field, problem: structured.problem }
    pieces = jsonPieces(structured.text)
  } else
    pieces = tokenPieces(resultsPrefix(conversation.results) + replyWords(seed, ctx.options.text.replyWords).join(" "))
  let stopReason: MessagePlan["stopReason"] = "end_turn"
  let stopSequence: string | null = null
  const budget = body.max_tokens as number
  if (pieces.length > budget) {
    pieces = pieces.slice(0, budget)
    stopReason = "max_tokens"
  }
  let text = pieces.join("")
  const stops = Array.isArray(body.stop_sequences) ? (body.stop_sequences as Array<string>) : []
  const hit = cutAtStop(text, stops)
  if (hit !== undefined) {
    text = hit.text
    stopReason = "stop_sequence"
    stopSequence = hit.stop
  }
  return { text, json: format !== undefined, stop: { stopReason, stopSequence } }
}

/** Plans the reply to a valid body: a pure function of the body, except the ids and the cache. */
export const planMessage = (ctx: EmulatorContext, body: Obj): Planned => {
  const model = body.model as string
  const messages = body.messages as ReadonlyArray<unknown>
  const seed = canonicalJson({ model, system: body.system, messages, tools: body.tools })
  const blocks: Array<OutBlock> = []
  let stop: Pick<MessagePlan, "stopReason" | "stopSequence">
  let json = false

  if (isObj(body.thinking) && body.thinking.type === "enabled") {
    const thinking = replyWords(`${seed}#thinking`, 12).join(" ")
    blocks.push({ type: "thinking", thinking, signature: thinkingSignature(thinking) })
  }

  const tools = messagesTools(body.tools)
  const bad = checkTools(tools)
  if (bad !== undefined) return refusal(bad.where, bad.problem)
  const choice = messagesChoice(body.tool_choice)
  const conversation = messagesConversation(messages)
  const parallel = !(isObj(body.tool_choice) && body.tool_choice.disable_parallel_tool_use === true)
  const turn = planTurn({ tools, choice, conversation, parallel, seed })
  if (turn.kind === "refused") return refusal(turn.where, turn.problem)
  if (turn.kind === "calls") {
    const names = turn.calls.map((c) => c.name)
    if (choice.kind === "auto")
      blocks.push({
        type: "text",
        text: `I will use the ${names.length === 1 ? `${names[0]!} tool` : `${names.join(" and ")} tools`}.`
      })
    for (const call of turn.calls)
      blocks.push({ type: "tool_use", id: newId("toolu_"), name: call.name, input: call.args })
    stop = { stopReason: "tool_use", stopSequence: null }
  } else {
    const answer = answerText(ctx, body, seed, conversation)
    if ("problem" in answer) return refusal(answer.field, answer.problem)
    blocks.push({ type: "text", text: answer.text })
    stop = answer.stop
    json = answer.json
  }

  const output = blocks.reduce(
    (n, b) =>
      n +
      (b.type === "tool_use"
        ? jsonPieces(JSON.stringify(b.input)).length + 5
        : (json && b.type === "text" ? jsonPieces(b.text) : tokenPieces(b.type === "text" ? b.text : b.thinking))
            .length),
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
  return { ok: true, plan: { id: newId("msg_"), model, blocks, ...stop, usage, json } }
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

/**
 * Streams a plan as the messages-style stream does: `event:` lines, a ping, deltas per token, cumulative
 * usage; an injected in-stream error is an `event: error`.
 */
export const streamMessage = async (ctx: EmulatorContext, reply: Reply, plan: MessagePlan): Promise<void> => {
  const w = reply.sse({}, { errorEvent: (fault) => streamErrorEvent("messages", fault) })
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
        ? (plan.json ? jsonPieces(b.text) : tokenPieces(b.text)).map((text) => ({ type: "text_delta", text }))
        : b.type === "thinking"
          ? [
              ...tokenPieces(b.thinking).map((thinking) => ({ type: "thinking_delta", thinking })),
              { type: "signature_delta", signature: b.signature }
            ]
          : ["", ...jsonPieces(JSON.stringify(b.input))].map((partial_json) => ({
              type: "input_json_delta",
              partial_json
            }))
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

/** `POST /v1/messages`. */
export const messagesRoute: Route = {
  name: "messages",
  streams: true,
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
    const unpaired = checkToolPairing(body.messages as ReadonlyArray<unknown>)
    if (unpaired !== undefined) return bad(400, unpaired)
    const model = findModel(body.model as string)
    if (model === undefined || model.ownedBy !== "epsilon") return bad(404, `model: ${textOf(body.model)} not found`)
    const planned = planMessage(ctx, body)
    if (!planned.ok) return bad(400, planned.message)
    if (body.stream === true) return streamMessage(ctx, reply, planned.plan)
    reply.json(200, messageBody(planned.plan))
  }
}
