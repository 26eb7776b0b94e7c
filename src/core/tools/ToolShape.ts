/**
 * What a tool loop needs of a text family, as pure functions. Declare the tools in a body, read the
 * calls out of a response, append the model's turn and the results in the family's shape, and read
 * the answer's text: one `ToolShape` per family (`MessagesTools`, `ChatTools`, `ResponsesTools`,
 * `NativeTools`).
 */
import type * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { redactUrlPasswords } from "../errors/Redact.js"
import type { TokenFamily } from "../text/TokenEvent.js"
import { isRecord } from "../validation/Rules.js"
import { parseJsonText } from "../wire/WireJson.js"
import type { ToolDeclaration } from "./Tool.js"

/**
 * One call the model asked for. `id` is the family's own id, or one made from the step and the
 * call's position when the family sent none (native calls may have no id). `input` is the arguments
 * as the model sent them (parsed JSON); `malformed` says what is wrong when their text is not JSON,
 * and then `input` is `undefined`.
 * @category models
 */
export interface ToolCallRequest {
  readonly id: string
  readonly name: string
  readonly input: unknown
  readonly malformed: string | undefined
}

/**
 * A call's answer as it goes back to the model: `content` is the text sent (the output's JSON, a
 * string output as is, or the error text), `isError` whether the tool failed. `output` is the value
 * the handler gave (native sends an object output as the `functionResponse.response` itself).
 * @category models
 */
export interface ToolAnswer {
  readonly id: string
  readonly name: string
  readonly isError: boolean
  readonly content: string
  readonly output: unknown
}

/**
 * A family's tool shapes. `declare` adds the declarations to the body's own tools (after them),
 * `declaredNames` lists those own tools' names;
 * `calls` reads a response's calls in order (an empty list: the model stopped); `append` gives the
 * next step's body: the model's turn as it came back, then the answers in the order of the calls;
 * `text` is the answer's visible text.
 * @category models
 */
export interface ToolShape<Body, Response> {
  readonly family: TokenFamily
  readonly declare: (body: Body, tools: ReadonlyArray<ToolDeclaration>) => Body
  /** The names of the functions the body declares itself (a loop's tools must not repeat one). */
  readonly declaredNames: (body: Body) => ReadonlyArray<string>
  readonly calls: (response: Response, step: number) => ReadonlyArray<ToolCallRequest>
  readonly append: (
    body: Body,
    response: Response,
    answers: ReadonlyArray<ToolAnswer>
  ) => Effect.Effect<Body, InvalidRequest>
  readonly text: (response: Response) => string
}

/**
 * Arguments sent as JSON text (chat, responses): parsed, an empty text read as `{}` (some models
 * send nothing for a tool without parameters), nesting bounded as any JSON from the wire. Never throws.
 * @category decoding
 */
export const parseArguments = (text: string): Pick<ToolCallRequest, "input" | "malformed"> => {
  if (text.trim() === "") return { input: {}, malformed: undefined }
  const parsed = parseJsonText(text, "openai", "the arguments")
  return Result.isSuccess(parsed)
    ? { input: parsed.success, malformed: undefined }
    : { input: undefined, malformed: parsed.failure.message }
}

/**
 * The text a handler's output goes back as: a string as is, anything else as its JSON (`undefined`
 * as `null`), or why it cannot be (a value JSON cannot hold: a bigint, a cycle, a function).
 * @category encoding
 */
export const outputContent = (output: unknown): Result.Result<string, string> => {
  if (typeof output === "string") return Result.succeed(output)
  try {
    const text = JSON.stringify(output === undefined ? null : output) as string | undefined
    return text === undefined ? Result.fail("the output is not JSON") : Result.succeed(text)
  } catch (e) {
    return Result.fail(`the output is not JSON (${e instanceof Error ? e.name : "a value JSON cannot hold"})`)
  }
}

/**
 * The JSON object a result is in families that answer with an object (native `functionResponse`):
 * an object output as its JSON, any other output as `{ result }`, a failure as `{ error }`.
 * @category encoding
 */
export const answerObject = (answer: ToolAnswer): Readonly<Record<string, unknown>> => {
  if (answer.isError) return { error: answer.content }
  if (typeof answer.output === "string") return { result: answer.output }
  const json: unknown = JSON.parse(answer.content)
  return isRecord(json) ? json : { result: json }
}

/** The longest error text that goes back to the model for one failed call. @category models */
export const maxErrorTextChars = 500

/**
 * Text about a failure that goes back to the model: the URL passwords hidden, cut to
 * `maxErrorTextChars`. Handlers' own messages are the caller's text; what they carry is theirs to keep
 * clean, but a connection string's password never leaves.
 * @category encoding
 */
export const errorText = (text: string): string => {
  const clean = redactUrlPasswords(text)
  return clean.length > maxErrorTextChars ? `${clean.slice(0, maxErrorTextChars)}…` : clean
}

/** An id for a call the family sent without one: stable for the step and the call's position. @category constructors */
export const madeCallId = (step: number, index: number): string => `call_${step}_${index}`

/** The value at `keys` under `value`, through plain objects only; `undefined` when any step is missing. */
export const field = (value: unknown, ...keys: ReadonlyArray<string>): unknown => {
  let at = value
  for (const key of keys) {
    if (typeof at !== "object" || at === null || Array.isArray(at)) return undefined
    at = (at as Record<string, unknown>)[key]
  }
  return at
}

/**
 * The names a body's own `tools` declare, each tool's read by `pick` (a name, or a list of them);
 * what is not a string is skipped (the body's own check refuses it).
 */
export const namesIn = (tools: unknown, pick: (tool: unknown) => unknown): ReadonlyArray<string> => {
  if (!Array.isArray(tools)) return []
  const out: Array<string> = []
  for (const tool of tools) {
    const picked = pick(tool)
    for (const name of Array.isArray(picked) ? picked : [picked]) if (typeof name === "string") out.push(name)
  }
  return out
}
