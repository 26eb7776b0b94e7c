/**
 * The responses stream accumulator: a pure fold of stream events into a `Response`, ending at
 * `response.completed` or `response.incomplete`. It gathers output items, their text, function call
 * arguments and reasoning summaries; `sequence_number` going backwards, events out of place,
 * `response.failed`/`error` and streams cut before the final event are an `IncompleteStream`.
 */
import * as Result from "effect/Result"
import { type Accumulator, foldAll, incomplete, replaceAt, type Step } from "../Accumulator.js"
import {
  isResponsesItem,
  type ResponsesContentPart,
  type ResponsesEvent,
  type ResponsesOutputItem,
  type ResponsesResponse
} from "./ResponsesResponse.js"

/**
 * The accumulated state. `response` is `undefined` until `response.created`; `phase` is `incomplete`
 * when the stream ended with `response.incomplete` (final, but the answer was cut short: read
 * `response.incomplete_details`). `sequenceNumber` is the last one seen.
 * @category models
 */
export interface ResponsesSnapshot {
  readonly phase: "awaiting-created" | "streaming" | "completed" | "incomplete"
  readonly response: ResponsesResponse | undefined
  readonly sequenceNumber: number | undefined
}

/** The snapshot before any event. @category constructors */
export const initialResponsesSnapshot: ResponsesSnapshot = {
  phase: "awaiting-created",
  response: undefined,
  sequenceNumber: undefined
}

type ItemEdit = (item: ResponsesOutputItem) => ResponsesOutputItem | string
type PartEdit = (part: ResponsesContentPart) => ResponsesContentPart | string

/** Edits the item at `index` (which must exist and, when it has one, carry `itemId`). */
const editItem = (
  response: ResponsesResponse,
  index: number,
  itemId: string | undefined,
  edit: ItemEdit
): ResponsesResponse | string => {
  const item = response.output[index]
  if (item === undefined) return `no output item ${index}`
  if (itemId !== undefined && typeof item["id"] === "string" && item["id"] !== itemId) {
    return `output item ${index} is ${item["id"]}, not ${itemId}`
  }
  const edited = edit(item)
  return typeof edited === "string" ? edited : { ...response, output: replaceAt(response.output, index, edited) }
}

/** Edits content part `contentIndex` of a message item. */
const editPart =
  (contentIndex: number, edit: PartEdit): ItemEdit =>
  (item) => {
    if (!isResponsesItem(item, "message")) return `output item is a ${item.type}, not a message`
    const part = item.content[contentIndex]
    if (part === undefined) return `no content part ${contentIndex}`
    const edited = edit(part)
    return typeof edited === "string" ? edited : { ...item, content: replaceAt(item.content, contentIndex, edited) }
  }

/** Appends a content part to a message item; it must come at the next index. */
const appendPart =
  (contentIndex: number, part: ResponsesContentPart): ItemEdit =>
  (item) => {
    if (!isResponsesItem(item, "message")) return `output item is a ${item.type}, not a message`
    return contentIndex === item.content.length
      ? { ...item, content: [...item.content, part] }
      : `content part ${contentIndex} added, expected ${item.content.length}`
  }

/** Edits the string field of a part of the given type (appending a delta, or setting the full text). */
const partText =
  (type: "output_text" | "refusal", field: "text" | "refusal", edit: (text: string) => string): PartEdit =>
  (part) => {
    if (part.type !== type) return `content part is a ${part.type}, not ${type}`
    const current = (part as Readonly<Record<string, unknown>>)[field]
    return { ...part, [field]: edit(typeof current === "string" ? current : "") } as ResponsesContentPart
  }

/** Edits reasoning summary `summaryIndex` (created empty when it is the next one). */
const editSummary =
  (summaryIndex: number, edit: (text: string) => string, type?: string): ItemEdit =>
  (item) => {
    if (!isResponsesItem(item, "reasoning")) return `output item is a ${item.type}, not reasoning`
    const isNext = summaryIndex === item.summary.length
    const part = item.summary[summaryIndex] ?? (isNext ? { type: type ?? "summary_text", text: "" } : undefined)
    if (part === undefined) return `no summary part ${summaryIndex}`
    const edited = { ...part, ...(type === undefined ? {} : { type }), text: edit(part.text) }
    return { ...item, summary: replaceAt(item.summary, summaryIndex, edited) }
  }

/** Edits the arguments of a function call item. */
const editArguments =
  (edit: (args: string) => string, name?: string): ItemEdit =>
  (item) =>
    isResponsesItem(item, "function_call")
      ? { ...item, arguments: edit(item.arguments), ...(name === undefined ? {} : { name }) }
      : `output item is a ${item.type}, not a function_call`

/** The final response: the event's, keeping the streamed output when the event carries none. */
const finalResponse = (streamed: ResponsesResponse, final: ResponsesResponse): ResponsesResponse =>
  final.output.length === 0 && streamed.output.length > 0 ? { ...final, output: streamed.output } : final

/**
 * One fold step: a fresh snapshot, or an `IncompleteStream` whose `partial` is the snapshot before
 * `event`. Unknown events are ignored (their `sequence_number` still counts); `[DONE]` is tolerated
 * after the final event and `ended-early` before it. Never throws.
 * @category folding
 */
