/**
 * Reading a structured answer: the decoded value of a family's response (or why there is none), and
 * the growing value of its stream, read from the answer's JSON text pieces. Pure; `parse` and
 * `parseStream` (adapters/structured/Parse.ts) read every answer through here, so a stream's final
 * value is the one `parse` gives for the same answer.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import { makePartialJson } from "../wire/PartialJson.js"
import { parseJsonText } from "../wire/WireJson.js"
import { isRecord, sanitize } from "../validation/Rules.js"
import type { PreparedSchema } from "./AnySchema.js"
import type { Mechanism, SchemaTarget } from "./Mechanisms.js"
import { OutputMismatch, OutputRefused } from "./StructuredErrors.js"

/** A decoded structured answer and its JSON text. @category models */
export interface AnswerValue<A> {
  readonly value: A
  readonly text: string
}

const firstLine = (text: string): string => text.split("\n", 1)[0] ?? text

/**
 * The decoded value of `response`: its JSON text parsed (depth-bounded, `__proto__`-style keys
 * dropped) and decoded with the schema. A refusal fails with `OutputRefused`; no answer, text that is
 * not JSON, or JSON that does not match, with `OutputMismatch` carrying the raw text.
 * @category decoding
 */
export const answerValue = <A, Body, Response, Event>(
  mechanism: Mechanism<Body, Response, Event>,
  prepared: PreparedSchema<A>,
  target: SchemaTarget,
  response: Response
): Effect.Effect<AnswerValue<A>, OutputMismatch | OutputRefused> => {
  const family = mechanism.family
  const read = mechanism.read(response, target)
  if (read._tag === "Refused")
    return Effect.fail(
      new OutputRefused({
        family,
        message: `The model refused to give the structured value: ${read.refusal.slice(0, 500)}`,
        refusal: read.refusal
      })
    )
  if (read._tag === "Missing")
    return Effect.fail(
      new OutputMismatch({
        family,
        message: `The model gave no structured value: ${read.reason}`,
        raw: read.text,
        issue: read.reason
      })
    )
  const text = read.text
  // An answer the output limit ended is most likely why it does not read: say so.
  const cut = read.cut === undefined ? "" : ` (cut short by the output limit, ${read.cut}; allow more output tokens)`
  let parsed: unknown
  if (read.parsed !== undefined) parsed = read.parsed.value
  else {
    const json = parseJsonText(text, "openai", "the answer")
    if (Result.isFailure(json))
      return Effect.fail(
        new OutputMismatch({
          family,
          message: `The model's answer is not JSON${cut}: ${json.failure.message}`,
          raw: text,
          issue: json.failure.message
        })
      )
    parsed = sanitize(json.success)
  }
  return prepared.decodeAnswer(parsed).pipe(
    Effect.mapError(
      (mismatch) =>
        new OutputMismatch({
          family,
          message: `The model's answer does not match the schema${cut}: ${firstLine(mismatch.issue)}`,
          raw: text,
          issue: mismatch.issue
        })
    ),
    Effect.map((value) => ({ value, text }))
  )
}

/** What a `PartialReader` gives for an event that changed nothing visible. @category constants */
export const Unchanged: unique symbol = Symbol.for("umg/core/structured/Unchanged")

/** Reads a stream's events: each gives the growing value when it changed, else `Unchanged`. @category models */
export type PartialReader<Event> = (event: Event) => unknown

/**
 * A reader of one stream's growing value: the answer's JSON text pieces (the mechanism's `pieces`)
 * read incrementally; the value is the schema's view (optional `null`s dropped, a wrapped root
 * unwrapped) and is not decoded: it is a partial value. Once the text cannot be JSON it stops growing
 * (the final answer then fails with `OutputMismatch`).
 * @category constructors
 */
export const partialReader = <A, Body, Response, Event>(
  mechanism: Mechanism<Body, Response, Event>,
  prepared: PreparedSchema<A>,
  target: SchemaTarget
): PartialReader<Event> => {
  const pieces = mechanism.pieces(target)
  const json = makePartialJson()
  let last: unknown = undefined
  return (event) => {
    const more = pieces(event)
    if (more.length === 0) return Unchanged
    for (const piece of more) json.push(piece)
    const snapshot = json.snapshot()
    if (snapshot === undefined || snapshot === last) return Unchanged
    last = snapshot
    if (prepared.wrapped && !(isRecord(snapshot) && Object.hasOwn(snapshot, "value"))) return Unchanged
    return prepared.relax(snapshot)
  }
}
