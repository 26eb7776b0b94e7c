/**
 * Tool calls read out of a token stream, whichever of the four families streamed it. It gives the
 * fragments each event carries (a call begins, its arguments grow, it ends), the one rule that turns a
 * finished call's arguments into its input, and each call's arguments as they grow, parsed as far as
 * they go (`ToolCallDelta`). Pure and per stream: the readers keep the calls still open. Shared by
 * `toolCalls()`, `toolCallDeltas()` (RxJS) and the Effect `toolCallDeltas`.
 */
import * as Result from "effect/Result"
import { type Family, IncompleteStream } from "../errors/GatewayError.js"
import {
  defaultMaxPartialJsonLength,
  makePartialJson,
  type PartialJson,
  type PartialJsonLimits
} from "../wire/PartialJson.js"
import { isResponsesItem } from "./responses/ResponsesResponse.js"
import type { TokenEvent, TokenFamily } from "./TokenEvent.js"
import { firstCandidate } from "./native/FirstCandidate.js"

/**
 * A call begins. `call` numbers the calls of one stream (0, 1, …) and names the call in the
 * fragments that follow. `index` is the family's own: the content block (messages), the call's
 * `index` in its choice (chat), the output item (responses), the count of function calls before it
 * (native). `choice` is the chat choice (0 for the other families). `input` is what the call carries
 * before any argument text (a messages block's `input`, a native call's `args`), used when no text
 * follows.
 * @category models
 */
export interface ToolCallBegin {
  readonly _tag: "Begin"
  readonly call: number
  readonly family: TokenFamily
  readonly index: number
  readonly choice: number
  readonly id: string | undefined
  readonly name: string
  readonly input: Readonly<Record<string, unknown>>
}

/** A piece of a call's argument text, to append. @category models */
export interface ToolCallArguments {
  readonly _tag: "Arguments"
  readonly call: number
  readonly text: string
}

/**
 * A call ends. `arguments` is the whole argument text when the family repeats it at the end
 * (responses), and then it is the text to use; `id` and `name` are given when the end names them.
 * @category models
 */
export interface ToolCallEnd {
  readonly _tag: "End"
  readonly call: number
  readonly arguments: string | undefined
  readonly id: string | undefined
  readonly name: string | undefined
}

/** @category models */
export type ToolCallFragment = ToolCallBegin | ToolCallArguments | ToolCallEnd

const isObject = (u: unknown): u is Readonly<Record<string, unknown>> =>
  typeof u === "object" && u !== null && !Array.isArray(u)

const EMPTY: Readonly<Record<string, unknown>> = {}

/** The chat choice's open calls, by their `index`: the call number of each. */
type ChatCalls = Map<number, number>

/** Per-stream state of the fragment reader: the open calls of each family, keyed by the family's own index. */
interface Open {
  next: number
  readonly blocks: Map<number, number>
  readonly chat: Map<number, ChatCalls>
  readonly items: Map<number, number>
  readonly endedItems: Set<number>
  nativeCount: number
}

const begin = (
  open: Open,
  family: TokenFamily,
  index: number,
  fields: { readonly id: string | undefined; readonly name: string; readonly input?: unknown; readonly choice?: number }
): ToolCallBegin => ({
  _tag: "Begin",
  call: open.next++,
  family,
  index,
  choice: fields.choice ?? 0,
  id: fields.id,
  name: fields.name,
  input: isObject(fields.input) ? fields.input : EMPTY
})

const end = (
  call: number,
  fields: {
    readonly arguments?: string | undefined
    readonly id?: string | undefined
    readonly name?: string | undefined
  } = {}
): ToolCallEnd => ({
  _tag: "End",
  call,
  arguments: fields.arguments,
  id: fields.id,
  name: fields.name
})

/** Server-side tool calls (`server_tool_use`, `mcp_tool_use`, …) stream their input like `tool_use`. */
const isToolBlock = (type: string): boolean => type === "tool_use" || type.endsWith("_tool_use")

/** Native: each `functionCall` part of the first candidate is a whole call (its `args` an object). */
const nativeFragments = (open: Open, event: Extract<TokenEvent, { candidates?: unknown }>): Array<ToolCallFragment> => {
  const out: Array<ToolCallFragment> = []
  for (const part of firstCandidate(event)?.content?.parts ?? []) {
    const call = part.functionCall
    if (call === undefined) continue
    const b = begin(open, "native", open.nativeCount++, { id: call.id, name: call.name, input: call.args })
    out.push(b, end(b.call))
  }
  return out
}

