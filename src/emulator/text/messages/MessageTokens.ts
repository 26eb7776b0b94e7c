/**
 * The emulator's token count of a messages-style body (E9 and the usage of E8), and its prompt-cache
 * prefix. Text counts about four characters a token, images a fixed 1000, tool definitions by their
 * JSON; the cached prefix ends at the last block carrying `cache_control`.
 */
import { canonicalJson, estimateTokens, textOf } from "../TextGen.js"

/** Tokens counted for one image (E9: "about 1000 tokens"). */
export const IMAGE_TOKENS = 1000

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)

/** Tokens of one content block. */
export const blockTokens = (block: unknown): number => {
  if (typeof block === "string") return estimateTokens(block)
  if (!isObj(block)) return 0
  switch (block.type) {
    case "text":
      return estimateTokens(typeof block.text === "string" ? block.text : "")
    case "image":
      return IMAGE_TOKENS
    case "document":
      return IMAGE_TOKENS
    case "thinking":
      return estimateTokens(typeof block.thinking === "string" ? block.thinking : "")
    case "tool_use":
      return estimateTokens(`${textOf(block.name)}${canonicalJson(block.input ?? {})}`)
    case "tool_result":
      return contentTokens(block.content)
    default:
      return estimateTokens(canonicalJson(block))
  }
}

/** Tokens of a `content` field: a string or an array of blocks. */
export const contentTokens = (content: unknown): number =>
  typeof content === "string"
    ? estimateTokens(content)
    : Array.isArray(content)
      ? content.reduce<number>((n, b) => n + blockTokens(b), 0)
      : 0

/** A block of the prompt in cache order (tools, system, messages), with its tokens and `cache_control`. */
interface PromptBlock {
  readonly value: unknown
  readonly tokens: number
  readonly cacheControl: unknown
}

const promptBlocks = (body: Obj): Array<PromptBlock> => {
  const out: Array<PromptBlock> = []
  const push = (value: unknown, tokens: number) =>
    out.push({ value, tokens, cacheControl: isObj(value) ? value.cache_control : undefined })
  if (Array.isArray(body.tools)) for (const t of body.tools) push(t, estimateTokens(canonicalJson(t)))
  if (typeof body.system === "string") push(body.system, estimateTokens(body.system))
  else if (Array.isArray(body.system)) for (const b of body.system) push(b, blockTokens(b))
  if (Array.isArray(body.messages))
    for (const msg of body.messages) {
      const content = isObj(msg) ? msg.content : undefined
      if (Array.isArray(content)) for (const b of content) push(b, blockTokens(b))
      else push(content, contentTokens(content))
    }
  return out
}

/** Total input tokens of a body: tools, system and messages (output parameters are not counted). */
export const countInputTokens = (body: Obj): number => promptBlocks(body).reduce((n, b) => n + b.tokens, 0)

/** The cacheable prefix: its tokens, its content (for exact matching) and its lifetime type. */
export interface CachePrefix {
  readonly tokens: number
  readonly content: string
  readonly ttl: "5m" | "1h"
}

const ttlOf = (cacheControl: unknown): "5m" | "1h" =>
  isObj(cacheControl) && (cacheControl.type === "persistent" || cacheControl.ttl === "1h") ? "1h" : "5m"

/** The prefix up to and including the last block with `cache_control` (a top-level `cache_control` marks the last block). */
export const cachePrefix = (body: Obj): CachePrefix | undefined => {
  const blocks = promptBlocks(body)
  let last = -1
  for (let i = 0; i < blocks.length; i++) if (blocks[i]!.cacheControl !== undefined) last = i
  let cacheControl = last >= 0 ? blocks[last]!.cacheControl : undefined
  if (isObj(body.cache_control) && blocks.length > 0) {
    last = blocks.length - 1
    cacheControl = body.cache_control
  }
  if (last < 0) return undefined
  const prefix = blocks.slice(0, last + 1)
  return {
    tokens: prefix.reduce((n, b) => n + b.tokens, 0),
    content: canonicalJson([body.model, prefix.map((b) => b.value)]),
    ttl: ttlOf(cacheControl)
  }
}
