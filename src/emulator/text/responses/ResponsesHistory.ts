/**
 * The items a responses request continues from: the stored chain of `previous_response_id`, or the
 * items of `conversation`, or none; with the errors upstream answers for an unknown id.
 */
import type { StoredConversation, ResponsesState } from "./ResponsesState.js"

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)

/** An OpenAI-style error to answer with. */
export interface HistoryProblem {
  readonly status: number
  readonly message: string
  readonly param: string | null
  readonly code: string | null
}

/** The earlier items (oldest first) and where they come from, or the problem to answer. */
export type History =
  | { readonly ok: true; readonly items: ReadonlyArray<Obj>; readonly conversation: StoredConversation | undefined }
  | ({ readonly ok: false } & HistoryProblem)

/** Ids are echoed in messages cut to this length (a hostile id must not make a huge answer). */
const shown = (id: string): string => id.slice(0, 100)

/** The 404 of a conversation id the emulator does not hold (`param` names the body field, when there is one). */
export const conversationNotFound = (id: string, param: string | null): HistoryProblem => ({
  status: 404,
  message: `Conversation with id '${shown(id)}' not found.`,
  param,
  code: null
})

/** The id of a `conversation` field: a string or `{id}`; `null` when the field has another shape. */
export const conversationId = (field: unknown): string | null =>
  typeof field === "string" ? field : isObj(field) && typeof field.id === "string" ? field.id : null

/** Reads `previous_response_id` and `conversation` of `body` against the stored state, for `key`. */
export const historyOf = (state: ResponsesState, body: Obj, key: string | undefined): History => {
  // `null` stands for an absent field, as upstream reads optional fields.
  const previous = body.previous_response_id ?? undefined
  const conversationField = body.conversation ?? undefined
  if (previous !== undefined && conversationField !== undefined)
    return {
      ok: false,
      status: 400,
      message:
        "Mutually exclusive parameters: Ensure you are only providing one of: 'previous_response_id' or 'conversation'.",
      param: null,
      code: null
    }
  if (typeof previous === "string") {
    if (state.response(previous, key) === undefined)
      return {
        ok: false,
        status: 400,
        message: `Previous response with id '${shown(previous)}' not found.`,
        param: "previous_response_id",
        code: "previous_response_not_found"
      }
    return { ok: true, items: state.chain(previous, key), conversation: undefined }
  }
  if (conversationField !== undefined) {
    const id = conversationId(conversationField)
    if (id === null)
      return {
        ok: false,
        status: 400,
        message: "Invalid type for 'conversation': expected a string or an object with a string 'id'.",
        param: "conversation",
        code: null
      }
    const conversation = state.conversation(id, key)
    if (conversation === undefined) return { ok: false, ...conversationNotFound(id, "conversation") }
    return { ok: true, items: [...conversation.items], conversation }
  }
  return { ok: true, items: [], conversation: undefined }
}

/**
 * Upstream's 400 for an input item whose `id` the earlier items (the stored chain or the
 * conversation) or the input itself already hold: a loop that sends again what the server keeps.
 */
export const duplicateItem = (earlier: ReadonlyArray<Obj>, input: ReadonlyArray<Obj>): HistoryProblem | undefined => {
  const seen = new Set<unknown>()
  for (const item of earlier) if (typeof item.id === "string") seen.add(item.id)
  for (const item of input) {
    if (typeof item.id !== "string") continue
    if (seen.has(item.id))
      return {
        status: 400,
        message: `Duplicate item found with id ${shown(item.id)}. Remove duplicate items from your input and try again.`,
        param: "input",
        code: null
      }
    seen.add(item.id)
  }
  return undefined
}
