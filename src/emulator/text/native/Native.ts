/**
 * E10 native-content generate (zeta): `:generateContent` and `:streamGenerateContent?alt=sse`.
 * The stream is data-only SSE with `\r\n\r\n` separators, cumulative `usageMetadata` and each
 * candidate's `finishReason` on its last chunk; the candidates (NativePlan.ts) stream together, each
 * chunk carrying those with new parts. The native embedding shape is rejected.
 */
import type { EmulatorContext } from "../../server/Context.js"
import { errorBody, streamErrorEvent } from "../../server/Family.js"
import { findModel } from "../../gateway/Models.js"
import { normaliseNative, parseNativeModel, validateNative } from "./NativeRequest.js"
import type { Reply, Route } from "../../server/Route.js"
import { newId, pace } from "../TextGen.js"
import { checkFunctionPairing } from "./NativeTools.js"
import { type CandidatePlan, type NativePlan, planNative } from "./NativePlan.js"

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)

const embedMessage =
  "The native embedding request shape is not supported by this gateway; use POST /v1/embeddings with one text per request."

const SAFETY = [
  "HARM_CATEGORY_HATE_SPEECH",
  "HARM_CATEGORY_DANGEROUS_CONTENT",
  "HARM_CATEGORY_HARASSMENT",
  "HARM_CATEGORY_SEXUALLY_EXPLICIT"
].map((category) => ({ category, probability: "NEGLIGIBLE" }))

const usage = (p: NativePlan, candidates: number): Obj => ({
  promptTokenCount: p.prompt,
  candidatesTokenCount: candidates,
  totalTokenCount: p.prompt + candidates + p.thoughts,
  ...(p.thoughts > 0 ? { thoughtsTokenCount: p.thoughts } : {}),
  promptTokensDetails: [{ modality: "TEXT", tokenCount: p.prompt }]
})

const envelope = (
  model: string,
  responseId: string,
  createTime: string,
  candidates: ReadonlyArray<Obj>,
  u: Obj
): Obj => ({
  candidates,
  usageMetadata: u,
  modelVersion: model,
  createTime,
  responseId
})

/** A candidate on the wire; a candidate with no parts (cut at its start) carries `content` without `parts`. */
const wireCandidate = (index: number, parts: ReadonlyArray<Obj>, finishReason: string | undefined): Obj => ({
  index,
  content: parts.length === 0 ? { role: "model" } : { role: "model", parts },
  ...(finishReason === undefined ? {} : { finishReason, safetyRatings: SAFETY })
})

/** A candidate's parts as one unary answer carries them: adjacent text of the same kind joined. */
const joinedParts = (c: CandidatePlan): Array<Obj> =>
  c.chunks.flat().reduce<Array<Obj>>((acc, part) => {
    const prev = acc[acc.length - 1]
    const joinable =
      prev !== undefined &&
      typeof prev.text === "string" &&
      typeof part.text === "string" &&
      prev.thought === part.thought &&
      prev.thoughtSignature === undefined &&
      part.thoughtSignature === undefined
    if (joinable) acc[acc.length - 1] = { ...prev, text: String(prev.text) + String(part.text) }
    else acc.push(part)
    return acc
  }, [])

/** Candidate tokens of all candidates after stream chunk `i` (a finished candidate counts its total). */
const tokensAfter = (p: NativePlan, i: number): number =>
  p.candidates.reduce((n, c) => n + (c.tokens[Math.min(i, c.tokens.length - 1)] ?? 0), 0)

/** Stream chunk `i`: each candidate that has an `i`-th chunk, its finish reason on its last. */
const streamCandidates = (p: NativePlan, i: number): Array<Obj> =>
  p.candidates.flatMap((c, index) =>
    i < c.chunks.length
      ? [wireCandidate(index, c.chunks[i]!, i === c.chunks.length - 1 ? c.finishReason : undefined)]
      : []
  )

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
  const planned = planNative(ctx, body, model, entry.kind === "image")
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
    const candidates = p.candidates.map((c, index) => wireCandidate(index, joinedParts(c), c.finishReason))
    const createTime = new Date(ctx.clock.now()).toISOString()
    reply.json(200, envelope(model, newId(""), createTime, candidates, usage(p, tokensAfter(p, Infinity))))
  }
}

const streamRoute: Route = {
  name: "native.stream",
  streams: true,
  method: "POST",
  path: "/v1beta/models/{model}:streamGenerateContent",
  handle: async (req, reply, ctx) => {
    const ready = prepare(req, reply, ctx)
    if (ready === undefined) return
    const { plan: p, model } = ready
    const id = newId("")
    const createTime = new Date(ctx.clock.now()).toISOString()
    const count = Math.max(...p.candidates.map((c) => c.chunks.length))
    const chunk = (i: number): Obj =>
      envelope(model, id, createTime, streamCandidates(p, i), usage(p, tokensAfter(p, i)))
    if (req.url.searchParams.get("alt") !== "sse") {
      // Without alt=sse the upstream answers one JSON array of the same chunks.
      return reply.json(
        200,
        Array.from({ length: count }, (_, i) => chunk(i))
      )
    }
    // An injected in-stream error is a chunk with a top-level `error` (the HTTP error's body).
    const w = reply.sse({}, { lineEnd: "\r\n", errorEvent: (fault) => streamErrorEvent("native", fault) })
    for (let i = 0; i < count; i++) {
      if (w.closed) return
      if (i > 0) await pace(ctx)
      if (i === count - 1) w.final()
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
