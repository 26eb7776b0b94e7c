/**
 * What a tool loop shows of itself: each model turn, each call, each result, then how it ended; and
 * the failure of one call as it is reported (and sent back to the model, never thrown).
 */
import * as Data from "effect/Data"
import { describe, isRecord } from "../validation/Rules.js"
import { errorText } from "./ToolShape.js"

/**
 * Why one call failed: `unknown-tool` (no tool of that name), `malformed-arguments` (not JSON),
 * `invalid-arguments` (the tool's schema refused them), `handler-failed` (its typed error),
 * `handler-died` (a defect), `output-not-json` (an output JSON cannot hold). `message` is the text
 * the model was sent; `cause` is the handler's error or defect, or the schema's issue text.
 * @category errors
 */
export class ToolFailure extends Data.TaggedError("ToolFailure")<{
  readonly tool: string
  readonly reason:
    "unknown-tool" | "malformed-arguments" | "invalid-arguments" | "handler-failed" | "handler-died" | "output-not-json"
  readonly message: string
  readonly cause?: unknown
}> {}

/** The model's answer at one step (`output`: the extra call that asked for the typed final value). @category models */
export interface ModelTurnStep<Response> {
  readonly _tag: "ModelTurn"
  readonly step: number
  readonly response: Response
  readonly output: boolean
}

/** A call the model asked for; `input` is its arguments as sent (parsed JSON, before the tool's schema). @category models */
export interface ToolCallStep {
  readonly _tag: "ToolCall"
  readonly step: number
  readonly id: string
  readonly name: string
  readonly input: unknown
}

/**
 * A call's result, as it went back to the model (`content`): the handler's `output`, or the
 * `error` that was sent instead (`isError`).
 * @category models
 */
export type ToolResultStep =
  | {
      readonly _tag: "ToolResult"
      readonly step: number
      readonly id: string
      readonly name: string
      readonly isError: false
      readonly output: unknown
      readonly content: string
    }
  | {
      readonly _tag: "ToolResult"
      readonly step: number
      readonly id: string
      readonly name: string
      readonly isError: true
      readonly error: ToolFailure
      readonly content: string
    }

/**
 * The end: `stop` (the model answered without calls) or `max-steps` (the last allowed step's calls
 * were run and answered, and no more model turns were asked for). `steps` counts the model turns of
 * the loop, the ones `maxSteps` bounds; `text` is the text of the answer that ended it, and `response`
 * that answer; `value` the typed final value when an `output` schema was given and the model stopped.
 * With `output`, messages-style and native models are asked once more for the value: that turn (a
 * `ModelTurn` with `output: true`, numbered `steps + 1`) is not counted, and is not `response`.
 * `usage` sums the tokens of every model turn, that one included.
 * @category models
 */
export interface DoneStep<A, Response> {
  readonly _tag: "Done"
  readonly reason: "stop" | "max-steps"
  readonly steps: number
  readonly text: string
  readonly value: A | undefined
  readonly response: Response
  readonly usage: LoopUsage
}

/**
 * The tokens of a whole tool loop: each count summed over the model turns that reported it
 * (`undefined` when none did), in the family's own terms (messages-style `input_tokens`, chat
 * `prompt_tokens`, native `promptTokenCount`, …).
 * @category models
 */
export interface LoopUsage {
  readonly inputTokens: number | undefined
  readonly outputTokens: number | undefined
}

/** One step of a tool loop. @category models */
export type ToolStep<A, Response> = ModelTurnStep<Response> | ToolCallStep | ToolResultStep | DoneStep<A, Response>

/** The error text for a call of a tool the loop does not have. @category constructors */
export const unknownTool = (name: string, known: string): ToolFailure =>
  new ToolFailure({
    tool: name,
    reason: "unknown-tool",
    message: errorText(`error: there is no tool ${describe(name)}; the tools are: ${known}`)
  })

/** The failure of a call whose arguments are not JSON. @category constructors */
export const malformedArguments = (name: string, malformed: string): ToolFailure =>
  new ToolFailure({
    tool: name,
    reason: "malformed-arguments",
    message: errorText(`error: the tool ${name} was not run: ${malformed}`),
    cause: malformed
  })

/** The failure of a call whose arguments the tool's schema refused (`issue`: the schema's own text). @category constructors */
export const invalidArguments = (name: string, issue: string): ToolFailure =>
  new ToolFailure({
    tool: name,
    reason: "invalid-arguments",
    message: errorText(`error: the tool ${name} was not run: its arguments do not match its parameters: ${issue}`),
    cause: issue
  })

/** How much of a plain object's JSON a failure shows the model. */
const SHOWN_JSON = 300

/**
 * What a failure says of itself: `Tag: message` for an error object, the JSON of a plain object or
 * array (its first `SHOWN_JSON` characters: `{"reason":"no data for Oslo"}`), a short rendering otherwise.
 */
const whatFailed = (error: unknown): string => {
  if (typeof error === "object" && error !== null) {
    const tag = "_tag" in error && typeof error._tag === "string" ? error._tag : undefined
    const message = "message" in error && typeof error.message === "string" ? error.message : undefined
    const name = error instanceof Error ? error.name : undefined
    const label = tag ?? name
    if (message !== undefined && message !== "") return label === undefined ? message : `${label}: ${message}`
    if (label !== undefined) return label
    if (Array.isArray(error) || isRecord(error)) {
      let json: string | undefined
      try {
        json = JSON.stringify(error)
      } catch {
        json = undefined // a cycle or a BigInt: told as what it is
      }
      if (json !== undefined && json !== "{}" && json !== "[]")
        return json.length > SHOWN_JSON ? `${json.slice(0, SHOWN_JSON)}…` : json
    }
  }
  return describe(error)
}

/** The failure of a handler: its typed error (`died`: false) or a defect (`died`: true). @category constructors */
export const handlerFailed = (name: string, error: unknown, died: boolean): ToolFailure =>
  new ToolFailure({
    tool: name,
    reason: died ? "handler-died" : "handler-failed",
    message: errorText(`error: the tool ${name} failed${died ? " unexpectedly" : ""}: ${whatFailed(error)}`),
    cause: error
  })

/** The failure of a handler whose output JSON cannot hold. @category constructors */
export const outputNotJson = (name: string, why: string): ToolFailure =>
  new ToolFailure({
    tool: name,
    reason: "output-not-json",
    message: errorText(`error: the tool ${name} failed: ${why}`)
  })
