/**
 * What the emulator does with tools and structured output, the same for the four text families.
 * Which tools it calls in a turn (the trigger rules below), the arguments it sends, when it answers
 * instead, and the JSON text of a structured answer. Each family reads its own request shape into
 * a `Conversation` and writes the plan in its own answer shape.
 *
 * Triggers:
 * - A forced tool (`tool_choice` naming one; native `ANY` with one allowed name) is called every turn.
 * - `any`/`required`/native `ANY`: a tool is called every turn: the tools the prompt names that have
 *   not been called yet, else the first tool (of the allowed ones).
 * - `auto` (or no choice): the tools whose names appear in the prompt (whole word, any case), in the
 *   order they appear, each once; a prompt naming none gets the first tool, once. When every tool
 *   asked for has been called, the next turn answers with text (or the structured output).
 * - Several named tools are called in one turn (at most `MAX_CALLS_PER_TURN`), unless the prompt
 *   says "one at a time" or the request turns parallel calls off (`disable_parallel_tool_use`,
 *   `parallel_tool_calls: false`): then one per turn, so two tools take three turns.
 * - `[umg:mismatch]` in the prompt: tool arguments and the structured output do not match their schema.
 * The prompt is the last user turn that is not only tool results.
 */
import { sampleSchema, mismatchValue, type SampleOptions } from "./schema/SchemaSample.js"
import { checkSchema, type SchemaProblem } from "./schema/SchemaWalk.js"
import { replyWords } from "./TextGen.js"

type Obj = Record<string, unknown>

/** A tool offered by the request, with its parameters schema and where it sits in the body (for errors). */
export interface OfferedTool {
  readonly name: string
  readonly schema: unknown
  /** The schema's place in the body, as the family names fields (`tools[0].input_schema`). */
  readonly where: string
}

/** The tool choice, read from the family's field. */
export type ToolChoice =
  | { readonly kind: "auto" }
  | { readonly kind: "none" }
  | { readonly kind: "any"; readonly allowed?: ReadonlyArray<string> }
  | { readonly kind: "tool"; readonly name: string }

/** A tool result of the last turn. */
export interface ToolResult {
  readonly text: string
  readonly isError: boolean
}

/** The conversation as the plan needs it. */
export interface Conversation {
  /** The prompt's text: the last user turn that is not only tool results. */
  readonly prompt: string
  /** Names of the tools called since the prompt, in order. */
  readonly called: ReadonlyArray<string>
  /** The tool results the request ends with (empty when it ends with a prompt). */
  readonly results: ReadonlyArray<ToolResult>
}

/** One tool call to make. */
export interface PlannedCall {
  readonly name: string
  readonly args: Obj
}

/** The plan of a turn: tool calls, or an answer (text or structured output) after `results`. */
export type TurnPlan =
  | { readonly kind: "calls"; readonly calls: ReadonlyArray<PlannedCall> }
  | { readonly kind: "answer" }
  | { readonly kind: "refused"; readonly where: string; readonly problem: SchemaProblem }

/** The marker that makes tool arguments and structured outputs not match their schemas. */
export const MISMATCH_MARKER = "[umg:mismatch]"

const ONE_AT_A_TIME = /\bone at a time\b/i

/** Whether the prompt asks for mismatching arguments and outputs. */
export const wantsMismatch = (prompt: string): boolean => prompt.toLowerCase().includes(MISMATCH_MARKER)

/** The most calls the emulator makes in one turn (a prompt may name more tools: the rest wait for later turns). */
export const MAX_CALLS_PER_TURN = 16

/** The tools the prompt names (whole word, any case), in the order of their first mention; one pass over the prompt. */
export const namedTools = (prompt: string, names: ReadonlyArray<string>): Array<string> => {
  const first = new Map<string, number>()
  for (const m of prompt.matchAll(/[\w.:-]+/g)) {
    const word = m[0].toLowerCase()
    // A word also stands without the punctuation around it: "get_weather." names get_weather.
    for (const w of [word, word.replace(/^[.:-]+|[.:-]+$/g, "")]) if (!first.has(w)) first.set(w, m.index)
  }
  return names
    .flatMap((name) => {
      const at = first.get(name.toLowerCase())
      return at === undefined ? [] : [{ name, at }]
    })
    .sort((a, b) => a.at - b.at)
    .map((x) => x.name)
}

