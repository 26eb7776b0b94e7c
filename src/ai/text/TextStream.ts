/**
 * A family's token stream read the frameworks' way. Text and reasoning come in segments (start,
 * deltas, end), each tool call's arguments as they grow (start, deltas, end, then the whole call), and
 * the end is read from the stream's final answer exactly as a whole answer is read (`answerEnd`). Pure
 * and per stream; built on the core's getters (`tokenText`, `tokenThinking`) and tool-call fragments,
 * with native parts read one by one for their thought signatures.
 */
import * as Result from "effect/Result"
import type { IncompleteStream } from "../../core/errors/GatewayError.js"
import { messagesMechanism } from "../../core/structured/Mechanisms.js"
import type { MessagesEvent } from "../../core/text/messages/MessagesEvents.js"
import { type TokenEvent, tokenOnlyText, tokenText, tokenThinking } from "../../core/text/TokenEvent.js"
import {
  endedCall,
  makeToolCallFragmentReader,
  type ToolCallBegin,
  toolCallInput
} from "../../core/text/ToolCallFragments.js"
import { type AnswerEnd, answerEnd, type FamilyResponse } from "./TextAnswer.js"
import { answerText, type TextOutput } from "./TextOutput.js"
import type { TextFamily } from "./TextRequest.js"
import { firstCandidate } from "../../core/text/native/FirstCandidate.js"
import type { NativeChunk, NativePart } from "../../core/text/native/NativeResponse.js"

/** One part of a text stream, in the order the frameworks expect. @category models */
export type TextStreamPart =
  | { readonly type: "text-start"; readonly id: string }
  | { readonly type: "text-delta"; readonly id: string; readonly delta: string }
  | { readonly type: "text-end"; readonly id: string; readonly thoughtSignature?: string | undefined }
  | { readonly type: "reasoning-start"; readonly id: string }
  | { readonly type: "reasoning-delta"; readonly id: string; readonly delta: string }
  | {
      readonly type: "reasoning-end"
      readonly id: string
      readonly signature?: string | undefined
      readonly redactedData?: string | undefined
      readonly thoughtSignature?: string | undefined
    }
  | { readonly type: "tool-input-start"; readonly id: string; readonly name: string }
  | { readonly type: "tool-input-delta"; readonly id: string; readonly delta: string }
  | { readonly type: "tool-input-end"; readonly id: string }
  | {
      readonly type: "tool-call"
      readonly id: string
      readonly name: string
      readonly arguments: string
      readonly thoughtSignature?: string | undefined
    }
  | { readonly type: "finish"; readonly end: AnswerEnd }

/**
 * A reader of one stream: `read` each event in order, then `end` with the stream's final answer. Both
 * push their parts onto the `out` given (one array for many events: nothing is allocated per event but
 * its parts); `read` gives the failure of a tool call whose arguments are not a JSON object.
 * @category models
 */
export interface TextStreamReader {
  readonly read: (event: TokenEvent, out: Array<TextStreamPart>) => IncompleteStream | undefined
  readonly end: (final: FamilyResponse, out: Array<TextStreamPart>) => void
  /**
   * Pushes the ends of what is under way, for a stream that failed: the text or reasoning segment,
   * then each tool input begun and not ended (without its call: its arguments are not whole).
   */
  readonly close: (out: Array<TextStreamPart>) => void
}

interface OpenCall {
  readonly begun: ToolCallBegin
  readonly id: string
  text: string
  readonly thoughtSignature: string | undefined
  /** The structured output's own tool (messages-style): its input is the answer's text, not a call. */
  readonly output: boolean
}

// The thought signatures of a native chunk's function-call parts, in the order the fragments name them.
const nativeSignatures = (event: TokenEvent): Array<string | undefined> =>
  "type" in event
    ? []
    : (firstCandidate(event)?.content?.parts ?? []).flatMap((p) =>
        p.functionCall === undefined ? [] : [p.thoughtSignature]
      )

/** The text and reasoning segments of one stream, as `makeSegments` keeps them. */
interface Segments {
  /** Adds visible text: to the segment under way (a new one after reasoning), or kept for the end. */
  readonly addText: (out: Array<TextStreamPart>, delta: string) => void
  readonly addReasoning: (out: Array<TextStreamPart>, delta: string) => void
  /** Adds a native text or thought part: its text, and its signature to its segment. */
  readonly addNative: (out: Array<TextStreamPart>, part: NativePart) => void
  /** Adds a piece of a messages-style thinking block's signature to the reasoning under way. */
  readonly sign: (piece: string) => void
  readonly closeText: (out: Array<TextStreamPart>) => void
  readonly closeReasoning: (out: Array<TextStreamPart>) => void
  /** A new segment id of `kind`. */
  readonly next: (kind: "text" | "reasoning") => string
  /** Closes both segments, then gives the text kept for the end (`rewrite`), rewritten, in one segment. */
  readonly end: (out: Array<TextStreamPart>) => void
}