type ChatChunkEvent = Extract<TokenEvent, { type: "chunk" }>

/** Chat: fragments joined by choice and `index`; a choice's calls end at its `finish_reason`. */
const chatFragments = (open: Open, event: ChatChunkEvent): Array<ToolCallFragment> => {
  const out: Array<ToolCallFragment> = []
  for (const choice of event.chunk.choices) {
    for (const fragment of choice.delta.tool_calls ?? []) {
      let calls = open.chat.get(choice.index)
      if (calls === undefined) open.chat.set(choice.index, (calls = new Map()))
      let call = calls.get(fragment.index)
      if (call === undefined) {
        const b = begin(open, "chat", fragment.index, {
          id: fragment.id ?? undefined,
          name: fragment.function?.name ?? "",
          choice: choice.index
        })
        calls.set(fragment.index, (call = b.call))
        out.push(b)
      }
      const piece = fragment.function?.arguments ?? ""
      if (piece !== "") out.push({ _tag: "Arguments", call, text: piece })
    }
    // Chat has no per-call end marker: a choice's calls are complete at its finish_reason.
    if (typeof choice.finish_reason === "string") out.push(...endChat(open, choice.index))
  }
  return out
}

const endChat = (open: Open, choice: number): Array<ToolCallFragment> => {
  const calls = open.chat.get(choice)
  open.chat.delete(choice)
  return calls === undefined ? [] : [...calls.values()].map((call) => end(call))
}

type ResponsesItemEvent = Extract<TokenEvent, { type: "response.output_item.added" | "response.output_item.done" }>

/** Responses: a `function_call` item begins at `output_item.added` and ends at its arguments' `.done` or the item's `output_item.done`. */
const responsesItemFragments = (open: Open, event: ResponsesItemEvent): Array<ToolCallFragment> => {
  const call = event.item
  if (!isResponsesItem(call, "function_call")) return []
  const at = event.output_index
  if (event.type === "response.output_item.added") {
    if (open.items.has(at)) return []
    const b = begin(open, "responses", at, { id: call.call_id, name: call.name })
    open.items.set(at, b.call)
    return call.arguments === "" ? [b] : [b, { _tag: "Arguments", call: b.call, text: call.arguments }]
  }
  if (open.endedItems.has(at)) return []
  const fields = { arguments: call.arguments, id: call.call_id, name: call.name }
  const known = open.items.get(at)
  open.items.delete(at)
  open.endedItems.add(at)
  if (known !== undefined) return [end(known, fields)]
  const b = begin(open, "responses", at, { id: call.call_id, name: call.name })
  return [b, end(b.call, fields)]
}

/** Responses argument events; a delta before its item (not seen upstream) begins a call without a name. */
const responsesArgumentFragments = (
  open: Open,
  at: number,
  text: string,
  done: { readonly arguments: string; readonly name: string | undefined } | undefined
): Array<ToolCallFragment> => {
  if (open.endedItems.has(at)) return []
  const out: Array<ToolCallFragment> = []
  let call = open.items.get(at)
  if (call === undefined) {
    const b = begin(open, "responses", at, { id: undefined, name: "" })
    open.items.set(at, (call = b.call))
    out.push(b)
  }
  if (done === undefined) {
    if (text !== "") out.push({ _tag: "Arguments", call, text })
    return out
  }
  open.items.delete(at)
  open.endedItems.add(at)
  out.push(end(call, done))
  return out
}

/**
 * A new reader of one stream's tool-call fragments: each event gives the fragments it carries, in
 * order. Messages: a `tool_use` (or `*_tool_use`) block begins at `content_block_start`, grows by
 * its `input_json_delta`s and ends at `content_block_stop`. Chat: every choice's `tool_calls`
 * fragments, joined by `index`, end at the choice's `finish_reason` (or `[DONE]`). Responses: a
 * `function_call` item begins at `response.output_item.added`, grows by
 * `response.function_call_arguments.delta` and ends at `.done` (or at `response.output_item.done`).
 * Native: each `functionCall` part of the first candidate begins and ends at once.
 * @category constructors
 */
