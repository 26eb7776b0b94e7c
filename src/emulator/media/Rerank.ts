/**
 * E13 `POST /v1/rerank` for the catalogue's rerank models: scores in 0–1 from word overlap with the
 * query, so documents sharing more of it rank higher. `top_n` (above the document count: all) and
 * `return_documents` are honoured. */
import { findModel } from "../gateway/Models.js"
import { errorBody } from "../server/Family.js"
import type { Reply, Route } from "../server/Route.js"
import { estimateTokens } from "../text/TextGen.js"

const terms = (text: string): Set<string> => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])

/**
 * The score of a document: the share of query terms it contains (most of the weight) plus a small
 * share of its own terms that are query terms (so a focused document beats a long one that also
 * happens to contain them). Always within [0, 1].
 */
export const relevance = (query: string, document: string): number => {
  const q = terms(query)
  const d = terms(document)
  if (q.size === 0 || d.size === 0) return 0
  let shared = 0
  for (const t of q) if (d.has(t)) shared++
  return Math.round((0.85 * (shared / q.size) + 0.15 * (shared / d.size)) * 1e6) / 1e6
}

const bad = (reply: Reply, message: string, param: string): void =>
  reply.json(400, errorBody("openai", 400, message, { param }))

const docText = (d: unknown): string | undefined =>
  typeof d === "string"
    ? d
    : typeof d === "object" && d !== null && typeof (d as { text?: unknown }).text === "string"
      ? (d as { text: string }).text
      : undefined

/** `POST /v1/rerank`. */
export const rerankRoute: Route = {
  name: "rerank",
  method: "POST",
  path: "/v1/rerank",
  handle: (req, reply) => {
    const body = req.json
    if (typeof body !== "object" || body === null || Array.isArray(body))
      return bad(reply, "We could not parse the JSON body of your request.", "body")
    const b = body as Record<string, unknown>
    if (typeof b.model !== "string" || b.model.length === 0)
      return bad(reply, "you must provide a model parameter", "model")
    if (findModel(b.model)?.kind !== "rerank") {
      const message = `The model \`${b.model}\` does not exist or is not a rerank model.`
      return reply.json(404, errorBody("openai", 404, message, { param: "model", code: "model_not_found" }))
    }
    if (typeof b.query !== "string" || b.query.trim().length === 0)
      return bad(reply, "Missing required parameter: 'query'.", "query")
    if (!Array.isArray(b.documents) || b.documents.length === 0)
      return bad(reply, "Missing required parameter: 'documents' (a non-empty array).", "documents")
    const docs = b.documents.map(docText)
    const badIndex = docs.findIndex((d) => d === undefined)
    if (badIndex >= 0)
      return bad(reply, `Invalid 'documents[${badIndex}]': expected a string.`, `documents[${badIndex}]`)
    const texts = docs as Array<string>
    const topN = b.top_n ?? texts.length
    if (typeof topN !== "number" || !Number.isInteger(topN) || topN < 1)
      return bad(reply, "Invalid 'top_n': must be a positive integer.", "top_n")
    if (b.return_documents !== undefined && typeof b.return_documents !== "boolean")
      return bad(reply, "Invalid 'return_documents': must be a boolean.", "return_documents")
    const query = b.query
    const results = texts
      .map((text, index) => ({ index, relevance_score: relevance(query, text), text }))
      .sort((x, y) => y.relevance_score - x.relevance_score || x.index - y.index)
      // E13 bounds top_n by nothing: more than the documents answers them all.
      .slice(0, topN)
      .map(({ index, relevance_score, text }) =>
        b.return_documents === true ? { index, relevance_score, document: text } : { index, relevance_score }
      )
    const total = estimateTokens(query) + texts.reduce((n, t) => n + estimateTokens(t), 0)
    reply.json(200, { model: b.model, results, usage: { total_tokens: total } })
  }
}