const signed = (signature: string | undefined) => (signature === undefined ? {} : { thoughtSignature: signature })

/**
 * The segments of one stream: at most one under way, text or reasoning (opening one closes the other),
 * each ended with its signatures. With a `rewrite` output the text is kept and given whole at the end.
 */
const makeSegments = (rewrite: TextOutput | undefined): Segments => {
  let count = 0
  let text: string | undefined
  let reasoning: string | undefined
  // A messages-style thinking block's signature, and the native signatures of each kind of segment.
  let signature: string | undefined
  let textThought: string | undefined
  let reasoningThought: string | undefined
  let json = ""
  let jsonThought: string | undefined

  const next = (kind: "text" | "reasoning") => `${kind}-${count++}`
  const closeText = (out: Array<TextStreamPart>) => {
    if (text !== undefined) out.push({ type: "text-end", id: text, ...signed(textThought) })
    text = undefined
    textThought = undefined
  }
  const closeReasoning = (out: Array<TextStreamPart>) => {
    if (reasoning !== undefined)
      out.push({ type: "reasoning-end", id: reasoning, signature, ...signed(reasoningThought) })
    reasoning = undefined
    signature = undefined
    reasoningThought = undefined
  }
  const openText = (out: Array<TextStreamPart>) => {
    closeReasoning(out)
    out.push({ type: "text-start", id: (text = next("text")) })
  }
  const openReasoning = (out: Array<TextStreamPart>) => {
    closeText(out)
    out.push({ type: "reasoning-start", id: (reasoning = next("reasoning")) })
  }
  const addText = (out: Array<TextStreamPart>, delta: string) => {
    // A text segment under way (no reasoning one then: opening either closes the other, and none opens
    // with `rewrite`) takes the delta as it is: this is the way of nearly every event.
    if (text === undefined) {
      if (rewrite !== undefined) {
        json += delta
        return
      }
      openText(out)
    }
    out.push({ type: "text-delta", id: text!, delta })
  }
  const addReasoning = (out: Array<TextStreamPart>, delta: string) => {
    if (reasoning === undefined) openReasoning(out)
    out.push({ type: "reasoning-delta", id: reasoning!, delta })
  }
  // The core's accumulator joins a native part to the one before it when both are of one kind and at
  // most one is signed: a second signature opens a new segment, and a signed empty part after the
  // other kind opens one of its own, so that each segment is one part of the whole answer.
  const addNative = (out: Array<TextStreamPart>, part: NativePart) => {
    const piece = part.text ?? ""
    const s = part.thoughtSignature
    if (part.thought === true) {
      if (s !== undefined && reasoningThought !== undefined) closeReasoning(out)
      if (piece !== "") addReasoning(out, piece)
      else if (s !== undefined && reasoning === undefined) openReasoning(out)
      if (s !== undefined) reasoningThought = s
    } else if (rewrite !== undefined) {
      json += piece
      if (s !== undefined) jsonThought = s
    } else {
      if (s !== undefined && textThought !== undefined) closeText(out)
      if (piece !== "") addText(out, piece)
      else if (s !== undefined && text === undefined) openText(out)
      if (s !== undefined) textThought = s
    }
  }
  const end = (out: Array<TextStreamPart>) => {
    closeReasoning(out)
    closeText(out)
    if (rewrite === undefined || json === "") return
    const id = next("text")
    out.push({ type: "text-start", id }, { type: "text-delta", id, delta: answerText(rewrite, json) })
    out.push({ type: "text-end", id, ...signed(jsonThought) })
  }
  const sign = (piece: string) => {
    signature = (signature ?? "") + piece
  }
  return { addText, addReasoning, addNative, sign, closeText, closeReasoning, next, end }
}

/** Whether a native chunk's one text part carries a signature (`tokenOnlyText` reads no signature). */
const signedNativeText = (event: TokenEvent): boolean =>
  !("type" in event) && firstCandidate(event)?.content?.parts?.[0]?.thoughtSignature !== undefined

/**
 * A native chunk's thought parts, then its text parts (the order `tokenThinking` and `tokenText` give),
 * each with its signature.
 */
const readNativeText = (segments: Segments, event: NativeChunk, out: Array<TextStreamPart>): void => {
  const parts = firstCandidate(event)?.content?.parts ?? []
  for (const part of parts) if (part.text !== undefined && part.thought === true) segments.addNative(out, part)
  for (const part of parts) if (part.text !== undefined && part.thought !== true) segments.addNative(out, part)
}

/**
 * A new reader of one stream of `family`. With a structured `output`, the answer's JSON text is the
 * text (messages-style: its output tool's input, through the family's mechanism); when the output is
 * not streamable (see `TextOutput`) that text is given once, whole, at the end. `callId` names a call
 * sent without an id (by its position among the stream's calls).
 * @category constructors
 */