export const stepResponses = (snapshot: ResponsesSnapshot, event: ResponsesEvent): Step<ResponsesSnapshot> => {
  const outOfOrder = (message: string) => incomplete("openai", "out-of-order", message, snapshot)
  if (event.type === "done") {
    return snapshot.phase === "completed" || snapshot.phase === "incomplete"
      ? Result.succeed(snapshot)
      : incomplete("openai", "ended-early", "[DONE] before response.completed", snapshot)
  }
  const seq = event.sequence_number
  if (seq !== undefined && snapshot.sequenceNumber !== undefined && seq <= snapshot.sequenceNumber) {
    return outOfOrder(`sequence_number ${seq} after ${snapshot.sequenceNumber}`)
  }
  const sequenceNumber = seq ?? snapshot.sequenceNumber
  const { phase, response } = snapshot
  if (event.type === "unknown") return Result.succeed({ ...snapshot, sequenceNumber })
  if (event.type === "error") {
    const type = event.code ?? "error"
    return incomplete("openai", "error-event", `stream error ${type}: ${event.message}`, snapshot, type)
  }
  if (phase === "completed" || phase === "incomplete") return outOfOrder(`${event.type} after the final event`)
  const next = (
    r: ResponsesResponse | string,
    nextPhase: ResponsesSnapshot["phase"] = "streaming"
  ): Step<ResponsesSnapshot> =>
    typeof r === "string"
      ? outOfOrder(`${event.type}: ${r}`)
      : Result.succeed({ phase: nextPhase, response: r, sequenceNumber })
  switch (event.type) {
    case "response.created":
      return response === undefined ? next(event.response) : outOfOrder("response.created twice")
    case "response.queued":
    case "response.in_progress":
      // Lifecycle updates carry the whole response; keep what was streamed into it so far.
      return next(response === undefined ? event.response : { ...event.response, output: response.output })
    case "response.failed": {
      const error = event.response.error
      return incomplete(
        "openai",
        "error-event",
        `the response failed${error ? `: ${error.code ?? ""} ${error.message}` : ""}`,
        snapshot,
        error?.code ?? "failed"
      )
    }
    default:
      break
  }
  if (response === undefined) return outOfOrder(`${event.type} before response.created`)
  // The item-level events all address `output[output_index]`, checked against their `item_id`.
  const onItem = (ref: { readonly output_index: number; readonly item_id: string }, edit: ItemEdit) =>
    next(editItem(response, ref.output_index, ref.item_id, edit))
  switch (event.type) {
    case "response.completed":
      return next(finalResponse(response, event.response), "completed")
    case "response.incomplete":
      return next(finalResponse(response, event.response), "incomplete")
    case "response.output_item.added":
      return next(
        event.output_index === response.output.length
          ? { ...response, output: [...response.output, event.item] }
          : `output item ${event.output_index} added, expected ${response.output.length}`
      )
    case "response.output_item.done":
      return next(editItem(response, event.output_index, undefined, () => event.item))
    case "response.content_part.added":
      return onItem(event, appendPart(event.content_index, event.part))
    case "response.content_part.done":
      return onItem(
        event,
        editPart(event.content_index, () => event.part)
      )
    case "response.output_text.delta":
      return onItem(
        event,
        editPart(
          event.content_index,
          partText("output_text", "text", (t) => t + event.delta)
        )
      )
    case "response.output_text.done":
      return onItem(
        event,
        editPart(
          event.content_index,
          partText("output_text", "text", () => event.text)
        )
      )
    case "response.refusal.delta":
      return onItem(
        event,
        editPart(
          event.content_index,
          partText("refusal", "refusal", (t) => t + event.delta)
        )
      )
    case "response.refusal.done":
      return onItem(
        event,
        editPart(
          event.content_index,
          partText("refusal", "refusal", () => event.refusal)
        )
      )
    case "response.function_call_arguments.delta":
      return onItem(
        event,
        editArguments((a) => a + event.delta)
      )
    case "response.function_call_arguments.done":
      return onItem(
        event,
        editArguments(() => event.arguments, event.name)
      )
    case "response.reasoning_summary_part.added":
      return onItem(
        event,
        editSummary(event.summary_index, () => event.part.text, event.part.type)
      )
    case "response.reasoning_summary_text.delta":
      return onItem(
        event,
        editSummary(event.summary_index, (t) => t + event.delta)
      )
    case "response.reasoning_summary_text.done":
      return onItem(
        event,
        editSummary(event.summary_index, () => event.text)
      )
  }
}

/**
 * The final response (after `response.completed`, or `response.incomplete` — then its `status` is
 * `incomplete`), or `ended-early` when the stream ended before either.
 * @category folding
 */
export const finishResponses = (snapshot: ResponsesSnapshot): Step<ResponsesResponse> =>
  (snapshot.phase === "completed" || snapshot.phase === "incomplete") && snapshot.response !== undefined
    ? Result.succeed(snapshot.response)
    : incomplete("openai", "ended-early", "the responses stream ended before response.completed", snapshot)

/** The responses accumulator, for `scanStep` and `foldAll`. @category folding */
export const responsesAccumulator: Accumulator<ResponsesEvent, ResponsesSnapshot, ResponsesResponse> = {
  family: "openai",
  initial: initialResponsesSnapshot,
  step: stepResponses,
  finish: finishResponses
}

/** Folds a whole list of events into the final response. @category folding */
export const accumulateResponses = (events: Iterable<ResponsesEvent>): Step<ResponsesResponse> =>
  foldAll(responsesAccumulator, events)
