/**
 * E10 native-content generate (zeta): `:generateContent` and `:streamGenerateContent?alt=sse`.
 * The stream is data-only SSE with `\r\n\r\n` separators, cumulative `usageMetadata` and
 * `finishReason` on the last chunk; answers carry thoughts, function calls, structured output (the
 * rules of ToolTurns.ts) and images. The native embedding shape is rejected.
 */
import type { EmulatorContext } from "../../server/Context.js"
import { errorBody } from "../../server/Family.js"
import { findModel } from "../../gateway/Models.js"
import { normaliseNative, parseNativeModel, thinkingOf, validateNative } from "./NativeRequest.js"
import { imageDimensions, renderPng } from "../../media/Png.js"
import type { Reply, Route } from "../../server/Route.js"
import { canonicalJson, estimateTokens, jsonPieces, newId, pace, replyWords, tokenPieces } from "../TextGen.js"
import { checkTools, onlyAllowed, planTurn, resultsPrefix, structuredText, wantsMismatch } from "../ToolTurns.js"
import type { SchemaProblem } from "../schema/SchemaWalk.js"
import { checkFunctionPairing, nativeChoice, nativeConversation, nativeFormat, nativeTools } from "./NativeTools.js"

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)

const embedMessage =
  "The native embedding request shape is not supported by this gateway; use POST /v1/embeddings with one text per request."

/** Tokens counted for one inline image or file in a prompt. */
const MEDIA_TOKENS = 258

const SAFETY = [
  "HARM_CATEGORY_HATE_SPEECH",
  "HARM_CATEGORY_DANGEROUS_CONTENT",
  "HARM_CATEGORY_HARASSMENT",
  "HARM_CATEGORY_SEXUALLY_EXPLICIT"
].map((category) => ({ category, probability: "NEGLIGIBLE" }))

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

/** The reply: the parts streamed in order (each a chunk), the finish reason and the token counts. */
interface NativePlan {
  readonly chunks: ReadonlyArray<ReadonlyArray<Obj>>
  readonly finishReason: "STOP" | "MAX_TOKENS"
  readonly prompt: number
  readonly thoughts: number
  /** Candidate tokens after each chunk, cumulative. */
  readonly candidates: ReadonlyArray<number>
}

/** The plan, or the 400 message of a schema the emulator refuses. */
type Planned = { readonly ok: true; readonly plan: NativePlan } | { readonly ok: false; readonly message: string }

const refusal = (field: string, problem: SchemaProblem): Planned => ({
  ok: false,
  message: `* GenerateContentRequest.${field}: ${problem.path}: ${problem.message}`
})

/** The function calls of this turn (the rules of ToolTurns.ts), as `functionCall` parts. */
const functionCalls = (body: Obj, seed: string): Array<Obj> | Planned => {
  const { choice, allowed } = nativeChoice(body)
  const offered = nativeTools(body.tools)
  const tools = onlyAllowed(offered, allowed)
  const bad = checkTools(offered)
  if (bad !== undefined) return refusal(bad.where, bad.problem)
  const conversation = nativeConversation(body.contents as Array<unknown>)
  const turn = planTurn({ tools, choice, conversation, parallel: true, seed })
  if (turn.kind === "refused") return refusal(turn.where, turn.problem)
  return turn.kind === "calls" ? turn.calls.map((c) => ({ functionCall: { name: c.name, args: c.args } })) : []
}

/** The answer's text pieces: words after the function responses, or the structured JSON (or enum value). */
const answerPieces = (ctx: EmulatorContext, body: Obj, g: Obj, seed: string): Array<string> | Planned => {
  const conversation = nativeConversation(body.contents as Array<unknown>)
  const format = nativeFormat(g)
  if (format === undefined)
    return tokenPieces(resultsPrefix(conversation.results) + replyWords(seed, ctx.options.text.replyWords).join(" "))
  if (format.kind === "enum") {
    const values = isObj(format.schema) && Array.isArray(format.schema.enum) ? format.schema.enum : []
    return [values.length > 0 ? String(values[0]) : replyWords(seed, 1).join("")]
  }
  const structured = structuredText(format.schema, seed, wantsMismatch(conversation.prompt))
  return structured.ok ? jsonPieces(structured.text) : refusal(format.field, structured.problem)
}

