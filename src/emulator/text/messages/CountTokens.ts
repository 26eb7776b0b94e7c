/**
 * E9 `POST /v1/messages/count_tokens`: a local calculation over system, messages and tool
 * definitions (images about 1000 tokens each); no model request, no quota.
 */
import { errorBody } from "../../server/Family.js"
import { countInputTokens } from "./MessageTokens.js"
import { validateCount } from "./MessagesValidation.js"
import type { Route } from "../../server/Route.js"

/** `POST /v1/messages/count_tokens`. */
export const countTokensRoute: Route = {
  name: "count_tokens",
  method: "POST",
  path: "/v1/messages/count_tokens",
  handle: (req, reply) => {
    const json = req.json
    if (typeof json !== "object" || json === null || Array.isArray(json)) {
      const why =
        req.jsonError === undefined ? "body: Input should be a valid object" : `body: Invalid JSON: ${req.jsonError}`
      return reply.json(400, errorBody("count_tokens", 400, why))
    }
    const body = json as Record<string, unknown>
    const invalid = validateCount(body)
    if (invalid !== undefined) return reply.json(400, errorBody("count_tokens", 400, invalid.message))
    reply.json(200, { input_tokens: countInputTokens(body) })
  }
}