export const makeToolCallFragmentReader = (): ((event: TokenEvent) => ReadonlyArray<ToolCallFragment>) => {
  const open: Open = {
    next: 0,
    blocks: new Map(),
    chat: new Map(),
    items: new Map(),
    endedItems: new Set(),
    nativeCount: 0
  }
  return (event) => {
    if (!("type" in event)) return nativeFragments(open, event)
    switch (event.type) {
      case "content_block_start": {
        const block = event.content_block as { readonly type: string; readonly id?: unknown; readonly name?: unknown }
        if (!isToolBlock(block.type)) return []
        const b = begin(open, "messages", event.index, {
          id: typeof block.id === "string" ? block.id : undefined,
          name: typeof block.name === "string" ? block.name : "",
          input: (block as { readonly input?: unknown }).input
        })
        open.blocks.set(event.index, b.call)
        return [b]
      }
      case "content_block_delta": {
        const call = open.blocks.get(event.index)
        // The opaque-delta member keeps `type` a plain string, so the field is checked, not assumed.
        const text = event.delta.type === "input_json_delta" ? event.delta["partial_json"] : undefined
        return call !== undefined && typeof text === "string" && text !== "" ? [{ _tag: "Arguments", call, text }] : []
      }
      case "content_block_stop": {
        const call = open.blocks.get(event.index)
        open.blocks.delete(event.index)
        return call === undefined ? [] : [end(call)]
      }
      case "chunk":
        return chatFragments(open, event)
      case "done":
        return [...open.chat.keys()].flatMap((choice) => endChat(open, choice))
      case "response.output_item.added":
      case "response.output_item.done":
        return responsesItemFragments(open, event)
      case "response.function_call_arguments.delta":
        return responsesArgumentFragments(open, event.output_index, event.delta, undefined)
      case "response.function_call_arguments.done":
        return responsesArgumentFragments(open, event.output_index, "", {
          arguments: event.arguments,
          name: event.name
        })
      default:
        return []
    }
  }
}

/** The call as its end names it: the end's `id` and `name`, where it gives them, replace the beginning's. @category constructors */
export const endedCall = (begun: ToolCallBegin, end: ToolCallEnd): ToolCallBegin =>
  end.id === undefined && end.name === undefined
    ? begun
    : { ...begun, id: end.id ?? begun.id, name: end.name ?? begun.name }

/** The error family of a token family (chat and responses share the OpenAI-style envelope). */
const errorFamily = (family: TokenFamily): Family => (family === "chat" || family === "responses" ? "openai" : family)

/** A finished call's argument text and its input. @category models */
export interface ToolCallInput {
  readonly arguments: string
  readonly input: Readonly<Record<string, unknown>>
}

/** How errors name a call: `tool call get_weather (chat)`, or by its index when it has no name yet. */
const callName = (begun: ToolCallBegin): string =>
  `tool call ${begun.name === "" ? `#${begun.index}` : begun.name} (${begun.family})`

const describeValue = (u: unknown): string =>
  u === null ? "null" : Array.isArray(u) ? "an array" : typeof u === "object" ? "an object" : `a ${typeof u}`

/**
 * The one rule for a finished call's arguments: no text means the input the call began with (its
 * text then `JSON.stringify` of it); else the text, read to its end by `reader` (which has read all
 * of it), must be a JSON object (unsafe keys dropped, see `makePartialJson`). Anything else means
 * fragments were lost or misordered: `IncompleteStream` (`out-of-order`) naming the call.
 * @category constructors
 */
export const concludeToolCall = (
  begun: ToolCallBegin,
  text: string,
  reader: PartialJson
): Result.Result<ToolCallInput, IncompleteStream> => {
  if (text === "") return Result.succeed({ arguments: JSON.stringify(begun.input), input: begun.input })
  reader.end()
  const value = reader.snapshot()
  if (reader.error === undefined && isObject(value)) return Result.succeed({ arguments: text, input: value })
  const why =
    reader.error === undefined
      ? `are ${describeValue(value)}, not a JSON object`
      : `are not a JSON object: ${reader.error.message}`
  return Result.fail(
    new IncompleteStream({
      family: errorFamily(begun.family),
      reason: "out-of-order",
      message: `the arguments of ${callName(begun)} ${why}`,
      partial: { id: begun.id, name: begun.name, arguments: text, input: reader.snapshot() }
    })
  )
}

/** `concludeToolCall` over a whole text, read by a new reader. @category constructors */
export const toolCallInput = (
  begun: ToolCallBegin,
  text: string,
  limits?: PartialJsonLimits
): Result.Result<ToolCallInput, IncompleteStream> => {
  const reader = makePartialJson(limits)
  reader.push(text)
  return concludeToolCall(begun, text, reader)
}