export const makeTextStreamReader = (
  family: TextFamily,
  output: TextOutput | undefined,
  callId: (index: number) => string
): TextStreamReader => {
  const fragments = makeToolCallFragmentReader()
  const target = output?.target
  // Its text given whole at the end when the output is not streamable.
  const segments = makeSegments(output !== undefined && !output.streamable ? output : undefined)
  const outputPieces = family === "messages" && target !== undefined ? messagesMechanism.pieces(target) : undefined
  const calls = new Map<number, OpenCall>()
  const { addText, addReasoning, closeText, closeReasoning } = segments
  // The messages-style thinking block under way: its stop ends the reasoning segment (and its signature).
  let thinkingBlock: number | undefined

  const readCalls = (event: TokenEvent, out: Array<TextStreamPart>): IncompleteStream | undefined => {
    const signatures = nativeSignatures(event)
    for (const f of fragments(event)) {
      if (f._tag === "Begin") {
        const own = outputPieces !== undefined && f.name === target?.name
        if (!own) {
          closeText(out)
          closeReasoning(out)
        }
        const call: OpenCall = {
          begun: f,
          id: f.id ?? callId(f.index),
          text: "",
          thoughtSignature: f.family === "native" ? signatures.shift() : undefined,
          output: own
        }
        calls.set(f.call, call)
        if (!own) out.push({ type: "tool-input-start", id: call.id, name: f.name })
        continue
      }
      const call = calls.get(f.call)
      if (call === undefined) continue
      if (f._tag === "Arguments") {
        call.text += f.text
        if (!call.output) out.push({ type: "tool-input-delta", id: call.id, delta: f.text })
        continue
      }
      const begun = endedCall(call.begun, f)
      const whole = f.arguments ?? call.text
      const input = toolCallInput(begun, whole)
      // A call whose arguments fail stays under way: the failed stream's `close` ends its input.
      if (Result.isFailure(input)) return input.failure
      calls.delete(f.call)
      if (call.output) continue
      // A call that came whole (native) or whose text came only at its end still shows its arguments.
      if (call.text === "") out.push({ type: "tool-input-delta", id: call.id, delta: input.success.arguments })
      out.push({ type: "tool-input-end", id: call.id })
      out.push({
        type: "tool-call",
        id: call.id,
        name: begun.name,
        arguments: input.success.arguments,
        ...(call.thoughtSignature === undefined ? {} : { thoughtSignature: call.thoughtSignature })
      })
    }
    return undefined
  }

  // Any event, read in full: its reasoning, signatures, thinking blocks, text and tool-call fragments.
  const readAny = (event: TokenEvent, out: Array<TextStreamPart>): IncompleteStream | undefined => {
    if (!("type" in event)) {
      readNativeText(segments, event, out)
      return readCalls(event, out)
    }
    for (const piece of tokenThinking(event)) addReasoning(out, piece)
    if (event.type === "content_block_delta" && event.delta.type === "signature_delta") {
      const s = event.delta["signature"]
      if (typeof s === "string") segments.sign(s)
    }
    if ("type" in event && event.type === "content_block_start" && event.content_block.type === "thinking")
      thinkingBlock = event.index
    if ("type" in event && event.type === "content_block_stop" && event.index === thinkingBlock) {
      thinkingBlock = undefined
      closeReasoning(out)
    }
    if ("type" in event && event.type === "content_block_start" && event.content_block.type === "redacted_thinking") {
      closeText(out)
      closeReasoning(out)
      const id = segments.next("reasoning")
      const data = (event.content_block as { readonly data?: unknown }).data
      out.push({ type: "reasoning-start", id })
      out.push({ type: "reasoning-end", id, redactedData: typeof data === "string" ? data : "" })
    }
    const pieces = outputPieces === undefined ? tokenText(event) : outputPieces(event as MessagesEvent)
    for (const piece of pieces) addText(out, piece)
    return readCalls(event, out)
  }

  // The events that only carry text (nearly all of a stream) go straight to `addText`; `readAny` would
  // find the same text and nothing else in them. Not with a messages-style output, whose text is read
  // by its mechanism.
  const read =
    outputPieces !== undefined
      ? readAny
      : (event: TokenEvent, out: Array<TextStreamPart>): IncompleteStream | undefined => {
          const piece = tokenOnlyText(event)
          if (piece === undefined || (family === "native" && signedNativeText(event))) return readAny(event, out)
          if (piece !== "") addText(out, piece)
          return undefined
        }

  const end = (final: FamilyResponse, out: Array<TextStreamPart>): void => {
    segments.end(out)
    out.push({ type: "finish", end: answerEnd(family, final, output) })
  }

  const close = (out: Array<TextStreamPart>): void => {
    closeText(out)
    closeReasoning(out)
    for (const call of calls.values()) if (!call.output) out.push({ type: "tool-input-end", id: call.id })
    calls.clear()
  }

  return { read, end, close }
}
