/**
 * A fast path for the chat stream's bulk: content-fragment chunks read into their decoded form
 * without a parse tree. A `chat.completion.chunk` whose one choice carries a content fragment, in the
 * text upstream sends
 * (`{"id":"chatcmpl-…","object":"chat.completion.chunk","created":1764000000,"model":"gpt-4o-mini",
 * "service_tier":"default","system_fingerprint":"fp_…","choices":[{"index":0,"delta":{"content":"Hi"},
 * "logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"…"}`), is nearly every event of
 * a chat stream. Such a record is read straight into the chunk the Schema decode would give (same
 * keys, same order, same values; `obfuscation`, which the Schema does not know, left out as it
 * leaves it out); any other text — other keys or key order, spacing, a role, a refusal, tool calls,
 * a finish reason, usage, numbers or escapes this reader does not take — is declined and goes
 * through `JSON.parse` and the Schema as before.
 */
import { scanIndex, scanString, type Scanned, textAt } from "../../wire/JsonScan.js"

/**
 * What a content chunk decodes to: a `ChatCompletionChunk`, written out here because
 * `ChatResponse.ts` (its Schemas) reads through this module; `decodeRecord` there returns it as one,
 * so the compiler keeps the two in step.
 * @category models
 */
export type ContentChunk = {
  readonly id: string
  readonly object: string
  readonly created: number
  readonly model: string
  readonly choices: ReadonlyArray<{
    readonly index: number
    readonly delta: { readonly content: string }
    readonly finish_reason: null
    readonly logprobs?: null
  }>
  readonly usage?: null
  readonly service_tier?: string | null
  readonly system_fingerprint?: string | null
}

/** The nesting of a chunk (the chunk, its choices, a choice, its delta): a depth bound below it declines. */
const DEPTH = 4

const ID = '{"id":'
const OBJECT = ',"object":'
const CREATED = ',"created":'
const MODEL = ',"model":'
const TIER = ',"service_tier":'
const FINGERPRINT = ',"system_fingerprint":'
const CHOICE = ',"choices":[{"index":'
const DELTA = ',"delta":{"content":'
const LOGPROBS = ',"logprobs":null'
const FINISH = ',"finish_reason":null}]'
const USAGE = ',"usage":null'
const OBFUSCATION = ',"obfuscation":'
const NULL = "null"

/** A string literal or `null` at `at`. */
const scanNullable = (data: string, at: number): Scanned<string | null> | undefined =>
  textAt(data, NULL, at) ? { value: null, end: at + NULL.length } : scanString(data, at)

/**
 * The chunk a content-fragment record holds, or `undefined` when its text is not exactly such a
 * record (then `JSON.parse` and the Schema decide). Never throws.
 * @category decoding
 */
export const scanContentChunk = (data: string, maxDepth: number): ContentChunk | undefined => {
  if (maxDepth < DEPTH || !textAt(data, ID, 0)) return undefined
  const id = scanString(data, ID.length)
  if (id === undefined || !textAt(data, OBJECT, id.end)) return undefined
  const object = scanString(data, id.end + OBJECT.length)
  if (object === undefined || !textAt(data, CREATED, object.end)) return undefined
  const created = scanIndex(data, object.end + CREATED.length)
  if (created === undefined || !textAt(data, MODEL, created.end)) return undefined
  const model = scanString(data, created.end + MODEL.length)
  if (model === undefined) return undefined
  let at = model.end
  // `service_tier` and `system_fingerprint`, each at most once, in either order.
  let tier: Scanned<string | null> | undefined
  let fingerprint: Scanned<string | null> | undefined
  for (let i = 0; i < 2; i++) {
    if (tier === undefined && textAt(data, TIER, at)) {
      tier = scanNullable(data, at + TIER.length)
      if (tier === undefined) return undefined
      at = tier.end
    } else if (fingerprint === undefined && textAt(data, FINGERPRINT, at)) {
      fingerprint = scanNullable(data, at + FINGERPRINT.length)
      if (fingerprint === undefined) return undefined
      at = fingerprint.end
    } else break
  }
  if (!textAt(data, CHOICE, at)) return undefined
  const index = scanIndex(data, at + CHOICE.length)
  if (index === undefined || !textAt(data, DELTA, index.end)) return undefined
  const content = scanString(data, index.end + DELTA.length)
  if (content === undefined || data.charCodeAt(content.end) !== 0x7d) return undefined
  at = content.end + 1
  const logprobs = textAt(data, LOGPROBS, at)
  if (logprobs) at += LOGPROBS.length
  if (!textAt(data, FINISH, at)) return undefined
  at += FINISH.length
  const usage = textAt(data, USAGE, at)
  if (usage) at += USAGE.length
  if (textAt(data, OBFUSCATION, at)) {
    const obfuscation = scanString(data, at + OBFUSCATION.length)
    if (obfuscation === undefined) return undefined
    at = obfuscation.end
  }
  if (at !== data.length - 1 || data.charCodeAt(at) !== 0x7d) return undefined
  // Keys in the Schema's order, as its decode lays them out.
  const choice: { index: number; delta: { content: string }; finish_reason: null; logprobs?: null } = {
    index: index.value,
    delta: { content: content.value },
    finish_reason: null
  }
  if (logprobs) choice.logprobs = null
  const chunk: { -readonly [K in keyof ContentChunk]: ContentChunk[K] } = {
    id: id.value,
    object: object.value,
    created: created.value,
    model: model.value,
    choices: [choice]
  }
  if (usage) chunk.usage = null
  if (tier !== undefined) chunk.service_tier = tier.value
  if (fingerprint !== undefined) chunk.system_fingerprint = fingerprint.value
  return chunk
}