const plan = (ctx: EmulatorContext, body: Obj, model: string, isImageModel: boolean): Planned => {
  const parsed = parseNativeModel(model)
  const g = isObj(body.generationConfig) ? body.generationConfig : {}
  const seed = canonicalJson({
    model: parsed.base,
    contents: body.contents,
    systemInstruction: body.systemInstruction,
    tools: body.tools
  })
  const thinking = thinkingOf(body, parsed, isImageModel)
  const chunks: Array<Array<Obj>> = []
  const candidates: Array<number> = []
  let count = 0
  const push = (parts: Array<Obj>, tokens: number) => {
    count += tokens
    chunks.push(parts)
    candidates.push(count)
  }
  if (thinking.includeThoughts) push([{ text: replyWords(`${seed}#thought`, 10).join(" "), thought: true }], 0)
  let finishReason: NativePlan["finishReason"] = "STOP"
  const calls = functionCalls(body, seed)
  if (!Array.isArray(calls)) return calls
  const modalities = Array.isArray(g.responseModalities)
    ? g.responseModalities.map((x) => String(x).toUpperCase())
    : isImageModel
      ? ["TEXT", "IMAGE"]
      : ["TEXT"]
  if (calls.length > 0) push(calls, 8 * calls.length)
  else if (modalities.includes("IMAGE")) {
    const cfg = isObj(g.imageConfig) ? g.imageConfig : {}
    const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined)
    const { width, height } = imageDimensions(str(cfg.aspectRatio), str(cfg.imageSize))
    if (modalities.includes("TEXT")) push([{ text: replyWords(seed, 8).join(" ") }], 8)
    push([{ inlineData: { mimeType: "image/png", data: renderPng(seed, width, height).toString("base64") } }], 1290)
  } else {
    const all = answerPieces(ctx, body, g, seed)
    if (!Array.isArray(all)) return all
    let pieces = all
    const max = typeof g.maxOutputTokens === "number" ? g.maxOutputTokens : Infinity
    if (pieces.length > max) {
      pieces = pieces.slice(0, max)
      finishReason = "MAX_TOKENS"
    }
    // Words go four to a chunk; structured JSON one piece to a chunk.
    const per = nativeFormat(g) === undefined ? 4 : 1
    for (let i = 0; i < pieces.length; i += per)
      push([{ text: pieces.slice(i, i + per).join("") }], Math.min(per, pieces.length - i))
  }
  return { ok: true, plan: { chunks, finishReason, prompt: promptTokens(body), thoughts: thinking.tokens, candidates } }
}

const usage = (p: NativePlan, candidates: number): Obj => ({
  promptTokenCount: p.prompt,
  candidatesTokenCount: candidates,
  totalTokenCount: p.prompt + candidates + p.thoughts,
  ...(p.thoughts > 0 ? { thoughtsTokenCount: p.thoughts } : {}),
  promptTokensDetails: [{ modality: "TEXT", tokenCount: p.prompt }]
})

const envelope = (model: string, responseId: string, createTime: string, candidate: Obj, u: Obj): Obj => ({
  candidates: [{ index: 0, ...candidate }],
  usageMetadata: u,
  modelVersion: model,
  createTime,
  responseId
})

