/**
 * The checks E8 (create message) and E9 (count tokens) make on a body, returning the first failure's
 * message in the contract's wording (`field messages is required`).
 */
import { Buffer } from "node:buffer"
import { hash32, textOf } from "../TextGen.js"
import { checkBlocks, checkCacheControl, type Invalid } from "./MessagesBlocks.js"

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)
const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v)

/**
 * The signature the emulator gives a thinking block: a token of its text, so a block sent back
 * altered (or made up) is told apart, as upstream tells it by its signature.
 */
export const thinkingSignature = (thinking: string): string => Buffer.from(`sig:${hash32(thinking)}`).toString("base64")

export type { Invalid } from "./MessagesBlocks.js"

const invalid = (message: string): Invalid => ({ message })

/** A function tool's name (a server tool's is its own kind's). */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,128}$/

const checkMessages = (messages: unknown, field: (name: string) => string): Invalid | undefined => {
  if (messages === undefined) return invalid(field("messages") + " is required")
  if (!Array.isArray(messages) || messages.length === 0)
    return invalid(`${field("messages")} must be a non-empty array`)
  for (let i = 0; i < messages.length; i++) {
    const msg: unknown = messages[i]
    if (!isObj(msg)) return invalid(`${field(`messages[${i}]`)} must be an object`)
    if (msg.role !== "user" && msg.role !== "assistant")
      return invalid(`${field(`messages[${i}].role`)} must be one of user, assistant`)
    const content = msg.content
    if (content === undefined) return invalid(`${field(`messages[${i}].content`)} is required`)
    if (
      typeof content !== "string" &&
      !(Array.isArray(content) && content.every((b) => isObj(b) && typeof b.type === "string"))
    )
      return invalid(`${field(`messages[${i}].content`)} must be a string or an array of content blocks`)
    const blocks = Array.isArray(content) ? checkBlocks(content, field(`messages[${i}].content`)) : undefined
    if (blocks !== undefined) return blocks
  }
  return undefined
}

/** Each tool: a name (a function tool's of 1 to 128 letters, digits, `_` or `-`), declared once; its `cache_control`. */
const checkToolList = (tools: ReadonlyArray<unknown>, field: (name: string) => string): Invalid | undefined => {
  const names = new Set<string>()
  for (let i = 0; i < tools.length; i++) {
    const t: unknown = tools[i]
    if (!isObj(t) || typeof t.name !== "string") return invalid(`${field(`tools[${i}].name`)} is required`)
    const serverTool = typeof t.type === "string" && t.type !== "custom"
    if (!serverTool && !TOOL_NAME.test(t.name))
      return invalid(
        `${field(`tools[${i}].name`)} must be 1 to 128 letters, digits, _ or - (pattern ^[a-zA-Z0-9_-]{1,128}$), got ${JSON.stringify(t.name)}`
      )
    if (names.has(t.name))
      return invalid(
        `${field(`tools[${i}].name`)}: ${JSON.stringify(t.name)} is declared twice; tool names must be unique`
      )
    names.add(t.name)
    if (!serverTool && !isObj(t.input_schema)) return invalid(`${field(`tools[${i}].input_schema`)} is required`)
    const cache = checkCacheControl(t.cache_control, field(`tools[${i}].cache_control`))
    if (cache !== undefined) return cache
  }
  return undefined
}

const checkTools = (tools: unknown, toolChoice: unknown): Invalid | undefined => {
  if (tools !== undefined) {
    if (!Array.isArray(tools)) return invalid("field tools must be an array")
    const problem = checkToolList(tools, (name) => `field ${name}`)
    if (problem !== undefined) return problem
  }
  if (toolChoice !== undefined) {
    if (!isObj(toolChoice) || !["auto", "any", "none", "tool"].includes(textOf(toolChoice.type)))
      return invalid("field tool_choice.type must be one of auto, any, none, tool")
    if (toolChoice.type === "tool") {
      const names = Array.isArray(tools) ? tools.map((t) => (isObj(t) ? t.name : undefined)) : []
      if (typeof toolChoice.name !== "string" || !names.includes(toolChoice.name))
        return invalid("field tool_choice.name must name one of the tools")
    }
  }
  return undefined
}

const checkSystem = (system: unknown): Invalid | undefined => {
  if (system === undefined || typeof system === "string") return undefined
  if (!Array.isArray(system) || !system.every((b) => isObj(b) && b.type === "text" && typeof b.text === "string"))
    return invalid("field system must be a string or an array of text blocks")
  if (system.some((b) => String((b as Obj).text).trim() === ""))
    return invalid("field system: text content blocks must contain non-whitespace text")
  for (let i = 0; i < system.length; i++) {
    const problem = checkCacheControl((system[i] as Obj).cache_control, `field system[${i}].cache_control`)
    if (problem !== undefined) return problem
  }
  return undefined
}

