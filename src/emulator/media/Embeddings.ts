/**
 * E12 `POST /v1/embeddings`: one text per request, deterministic unit-length vectors of the model's
 * dimensions (`dimensions` honoured on the -3 models), as floats or base64 little-endian float32.
 */
import { errorBody } from "../server/Family.js"
import type { Reply, Route } from "../server/Route.js"
import { estimateTokens, hash32, seededRandom } from "../text/TextGen.js"

/** Native dimensions per model, and whether `dimensions` may shorten them. */
export const EMBEDDING_MODELS: Readonly<
  Record<string, { readonly dimensions: number; readonly shortenable: boolean }>
> = {
  "text-embedding-3-small": { dimensions: 1536, shortenable: true },
  "text-embedding-3-large": { dimensions: 3072, shortenable: true },
  "text-embedding-ada-002": { dimensions: 1536, shortenable: false },
  // zeta's embedding model is served here, never in the native shape (E12).
  "zeta-embedding-001": { dimensions: 3072, shortenable: true }
}

/** A deterministic unit vector for `(model, input)`; shortened vectors are cut then renormalised, as upstream. */
export const embed = (model: string, input: string, fullDimensions: number, dimensions: number): Float32Array => {
  const rnd = seededRandom(hash32(`${model}\u0000${input}`))
  const full = new Float64Array(fullDimensions)
  for (let i = 0; i < fullDimensions; i++) full[i] = rnd() * 2 - 1
  const out = new Float32Array(dimensions)
  let norm = 0
  for (let i = 0; i < dimensions; i++) norm += full[i]! * full[i]!
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0
  for (let i = 0; i < dimensions; i++) out[i] = full[i]! * scale
  return out
}

/** Base64 of the vector as little-endian float32. */
export const toBase64 = (v: Float32Array): string => {
  const buf = Buffer.alloc(v.length * 4)
  for (let i = 0; i < v.length; i++) buf.writeFloatLE(v[i]!, i * 4)
  return buf.toString("base64")
}

const bad = (reply: Reply, status: number, message: string, param: string | null, code: string | null = null): void =>
  reply.json(status, errorBody("openai", status, message, { param, code }))

/** `POST /v1/embeddings`. */
export const embeddingsRoute: Route = {
  name: "embeddings",
  method: "POST",
  path: "/v1/embeddings",
  handle: (req, reply) => {
    const body = req.json
    if (typeof body !== "object" || body === null || Array.isArray(body))
      return bad(reply, 400, "We could not parse the JSON body of your request.", null)
    const b = body as Record<string, unknown>
    if (typeof b.model !== "string" || b.model.length === 0)
      return bad(reply, 400, "you must provide a model parameter", "model")
    const spec = EMBEDDING_MODELS[b.model]
    if (spec === undefined)
      return bad(
        reply,
        404,
        `The model \`${b.model}\` does not exist or you do not have access to it.`,
        "model",
        "model_not_found"
      )
    if (b.input === undefined) return bad(reply, 400, "Missing required parameter: 'input'.", "input")
    if (Array.isArray(b.input))
      return bad(
        reply,
        400,
        "This gateway takes one text per request: 'input' must be a string.",
        "input",
        "invalid_value"
      )
    if (typeof b.input !== "string" || b.input.length === 0)
      return bad(reply, 400, "Invalid 'input': expected a non-empty string.", "input")
    if (b.user !== undefined && typeof b.user !== "string")
      return bad(reply, 400, "Invalid type for 'user': expected a string.", "user")
    const format = b.encoding_format ?? "float"
    if (format !== "float" && format !== "base64")
      return bad(
        reply,
        400,
        "Invalid 'encoding_format': expected 'float' or 'base64'.",
        "encoding_format",
        "invalid_value"
      )
    let dimensions = spec.dimensions
    if (b.dimensions !== undefined) {
      if (!spec.shortenable) return bad(reply, 400, "This model does not support specifying dimensions.", "dimensions")
      if (
        typeof b.dimensions !== "number" ||
        !Number.isInteger(b.dimensions) ||
        b.dimensions < 1 ||
        b.dimensions > spec.dimensions
      )
        return bad(
          reply,
          400,
          `Invalid 'dimensions': must be an integer between 1 and ${spec.dimensions}.`,
          "dimensions",
          "invalid_value"
        )
      dimensions = b.dimensions
    }
    const vector = embed(b.model, b.input, spec.dimensions, dimensions)
    const tokens = estimateTokens(b.input)
    reply.json(200, {
      object: "list",
      data: [{ object: "embedding", index: 0, embedding: format === "base64" ? toBase64(vector) : Array.from(vector) }],
      model: b.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens }
    })
  }
}