/** Reads, checks and plans a generate request; answers the error itself and returns undefined on failure. */
const prepare = (
  req: Parameters<Route["handle"]>[0],
  reply: Reply,
  ctx: EmulatorContext
): { plan: NativePlan; model: string } | undefined => {
  const bad = (status: number, message: string): undefined =>
    void reply.json(status, errorBody("native", status, message))
  const model = req.params.model ?? ""
  const parsed = parseNativeModel(model)
  const entry = findModel(parsed.base)
  if (entry?.kind === "embedding") return bad(400, embedMessage)
  if (entry === undefined || entry.ownedBy !== "zeta" || (entry.kind !== "text" && entry.kind !== "image"))
    return bad(404, `models/${model} is not found for API version v1beta, or is not supported for generateContent.`)
  if (!isObj(req.json)) return bad(400, `Invalid JSON payload received. ${req.jsonError ?? "Expected an object."}`)
  const body = normaliseNative(req.json)
  const invalid = validateNative(body, parsed) ?? checkFunctionPairing(body.contents as Array<unknown>)
  if (invalid !== undefined) return bad(400, invalid)
  const planned = plan(ctx, body, model, entry.kind === "image")
  if (!planned.ok) return bad(400, planned.message)
  return { plan: planned.plan, model: parsed.base }
}

const generateRoute: Route = {
  name: "native.generate",
  method: "POST",
  path: "/v1beta/models/{model}:generateContent",
  handle: (req, reply, ctx) => {
    const ready = prepare(req, reply, ctx)
    if (ready === undefined) return
    const { plan: p, model } = ready
    // Unary answers carry one text part where a stream carries several.
    const parts = p.chunks.flat().reduce<Array<Obj>>((acc, part) => {
      const prev = acc[acc.length - 1]
      const joinable =
        prev !== undefined &&
        typeof prev.text === "string" &&
        typeof part.text === "string" &&
        prev.thought === part.thought
      if (joinable) acc[acc.length - 1] = { ...prev, text: String(prev.text) + String(part.text) }
      else acc.push(part)
      return acc
    }, [])
    const candidate = { content: { role: "model", parts }, finishReason: p.finishReason, safetyRatings: SAFETY }
    reply.json(
      200,
      envelope(
        model,
        newId(""),
        new Date(ctx.clock.now()).toISOString(),
        candidate,
        usage(p, p.candidates[p.candidates.length - 1] ?? 0)
      )
    )
  }
}

const streamRoute: Route = {
  name: "native.stream",
  method: "POST",
  path: "/v1beta/models/{model}:streamGenerateContent",
  handle: async (req, reply, ctx) => {
    const ready = prepare(req, reply, ctx)
    if (ready === undefined) return
    const { plan: p, model } = ready
    const id = newId("")
    const createTime = new Date(ctx.clock.now()).toISOString()
    const chunk = (i: number): Obj => {
      const last = i === p.chunks.length - 1
      const candidate = {
        content: { role: "model", parts: p.chunks[i] },
        ...(last ? { finishReason: p.finishReason, safetyRatings: SAFETY } : {})
      }
      return envelope(model, id, createTime, candidate, usage(p, p.candidates[i] ?? 0))
    }
    if (req.url.searchParams.get("alt") !== "sse") {
      // Without alt=sse the upstream answers one JSON array of the same chunks.
      return reply.json(
        200,
        p.chunks.map((_, i) => chunk(i))
      )
    }
    const w = reply.sse({}, { lineEnd: "\r\n" })
    for (let i = 0; i < p.chunks.length; i++) {
      if (w.closed) return
      if (i > 0) await pace(ctx)
      if (i === p.chunks.length - 1) w.final()
      await w.event(undefined, JSON.stringify(chunk(i)))
    }
    w.end()
  }
}

const embedRoute = (action: string): Route => ({
  name: "native.embed",
  method: "POST",
  path: `/v1beta/models/{model}:${action}`,
  handle: (_req, reply) => reply.json(400, errorBody("native", 400, embedMessage))
})

/** The native-content routes. */
export const nativeRoutes: ReadonlyArray<Route> = [
  generateRoute,
  streamRoute,
  embedRoute("embedContent"),
  embedRoute("batchEmbedContents")
]
