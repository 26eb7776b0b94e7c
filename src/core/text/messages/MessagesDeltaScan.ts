/**
 * A fast path for the messages stream's bulk: `content_block_delta` records read into their decoded
 * form without a parse tree. A `content_block_delta` carrying a text, thinking or tool-input fragment,
 * in the exact text upstream sends
 * (`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}`), is most of
 * every stream's events. Such a record is read straight into the event the Schema decode would give
 * (same keys, same order, same values); any other text — other keys, key order, spacing, numbers or
 * escapes this reader does not take — is declined and goes through `JSON.parse` and the Schema as
 * before.
 */
import { scanIndex, scanString, textAt } from "../../wire/JsonScan.js"

const HEAD = '{"type":"content_block_delta","index":'
const DELTA = ',"delta":{"type":"'
const TAIL = "}}"

/**
 * What a fragment delta decodes to: a `MessagesEvent`, written out here because `MessagesEvents.ts`
 * (its Schemas) reads through this module; `decodeRecord` there returns it as a `MessagesEvent`, so
 * the compiler keeps the two in step.
 * @category models
 */
export type FragmentDeltaEvent = {
  readonly type: "content_block_delta"
  readonly index: number
  readonly delta:
    | { readonly type: "text_delta"; readonly text: string }
    | { readonly type: "thinking_delta"; readonly thinking: string }
    | { readonly type: "input_json_delta"; readonly partial_json: string }
}

type FragmentDelta = FragmentDeltaEvent["delta"]

/**
 * Each fragment delta read here: the text from its `type` value to the opening quote of its string,
 * and the delta made from that string.
 */
const KINDS: ReadonlyArray<{ readonly between: string; readonly make: (value: string) => FragmentDelta }> = [
  { between: 'text_delta","text":', make: (text) => ({ type: "text_delta", text }) },
  { between: 'thinking_delta","thinking":', make: (thinking) => ({ type: "thinking_delta", thinking }) },
  { between: 'input_json_delta","partial_json":', make: (partial_json) => ({ type: "input_json_delta", partial_json }) }
]

/** The nesting of these events (an object in an object): a depth bound below it declines. */
const DEPTH = 2

/**
 * The event a fragment-delta record holds, or `undefined` when its text is not exactly such a
 * record (then `JSON.parse` and the Schema decide). Never throws.
 * @category decoding
 */
export const scanBlockDelta = (data: string, maxDepth: number): FragmentDeltaEvent | undefined => {
  if (maxDepth < DEPTH || !textAt(data, HEAD, 0)) return undefined
  const index = scanIndex(data, HEAD.length)
  if (index === undefined || !textAt(data, DELTA, index.end)) return undefined
  const at = index.end + DELTA.length
  // Text first: it is most of a stream.
  for (const kind of KINDS) {
    if (!textAt(data, kind.between, at)) continue
    const text = scanString(data, at + kind.between.length)
    if (text === undefined || text.end + TAIL.length !== data.length || !textAt(data, TAIL, text.end)) return undefined
    return { type: "content_block_delta", index: index.value, delta: kind.make(text.value) }
  }
  return undefined
}