const DISPLAYS = ["summarized", "omitted"]

/**
 * `thinking`: its type, `display` of enabled or adaptive thinking, and when enabled an integer budget greater than 1024 — less than
 * `max_tokens` where the body has one (a count-tokens body has none).
 */
const checkThinking = (thinking: unknown, maxTokens: unknown): Invalid | undefined => {
  if (thinking === undefined) return undefined
  if (!isObj(thinking) || !["enabled", "disabled", "adaptive"].includes(textOf(thinking.type)))
    return invalid("field thinking.type must be one of enabled, disabled, adaptive")
  // `display` belongs to enabled and adaptive thinking (protocol notes §1.2).
  if (thinking.display !== undefined && (thinking.type === "disabled" || !DISPLAYS.includes(textOf(thinking.display))))
    return invalid(`field thinking.display must be one of ${DISPLAYS.join(", ")}`)
  if (thinking.type !== "enabled") return undefined
  const budget = thinking.budget_tokens
  if (isNum(budget) && !Number.isInteger(budget)) return invalid("field thinking.budget_tokens must be an integer")
  if (!isNum(budget) || budget <= 1024) return invalid("field thinking.budget_tokens must be greater than 1024")
  if (isNum(maxTokens) && budget >= maxTokens)
    return invalid("field thinking.budget_tokens must be less than max_tokens")
  return undefined
}

/** Thinking blocks of assistant turns must come back unchanged (protocol notes §1.4): their signature tells. */
const checkThinkingBlocks = (messages: ReadonlyArray<unknown>): Invalid | undefined => {
  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i] as Obj
    if (msg.role !== "assistant" || !Array.isArray(msg.content)) continue
    for (let j = 0; j < msg.content.length; j++) {
      const block = msg.content[j] as Obj
      if (block.type !== "thinking") continue
      if (typeof block.thinking !== "string" || block.signature !== thinkingSignature(block.thinking))
        return invalid(`messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`)
    }
  }
  return undefined
}

/** E8's checks on a create-message body. */
export const validateCreate = (body: Obj): Invalid | undefined => {
  if (typeof body.model !== "string" || body.model.length === 0) return invalid("field model is required")
  const m =
    checkMessages(body.messages, (name) => `field ${name}`) ?? checkThinkingBlocks(body.messages as Array<unknown>)
  if (m !== undefined) return m
  if (body.max_tokens === undefined) return invalid("field max_tokens is required")
  if (!isNum(body.max_tokens) || !Number.isInteger(body.max_tokens) || body.max_tokens <= 0)
    return invalid("field max_tokens must be an integer greater than 0")
  for (const name of ["temperature", "top_p"] as const) {
    const v = body[name]
    if (v !== undefined && (!isNum(v) || v < 0 || v > 1)) return invalid(`field ${name} must be between 0 and 1`)
  }
  if (body.top_k !== undefined && (!isNum(body.top_k) || !Number.isInteger(body.top_k) || body.top_k < 0))
    return invalid("field top_k must be a non-negative integer")
  if (body.stream !== undefined && typeof body.stream !== "boolean") return invalid("field stream must be a boolean")
  if (
    body.stop_sequences !== undefined &&
    !(Array.isArray(body.stop_sequences) && body.stop_sequences.every((s) => typeof s === "string"))
  )
    return invalid("field stop_sequences must be an array of strings")
  if (Array.isArray(body.stop_sequences) && body.stop_sequences.some((s) => String(s).trim() === ""))
    return invalid("field stop_sequences: each stop sequence must contain non-whitespace")
  if (body.metadata !== undefined && !isObj(body.metadata)) return invalid("field metadata must be an object")
  const s = checkSystem(body.system)
  if (s !== undefined) return s
  const t = checkTools(body.tools, body.tool_choice)
  if (t !== undefined) return t
  return checkThinking(body.thinking, body.max_tokens) ?? checkCacheControl(body.cache_control, "field cache_control")
}

/**
 * E9's checks: `model` and `messages` (the message names the failed validation, as the upstream
 * does), then those of the create fields it shares (system, tools, thinking, cache_control).
 */
export const validateCount = (body: Obj): Invalid | undefined => {
  if (typeof body.model !== "string" || body.model.length === 0) return invalid("model: Field required")
  const m = checkMessages(body.messages, (name) => name)
  if (m !== undefined) return invalid(m.message.replace(/^messages is required$/, "messages: Field required"))
  return (
    checkSystem(body.system) ??
    checkTools(body.tools, body.tool_choice) ??
    checkThinking(body.thinking, undefined) ??
    checkCacheControl(body.cache_control, "field cache_control")
  )
}