/** The tools whose names are in `allowed` (all of them when it is undefined). */
export const onlyAllowed = (tools: ReadonlyArray<OfferedTool>, allowed: ReadonlyArray<string> | undefined) => {
  if (allowed === undefined) return tools
  const set = new Set(allowed)
  return tools.filter((t) => set.has(t.name))
}

/** The first offered tool whose schema is beyond the bounds or malformed, with the problem; checked before any call. */
export const checkTools = (
  tools: ReadonlyArray<OfferedTool>
): { readonly where: string; readonly problem: SchemaProblem } | undefined => {
  for (const t of tools) {
    const problem = t.schema === undefined ? undefined : checkSchema(t.schema)
    if (problem !== undefined) return { where: t.where, problem }
  }
  return undefined
}

/** The names to call this turn under `choice`, before the one-at-a-time rule. */
const targets = (tools: ReadonlyArray<OfferedTool>, choice: ToolChoice, c: Conversation): Array<string> => {
  if (choice.kind === "none") return []
  if (choice.kind === "tool") return tools.some((t) => t.name === choice.name) ? [choice.name] : []
  const candidates = onlyAllowed(tools, choice.kind === "any" ? choice.allowed : undefined).map((t) => t.name)
  const named = namedTools(c.prompt, candidates)
  const called = new Set(c.called)
  const pending = named.filter((n) => !called.has(n))
  if (choice.kind === "any") return pending.length > 0 ? pending : candidates.slice(0, 1)
  if (named.length === 0) return c.called.length === 0 ? candidates.slice(0, 1) : []
  return pending
}

/**
 * Plans a turn: the calls the trigger rules ask for, with arguments sampled from each tool's schema
 * (required properties only; seeded by `seed`, the call's name and its place), or an answer.
 */
export const planTurn = (input: {
  readonly tools: ReadonlyArray<OfferedTool>
  readonly choice: ToolChoice
  readonly conversation: Conversation
  /** False when the request turns parallel tool calls off. */
  readonly parallel: boolean
  readonly seed: string
}): TurnPlan => {
  const { tools, conversation: c } = input
  const names = targets(tools, input.choice, c)
  if (names.length === 0) return { kind: "answer" }
  const one = !input.parallel || ONE_AT_A_TIME.test(c.prompt)
  const mismatch = wantsMismatch(c.prompt)
  const calls: Array<PlannedCall> = []
  const byName = new Map(tools.map((t) => [t.name, t]))
  for (const name of names.slice(0, one ? 1 : MAX_CALLS_PER_TURN)) {
    const tool = byName.get(name)!
    const schema = tool.schema ?? { type: "object" }
    const sampled = sampleSchema(schema, `${input.seed}#call:${name}:${c.called.length + calls.length}`, {
      includeOptional: false
    })
    if (!sampled.ok) return { kind: "refused", where: tool.where, problem: sampled.problem }
    const value = mismatch ? mismatchValue(schema, sampled.value) : sampled.value
    // Arguments are an object on every family's wire; a non-object schema gets its value under `value`.
    const args = typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Obj) : { value }
    calls.push({ name, args })
  }
  return { kind: "calls", calls }
}

/**
 * The JSON text of a structured answer: a value of `schema` (every declared property; seeded by
 * `seed`), `{"answer": "…"}` when no schema is given (plain JSON mode), a mismatching value on request.
 */
export const structuredText = (
  schema: unknown,
  seed: string,
  mismatch: boolean
): { readonly ok: true; readonly text: string } | { readonly ok: false; readonly problem: SchemaProblem } => {
  if (schema === undefined) {
    const answer = { answer: replyWords(seed, 8).join(" ") }
    return { ok: true, text: JSON.stringify(mismatch ? [answer] : answer) }
  }
  const options: SampleOptions = { includeOptional: true }
  const sampled = sampleSchema(schema, seed, options)
  if (!sampled.ok) return sampled
  return { ok: true, text: JSON.stringify(mismatch ? mismatchValue(schema, sampled.value) : sampled.value) }
}

/** The text an answer after tool results starts with (`The tool returned: …. `), or "" when there are none. */
export const resultsPrefix = (results: ReadonlyArray<ToolResult>): string =>
  results.length === 0
    ? ""
    : `The tool returned: ${results.map((r) => (r.isError ? `an error (${r.text})` : r.text)).join("; ")}. `