/**
 * One tool call's arguments as they have grown, after an event that changed them. `index` is the
 * family's own (see `ToolCallBegin`); `id` is present when the family sent one; `argumentsText` is
 * the text so far; `partial` is that text parsed as far as it goes (see `makePartialJson`:
 * `undefined` before anything shows, then an object that only grows). The last delta of a call has
 * `done: true`, and then `argumentsText` and `partial` are the call's final arguments and input, as
 * `toolCalls()` gives them.
 * @category models
 */
export interface ToolCallDelta {
  readonly family: TokenFamily
  readonly index: number
  readonly id?: string
  readonly name: string
  readonly argumentsText: string
  readonly partial: unknown
  readonly done: boolean
}

/** A call whose arguments are growing, with its reader. */
interface Growing {
  begun: ToolCallBegin
  text: string
  reader: PartialJson
  final: ToolCallInput | undefined
  /** The number of the event that last touched it, so that one event gives one delta per call. */
  touched: number
}

const NO_DELTAS: Result.Result<ReadonlyArray<ToolCallDelta>, IncompleteStream> = Result.succeed([])

const deltaOf = (g: Growing): ToolCallDelta => {
  const { begun, final } = g
  return {
    family: begun.family,
    index: begun.index,
    ...(begun.id === undefined ? {} : { id: begun.id }),
    name: begun.name,
    argumentsText: final === undefined ? g.text : final.arguments,
    partial: final === undefined ? g.reader.snapshot() : final.input,
    done: final !== undefined
  }
}

/** Ends a call: the end's own text (when it differs) replaces what was streamed; then `concludeToolCall`. */
const endCall = (g: Growing, f: ToolCallEnd, limits: PartialJsonLimits | undefined): IncompleteStream | undefined => {
  const begun = endedCall(g.begun, f)
  if (f.arguments !== undefined && f.arguments !== g.text) {
    g.text = f.arguments
    g.reader = makePartialJson(limits)
    g.reader.push(f.arguments)
  }
  const concluded = concludeToolCall(begun, g.text, g.reader)
  if (Result.isFailure(concluded)) return concluded.failure
  g.begun = begun
  g.final = concluded.success
  return undefined
}

/**
 * A new reader of one stream's tool-call deltas: each event gives one `ToolCallDelta` per call it
 * began, grew or ended (a native call, whole at once, gives one delta with `done: true`). Chat: the
 * first choice only. Fails with `IncompleteStream` (`out-of-order`) where `toolCalls()` does (a
 * finished call whose arguments are not a JSON object), or as soon as a call's argument text passes
 * `limits.maxLength`; text that cannot be JSON only stops `partial` from growing until the call ends.
 * @category constructors
 */
export const makeToolCallDeltaReader = (
  limits?: PartialJsonLimits
): ((event: TokenEvent) => Result.Result<ReadonlyArray<ToolCallDelta>, IncompleteStream>) => {
  const read = makeToolCallFragmentReader()
  const calls = new Map<number, Growing>()
  const maxLength = limits?.maxLength ?? defaultMaxPartialJsonLength
  let eventNo = 0
  return (event) => {
    const fragments = read(event)
    if (fragments.length === 0) return NO_DELTAS
    eventNo++
    const touched: Array<Growing> = []
    const touch = (g: Growing): void => {
      if (g.touched !== eventNo) touched.push(g)
      g.touched = eventNo
    }
    for (const f of fragments) {
      if (f._tag === "Begin") {
        if (f.choice !== 0) continue
        const g: Growing = { begun: f, text: "", reader: makePartialJson(limits), final: undefined, touched: 0 }
        calls.set(f.call, g)
        touch(g)
        continue
      }
      const g = calls.get(f.call)
      if (g === undefined) continue
      if (f._tag === "Arguments") {
        g.text += f.text
        if (g.text.length > maxLength) return Result.fail(tooLong(g, maxLength))
        g.reader.push(f.text)
      } else {
        calls.delete(f.call)
        const failure = endCall(g, f, limits)
        if (failure !== undefined) return Result.fail(failure)
      }
      touch(g)
    }
    return Result.succeed(touched.map(deltaOf))
  }
}

const tooLong = (g: Growing, maxLength: number): IncompleteStream =>
  new IncompleteStream({
    family: errorFamily(g.begun.family),
    reason: "out-of-order",
    message: `the arguments of ${callName(g.begun)} are longer than ${maxLength} characters (the size bound)`,
    partial: { id: g.begun.id, name: g.begun.name, input: g.reader.snapshot() }
  })
