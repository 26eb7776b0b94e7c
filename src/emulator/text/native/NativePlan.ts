/**
 * The reply a native-content (zeta, E10) request gets, planned before anything is sent: per
 * candidate, its parts in stream chunks, its finish reason and its tokens. There are
 * `candidateCount` candidates; candidate 0 is what a single-candidate request gets, and candidate k
 * is seeded apart so each has its own words, arguments, JSON or image. Text is cut before the first
 * `stopSequences` match, and the 3 class signs each candidate's function-call turn with a
 * `thoughtSignature`.
 */
import type { EmulatorContext } from "../../server/Context.js"
import { renderImage } from "../../media/Images.js"
import { imageDimensions } from "../../media/Png.js"
import {
  canonicalJson,
  cutPiecesAtStop,
  estimateTokens,
  hash32,
  jsonPieces,
  replyWords,
  textOf,
  tokenPieces
} from "../TextGen.js"
import { checkTools, onlyAllowed, planTurn, resultsPrefix, structuredText, wantsMismatch } from "../ToolTurns.js"
import type { SchemaProblem } from "../schema/SchemaWalk.js"
import { parseNativeModel, thinkingOf } from "./NativeRequest.js"
import { nativeChoice, nativeConversation, nativeFormat, nativeTools } from "./NativeTools.js"

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)

/** Tokens counted for one inline image or file in a prompt. */
const MEDIA_TOKENS = 258

/** One candidate: the parts streamed in order (each entry a chunk; an entry may be empty), its finish reason and tokens. */
export interface CandidatePlan {
  readonly chunks: ReadonlyArray<ReadonlyArray<Obj>>
  readonly finishReason: "STOP" | "MAX_TOKENS"
  /** The candidate's tokens after each chunk, cumulative. */
  readonly tokens: ReadonlyArray<number>
}

/** The reply: the candidates in `index` order, the prompt tokens and the thought tokens of all candidates. */
export interface NativePlan {
  readonly candidates: ReadonlyArray<CandidatePlan>
  readonly prompt: number
  readonly thoughts: number
}

/** The plan, or the 400 message of a schema the emulator refuses. */
export type Planned =
  { readonly ok: true; readonly plan: NativePlan } | { readonly ok: false; readonly message: string }

type Refused = Extract<Planned, { ok: false }>

const refusal = (field: string, problem: SchemaProblem): Refused => ({
  ok: false,
  message: `* GenerateContentRequest.${field}: ${problem.path}: ${problem.message}`
})

const partTokens = (p: Obj): number =>
  typeof p.text === "string"
    ? estimateTokens(p.text)
    : p.inlineData !== undefined || p.fileData !== undefined
      ? MEDIA_TOKENS
      : estimateTokens(canonicalJson(p))

const promptTokens = (body: Obj): number => {
  let n = 0
  for (const c of body.contents as Array<Obj>) for (const p of c.parts as Array<Obj>) n += partTokens(p)
  if (isObj(body.systemInstruction) && Array.isArray(body.systemInstruction.parts))
    for (const p of body.systemInstruction.parts) if (isObj(p)) n += partTokens(p)
  if (Array.isArray(body.tools)) n += estimateTokens(canonicalJson(body.tools))
  return n
}

/** The opaque signature of a function-call turn: base64 of a hash of the candidate's seed and calls. */
const signature = (seed: string, calls: ReadonlyArray<Obj>): string =>
  Buffer.from(`zeta-sig:${hash32(seed).toString(16)}:${hash32(canonicalJson(calls)).toString(16)}`).toString("base64")

/**
 * The function calls of this turn (the rules of ToolTurns.ts), as `functionCall` parts. On the 3 class
 * the first carries the turn's `thoughtSignature`, where upstream puts it (one per turn, on its first
 * call when the calls are parallel).
 */
const functionCalls = (body: Obj, seed: string, signed: boolean): Array<Obj> | Refused => {
  const { choice, allowed } = nativeChoice(body)
  const offered = nativeTools(body.tools)
  const tools = onlyAllowed(offered, allowed)
  const bad = checkTools(offered)
  if (bad !== undefined) return refusal(bad.where, bad.problem)
  const conversation = nativeConversation(body.contents as Array<unknown>)
  const turn = planTurn({ tools, choice, conversation, parallel: true, seed })
  if (turn.kind === "refused") return refusal(turn.where, turn.problem)
  if (turn.kind !== "calls") return []
  const parts: Array<Obj> = turn.calls.map((c) => ({ functionCall: { name: c.name, args: c.args } }))
  if (signed && parts.length > 0) parts[0] = { ...parts[0], thoughtSignature: signature(seed, parts) }
  return parts
}

