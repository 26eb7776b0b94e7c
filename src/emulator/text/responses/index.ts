/** OpenAI-style responses (E16), the server side: the create route, stored responses and conversations. */
import type { Route } from "../../server/Route.js"
import { createConversationRoute, deleteConversationRoute, retrieveConversationRoute } from "./Conversations.js"
import { responsesRoute } from "./Responses.js"
import { deleteResponseRoute, retrieveResponseRoute } from "./StoredResponses.js"

export * from "./Responses.js"
export * from "./ResponsesState.js"
export * from "./StoredResponses.js"
export * from "./Conversations.js"

/** Every route of the responses API: create, retrieve and delete a response, and the conversation routes. */
export const responsesRoutes: ReadonlyArray<Route> = [
  responsesRoute,
  retrieveResponseRoute,
  deleteResponseRoute,
  createConversationRoute,
  retrieveConversationRoute,
  deleteConversationRoute
]
