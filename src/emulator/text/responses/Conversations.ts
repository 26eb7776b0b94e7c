/**
 * `POST /v1/conversations`, `GET` and `DELETE /v1/conversations/{conversation_id}`: the conversations
 * a response's `conversation` continues, kept in ResponsesState.ts (its items are not listed).
 */
import { openAiError } from "../chat/OpenAiText.js"
import type { Reply, Route } from "../../server/Route.js"
import { newId } from "../TextGen.js"
import { conversationNotFound } from "./ResponsesHistory.js"
import { responsesStateOf, type StoredConversation } from "./ResponsesState.js"

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)

/** Items a conversation may be created with (upstream's limit). */
export const MAX_INITIAL_ITEMS = 20

const view = (c: StoredConversation): Obj => ({
  id: c.id,
  object: "conversation",
  created_at: Math.floor(c.createdAt / 1000),
  metadata: c.metadata
})

const notFound = (reply: Reply, id: string): void => {
  const p = conversationNotFound(id, null)
  openAiError(reply, p.status, p.message, p.param, p.code)
}

/** The `[message, param]` of a create body the emulator refuses. */
const createProblem = (body: Obj): [string, string | null] | undefined => {
  const items = body.items
  if (items !== undefined && items !== null) {
    if (!Array.isArray(items) || !items.every(isObj))
      return ["Invalid type for 'items': expected an array of objects.", "items"]
    if (items.length > MAX_INITIAL_ITEMS)
      return [
        `Invalid 'items': array too long. Expected an array with maximum length ${MAX_INITIAL_ITEMS}, but got an array with length ${items.length} instead.`,
        "items"
      ]
  }
  const metadata = body.metadata
  if (metadata !== undefined && metadata !== null && !isObj(metadata))
    return ["Invalid type for 'metadata': expected an object.", "metadata"]
  return undefined
}

/** `POST /v1/conversations`: a new conversation, with its optional first `items` and `metadata`. */
export const createConversationRoute: Route = {
  name: "conversations.create",
  method: "POST",
  path: "/v1/conversations",
  handle: (req, reply, ctx) => {
    if (req.jsonError !== undefined || !(req.json === undefined || isObj(req.json)))
      return openAiError(reply, 400, "We could not parse the JSON body of your request.")
    const body: Obj = req.json ?? {}
    const problem = createProblem(body)
    if (problem !== undefined) return openAiError(reply, 400, problem[0], problem[1])
    const state = responsesStateOf(ctx)
    const c: StoredConversation = {
      id: newId("conv_"),
      key: req.key,
      createdAt: ctx.clock.now(),
      metadata: body.metadata ?? {},
      items: [],
      sizes: []
    }
    state.append(c, Array.isArray(body.items) ? body.items.filter(isObj) : [])
    reply.json(200, view(c))
  }
}

/** `GET /v1/conversations/{conversation_id}`. */
export const retrieveConversationRoute: Route = {
  name: "conversations.get",
  method: "GET",
  path: "/v1/conversations/{conversation_id}",
  handle: (req, reply, ctx) => {
    const id = req.params.conversation_id ?? ""
    const c = responsesStateOf(ctx).conversation(id, req.key)
    if (c === undefined) return notFound(reply, id)
    reply.json(200, view(c))
  }
}

/** `DELETE /v1/conversations/{conversation_id}`: forgets the conversation and its items. */
export const deleteConversationRoute: Route = {
  name: "conversations.delete",
  method: "DELETE",
  path: "/v1/conversations/{conversation_id}",
  handle: (req, reply, ctx) => {
    const id = req.params.conversation_id ?? ""
    const state = responsesStateOf(ctx)
    if (state.conversation(id, req.key) === undefined) return notFound(reply, id)
    state.conversations.delete(id)
    reply.json(200, { id, object: "conversation.deleted", deleted: true })
  }
}
