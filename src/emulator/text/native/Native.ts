/**
 * E10 native-content generate (zeta): `:generateContent` and `:streamGenerateContent?alt=sse`
 * (data-only SSE, `\r\n\r\n` separators, cumulative `usageMetadata`, `finishReason` on the last
 * chunk), thoughts, function calls and image output; and the rejected native embedding shape.
 */
import type { EmulatorContext } from "../../server/Context.js"
import { errorBody } from "../../server/Family.js"
import { findModel } from "../../gateway/Models.js"
import { normaliseNative, parseNativeModel, thinkingOf, validateNative } from "./NativeRequest.js"
import { imageDimensions, renderPng } from "../../media/Png.js"
import type { Reply, Route } from "../../server/Route.js"
import {
  canonicalJson,
  estimateTokens,
  jsonReply,
  newId,
  pace,
  replyWords,
  sampleArgs,
  tokenPieces
} from "../TextGen.js"

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

const functionCallFor = (body: Obj, seed: string): Obj | undefined => {
  const cfg =
    isObj(body.toolConfig) && isObj(body.toolConfig.functionCallingConfig) ? body.toolConfig.functionCallingConfig : {}
  if (cfg.mode === "NONE") return undefined
  const decls = (Array.isArray(body.tools) ? body.tools : [])
    .flatMap((t) => (isObj(t) && Array.isArray(t.functionDeclarations) ? t.functionDeclarations : []))
    .filter(isObj)
  const allowed = Array.isArray(cfg.allowedFunctionNames) ? cfg.allowedFunctionNames.map(String) : undefined
  const decl = decls.find((d) => allowed === undefined || allowed.includes(String(d.name)))
  if (decl === undefined) return undefined
  const contents = body.contents as Array<Obj>
  const last = contents[contents.length - 1]!
  if ((last.parts as Array<Obj>).some((p) => p.functionResponse !== undefined)) return undefined
  return {
    functionCall: { name: String(decl.name), args: sampleArgs(decl.parameters ?? decl.parametersJsonSchema, seed) }
  }
}

const plan = (ctx: EmulatorContext, body: Obj, model: string, isImageModel: boolean): NativePlan => {
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
  const call = functionCallFor(body, seed)
  const modalities = Array.isArray(g.responseModalities)
    ? g.responseModalities.map((x) => String(x).toUpperCase())
    : isImageModel
      ? ["TEXT", "IMAGE"]
      : ["TEXT"]
  if (call !== undefined) push([call], 8)
  else if (modalities.includes("IMAGE")) {
    const cfg = isObj(g.imageConfig) ? g.imageConfig : {}
    const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined)
    const { width, height } = imageDimensions(str(cfg.aspectRatio), str(cfg.imageSize))
    if (modalities.includes("TEXT")) push([{ text: replyWords(seed, 8).join(" ") }], 8)
    push([{ inlineData: { mimeType: "image/png", data: renderPng(seed, width, height).toString("base64") } }], 1290)
  } else {
    const responses = (body.contents as Array<Obj>).flatMap((c) =>
      (c.parts as Array<Obj>).filter((p) => p.functionResponse !== undefined)
    )
    const lastResponse = responses[responses.length - 1]
    const fr = isObj(lastResponse) && isObj(lastResponse.functionResponse) ? lastResponse.functionResponse : undefined
    const prefix = fr === undefined ? "" : `The function returned ${canonicalJson(fr.response)}. `
    const json = g.responseMimeType === "application/json"
    const text = json
      ? jsonReply(g.responseJsonSchema ?? g.responseSchema, seed)
      : prefix + replyWords(seed, ctx.options.text.replyWords).join(" ")
    let pieces = tokenPieces(text)
    const max = typeof g.maxOutputTokens === "number" ? g.maxOutputTokens : Infinity
    if (pieces.length > max) {
      pieces = pieces.slice(0, max)
      finishReason = "MAX_TOKENS"
    }
    for (let i = 0; i < pieces.length; i += 4)
      push([{ text: pieces.slice(i, i + 4).join("") }], Math.min(4, pieces.length - i))
  }
  return { chunks, finishReason, prompt: promptTokens(body), thoughts: thinking.tokens, candidates }
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
  const invalid = validateNative(body, parsed)
  if (invalid !== undefined) return bad(400, invalid)
  return { plan: plan(ctx, body, model, entry.kind === "image"), model: parsed.base }
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
