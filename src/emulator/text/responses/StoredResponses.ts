/**
 * `GET` and `DELETE /v1/responses/{response_id}`: a stored response object, or its deletion; an id
 * the emulator does not hold (never stored, `store: false`, deleted or dropped) answers 404.
 */
import { openAiError } from "../chat/OpenAiText.js"
import type { Reply, Route } from "../../server/Route.js"
import { responsesStateOf } from "./ResponsesState.js"

/** Upstream's 404 for a response id it does not hold. */
const notFound = (reply: Reply, id: string): void =>
  openAiError(reply, 404, `Response with id '${id.slice(0, 100)}' not found.`, null, null)

/** `GET /v1/responses/{response_id}`: the response as it was answered (`stream=true` is not replayed). */
export const retrieveResponseRoute: Route = {
  name: "responses.get",
  method: "GET",
  path: "/v1/responses/{response_id}",
  handle: (req, reply, ctx) => {
    const id = req.params.response_id ?? ""
    const stored = responsesStateOf(ctx).response(id, req.key)
    if (stored === undefined) return notFound(reply, id)
    reply.json(200, stored.response)
  }
}

/** `DELETE /v1/responses/{response_id}`: forgets the response; chaining onto it then answers 400. */
export const deleteResponseRoute: Route = {
  name: "responses.delete",
  method: "DELETE",
  path: "/v1/responses/{response_id}",
  handle: (req, reply, ctx) => {
    const id = req.params.response_id ?? ""
    const state = responsesStateOf(ctx)
    if (state.response(id, req.key) === undefined) return notFound(reply, id)
    state.responses.delete(id)
    reply.json(200, { id, object: "response.deleted", deleted: true })
  }
}
