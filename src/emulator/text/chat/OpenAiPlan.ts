/**
 * The reply plan OpenAI-style chat and responses share: text pieces, structured JSON, or function calls.
 * The calls follow the rules of ToolTurns.ts; the two endpoints' readings of tools, tool choice and
 * response format live here too, and the token log probabilities of a plan's pieces.
 */
import type { EmulatorContext } from "../../server/Context.js"
import {
  canonicalJson,
  cutPiecesAtStop,
  hash32,
  jsonPieces,
  newId,
  replyWords,
  seededRandom,
  tokenPieces
} from "../TextGen.js"
import {
  checkTools,
  planTurn,
  resultsPrefix,
  structuredText,
  wantsMismatch,
  type Conversation,
  type OfferedTool,
  type ToolChoice
} from "../ToolTurns.js"

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)

/** One function call of a plan; `arguments` is the JSON text sent. */
export interface PlannedFunctionCall {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

/** What chat and responses answer: text pieces (JSON pieces for structured output), or function calls. */
export interface TextPlan {
  readonly pieces: ReadonlyArray<string>
  readonly calls: ReadonlyArray<PlannedFunctionCall>
  /** True when the token limit cut the text. */
  readonly truncated: boolean
  /** True when a stop sequence cut the text (then `truncated` is false). */
  readonly stopped?: boolean
  readonly outputTokens: number
}

/** The structured output asked for: a schema (undefined for plain JSON mode), its field and name for errors. */
export interface JsonAsk {
  readonly schema: unknown
  readonly field: string
  readonly name: string
}

/** The inputs of a plan. */
export interface PlanInput {
  /** What seeds the reply (the request's model, messages or input, tools). */
  readonly seed: unknown
  readonly tools: ReadonlyArray<OfferedTool>
  readonly choice: ToolChoice
  readonly conversation: Conversation
  readonly parallel: boolean
  readonly maxTokens: unknown
  readonly json: JsonAsk | undefined
  /** Which of several answers to one request this is (chat's `n`): 0, the default, keeps the seed as is. */
  readonly variant?: number
  /** Stop sequences: the text is cut before the first that occurs (not in function calls). */
  readonly stop?: ReadonlyArray<string>
}

/** A plan, or the 400 of a schema the emulator refuses (`param` names the field). */
export type Planned =
  | { readonly ok: true; readonly plan: TextPlan }
  | { readonly ok: false; readonly param: string; readonly message: string }

/** Function tools of a chat (`{type, function: {name, parameters}}`) or responses (`{type, name, parameters}`) body. */
export const functionTools = (tools: unknown, nested: boolean): Array<OfferedTool> =>
  (Array.isArray(tools) ? tools : []).flatMap((t: unknown, i) => {
    if (!isObj(t) || t.type !== "function") return []
    const f = nested && isObj(t.function) ? t.function : t
    if (typeof f.name !== "string") return []
    return [
      {
        name: f.name,
        schema: f.parameters,
        where: nested ? `tools[${i}].function.parameters` : `tools[${i}].parameters`
      }
    ]
  })

/** `tool_choice` of chat (`{type:"function", function:{name}}`) or responses (`{type:"function", name}`, `allowed_tools`). */
export const openAiChoice = (choice: unknown): { choice: ToolChoice; allowed?: ReadonlyArray<string> } => {
  if (choice === "none") return { choice: { kind: "none" } }
  if (choice === "required") return { choice: { kind: "any" } }
  if (!isObj(choice)) return { choice: { kind: "auto" } }
  if (choice.type === "function") {
    const name = isObj(choice.function) ? choice.function.name : choice.name
    return typeof name === "string" ? { choice: { kind: "tool", name } } : { choice: { kind: "auto" } }
  }
  if (choice.type === "allowed_tools" && Array.isArray(choice.tools)) {
    const allowed = choice.tools.flatMap((t: unknown) =>
      isObj(t) && typeof (isObj(t.function) ? t.function.name : t.name) === "string"
        ? [String(isObj(t.function) ? t.function.name : t.name)]
        : []
    )
    return { choice: choice.mode === "required" ? { kind: "any", allowed } : { kind: "auto" }, allowed }
  }
  return { choice: { kind: "auto" } }
}

/** The structured output a `{type: "json_object" | "json_schema", …}` format asks for (chat nests the schema in `json_schema`). */
export const jsonFormat = (format: unknown, field: string): JsonAsk | undefined => {
  if (!isObj(format)) return undefined
  if (format.type === "json_object") return { schema: undefined, field, name: "json_object" }
  if (format.type !== "json_schema") return undefined
  const inner = isObj(format.json_schema) ? format.json_schema : format
  return {
    schema: inner.schema ?? {},
    field: isObj(format.json_schema) ? `${field}.json_schema.schema` : `${field}.schema`,
    name: typeof inner.name === "string" ? inner.name : "schema"
  }
}

/** The text of a message `content`: a string or an array of parts with `text`. */
export const contentText = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((p) => (isObj(p) && typeof p.text === "string" ? p.text : "")).join(" ")
      : ""

/** Plans the reply: function calls when the trigger rules call for them, else text or structured JSON. */
export const planText = (ctx: EmulatorContext, input: PlanInput): Planned => {
  const seed =
    canonicalJson(input.seed) + (input.variant === undefined || input.variant === 0 ? "" : `#choice:${input.variant}`)
  const bad = checkTools(input.tools)
  const refused = (where: string, label: string, problem: { path: string; message: string }): Planned => ({
    ok: false,
    param: where,
    message: `Invalid schema for ${label}: ${problem.path}: ${problem.message}`
  })
  if (bad !== undefined) return refused(bad.where, `the tool at '${bad.where}'`, bad.problem)
  const turn = planTurn({ ...input, seed })
  if (turn.kind === "refused") return refused(turn.where, `the tool at '${turn.where}'`, turn.problem)
  if (turn.kind === "calls") {
    const calls = turn.calls.map((c) => ({ id: newId("call_"), name: c.name, arguments: JSON.stringify(c.args) }))
    const outputTokens = calls.reduce((n, c) => n + jsonPieces(c.arguments).length + 5, 0)
    return { ok: true, plan: { pieces: [], calls, truncated: false, outputTokens } }
  }
  let all: Array<string>
  if (input.json !== undefined) {
    const structured = structuredText(input.json.schema, seed, wantsMismatch(input.conversation.prompt))
    if (!structured.ok) return refused(input.json.field, `'${input.json.name}'`, structured.problem)
    all = jsonPieces(structured.text)
  } else
    all = tokenPieces(
      resultsPrefix(input.conversation.results) + replyWords(seed, ctx.options.text.replyWords).join(" ")
    )
  const max = typeof input.maxTokens === "number" && input.maxTokens > 0 ? input.maxTokens : Infinity
  const kept = all.slice(0, max)
  const pieces = cutPiecesAtStop(kept, input.stop ?? [])
  const stopped = pieces !== undefined
  return {
    ok: true,
    plan: {
      pieces: pieces ?? kept,
      calls: [],
      truncated: !stopped && all.length > max,
      stopped,
      outputTokens: (pieces ?? kept).length
    }
  }
}

/** The stop sequences of a chat `stop`: a string, an array of strings, or none. */
export const stopSequences = (stop: unknown): Array<string> =>
  typeof stop === "string" ? [stop] : Array.isArray(stop) ? stop.filter((s): s is string => typeof s === "string") : []

/** One alternative of a token log probability entry. */
export interface TopLogprob {
  readonly token: string
  readonly logprob: number
  readonly bytes: ReadonlyArray<number>
}

/** One entry of `logprobs.content`: a token, its log probability, its UTF-8 bytes and the most likely tokens. */
export interface TokenLogprob extends TopLogprob {
  readonly top_logprobs: ReadonlyArray<TopLogprob>
}

const utf8 = new TextEncoder()

/**
 * The log probability entry of one output token, a pure function of its text: the token itself
 * (logprob in (-2, 0]) first in `top_logprobs`, then `top - 1` other words, each less likely than
 * the one before, written with the token's leading space and capital if it has them.
 */
export const tokenLogprob = (token: string, top: number): TokenLogprob => {
  const rnd = seededRandom(hash32(`logprob:${token}`))
  const logprob = -2 * rnd()
  const lead = token.startsWith(" ") ? " " : ""
  const own = token.trim().toLowerCase()
  const capital = /^\s*[A-Z]/.test(token)
  const words = [...new Set(replyWords(`top:${token}`, 4 * top).map((w) => w.toLowerCase().replace(/\.$/, "")))]
  const others = words.filter((w) => w !== own).map((w) => (capital ? w.charAt(0).toUpperCase() + w.slice(1) : w))
  const bytes = [...utf8.encode(token)]
  const alternatives: Array<TopLogprob> = [{ token, logprob, bytes }]
  let p = logprob
  for (let k = 0; alternatives.length < top; k++) {
    // Past the drawn words (only for a large `top`), numbered variants of the token keep the list full.
    const text = k < others.length ? `${lead}${others[k]!}` : `${token}${k}`
    p -= 0.25 + 2 * rnd()
    alternatives.push({ token: text, logprob: p, bytes: [...utf8.encode(text)] })
  }
  return { token, logprob, bytes, top_logprobs: alternatives.slice(0, top) }
}

/** `logprobs.content` of a list of output tokens, each with `top` alternatives (0 to 20). */
export const tokenLogprobs = (tokens: ReadonlyArray<string>, top: number): Array<TokenLogprob> =>
  tokens.map((t) => tokenLogprob(t, top))