/** The answer's text pieces: words after the function responses, or the structured JSON (or enum value). */
const answerPieces = (ctx: EmulatorContext, body: Obj, g: Obj, seed: string, k: number): Array<string> | Refused => {
  const conversation = nativeConversation(body.contents as Array<unknown>)
  const format = nativeFormat(g)
  if (format === undefined)
    return tokenPieces(resultsPrefix(conversation.results) + replyWords(seed, ctx.options.text.replyWords).join(" "))
  if (format.kind === "enum") {
    const values = isObj(format.schema) && Array.isArray(format.schema.enum) ? format.schema.enum : []
    // Candidates take the values in turn, so that several candidates differ where the enum allows.
    return [values.length > 0 ? textOf(values[k % values.length]) : replyWords(seed, 1).join("")]
  }
  const structured = structuredText(format.schema, seed, wantsMismatch(conversation.prompt))
  return structured.ok ? jsonPieces(structured.text) : refusal(format.field, structured.problem)
}

interface CandidateInput {
  readonly ctx: EmulatorContext
  readonly body: Obj
  readonly g: Obj
  readonly seed: string
  readonly index: number
  readonly isImageModel: boolean
  readonly includeThoughts: boolean
  /** Whether function-call turns carry a `thoughtSignature` (the 3 class). */
  readonly signed: boolean
}

/** Plans one candidate from its own seed. */
const planCandidate = (input: CandidateInput): CandidatePlan | Refused => {
  const { ctx, body, g, seed } = input
  const chunks: Array<Array<Obj>> = []
  const tokens: Array<number> = []
  let count = 0
  const push = (parts: Array<Obj>, n: number) => {
    count += n
    chunks.push(parts)
    tokens.push(count)
  }
  if (input.includeThoughts) push([{ text: replyWords(`${seed}#thought`, 10).join(" "), thought: true }], 0)
  let finishReason: CandidatePlan["finishReason"] = "STOP"
  const calls = functionCalls(body, seed, input.signed)
  if (!Array.isArray(calls)) return calls
  const modalities = Array.isArray(g.responseModalities)
    ? g.responseModalities.map((x) => textOf(x).toUpperCase())
    : input.isImageModel
      ? ["TEXT", "IMAGE"]
      : ["TEXT"]
  if (calls.length > 0) push(calls, 8 * calls.length)
  else if (modalities.includes("IMAGE")) {
    const cfg = isObj(g.imageConfig) ? g.imageConfig : {}
    const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined)
    const { width, height } = imageDimensions(str(cfg.aspectRatio), str(cfg.imageSize))
    if (modalities.includes("TEXT")) push([{ text: replyWords(seed, 8).join(" ") }], 8)
    const options = isObj(cfg.imageOutputOptions) ? cfg.imageOutputOptions : {}
    const mimeType = str(options.mimeType) ?? "image/png"
    push([{ inlineData: { mimeType, data: renderImage(mimeType, seed, width, height).toString("base64") } }], 1290)
  } else {
    const all = answerPieces(ctx, body, g, seed, input.index)
    if (!Array.isArray(all)) return all
    let pieces = all
    const max = typeof g.maxOutputTokens === "number" ? g.maxOutputTokens : Infinity
    if (pieces.length > max) {
      pieces = pieces.slice(0, max)
      finishReason = "MAX_TOKENS"
    }
    const stops = Array.isArray(g.stopSequences) ? (g.stopSequences as Array<string>) : []
    const cut = cutPiecesAtStop(pieces, stops)
    if (cut !== undefined) {
      pieces = cut
      finishReason = "STOP"
    }
    // Words go four to a chunk; structured JSON one piece to a chunk.
    const per = nativeFormat(g) === undefined ? 4 : 1
    for (let i = 0; i < pieces.length; i += per)
      push([{ text: pieces.slice(i, i + per).join("") }], Math.min(per, pieces.length - i))
  }
  // A candidate cut at its very start still answers, with no parts.
  if (chunks.length === 0) push([], 0)
  return { chunks, finishReason, tokens }
}

/**
 * Plans the reply to a checked body: `generationConfig.candidateCount` candidates (default 1), each
 * a pure function of the body and its index.
 */
export const planNative = (ctx: EmulatorContext, body: Obj, model: string, isImageModel: boolean): Planned => {
  const parsed = parseNativeModel(model)
  const g = isObj(body.generationConfig) ? body.generationConfig : {}
  const seed = canonicalJson({
    model: parsed.base,
    contents: body.contents,
    systemInstruction: body.systemInstruction,
    tools: body.tools
  })
  const thinking = thinkingOf(body, parsed, isImageModel)
  const n = typeof g.candidateCount === "number" ? g.candidateCount : 1
  const candidates: Array<CandidatePlan> = []
  for (let index = 0; index < n; index++) {
    const planned = planCandidate({
      ctx,
      body,
      g,
      seed: index === 0 ? seed : `${seed}#candidate:${index}`,
      index,
      isImageModel,
      includeThoughts: thinking.includeThoughts,
      signed: /^zeta-3(?:\.\d+)?-/.test(parsed.base)
    })
    if (!("chunks" in planned)) return planned
    candidates.push(planned)
  }
  // Each candidate thinks for itself.
  return { ok: true, plan: { candidates, prompt: promptTokens(body), thoughts: thinking.tokens * n } }
}
