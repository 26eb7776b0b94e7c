/**
 * The check that a video answer is for the task asked: E2's `task_id` and E3's `generation_id` must be
 * the requested id. Taken as it is, another task's answer would file its status, and then its video,
 * under the asked id (by the CLI, a batch).
 */
import * as Effect from "effect/Effect"
import { DecodeError } from "../../core/errors/GatewayError.js"

// An id as an error shows it: quoted (control characters escaped) and cut, since the answered one is the gateway's text.
const shownId = (id: string): string => JSON.stringify(id.length > 100 ? `${id.slice(0, 100)}…` : id)

/**
 * The fault of an answer whose `field` names another task than the one asked, naming both ids;
 * undefined when they are the same.
 * @category checks
 */
export const otherTaskFault = (
  field: "task_id" | "generation_id",
  asked: string,
  answered: string
): string | undefined =>
  answered === asked
    ? undefined
    : `${field} is ${shownId(answered)}, not the requested ${shownId(asked)}: the answer is for another task`

/** E2: fails with a `DecodeError` when the task answered is not the one asked. @category checks */
export const checkQueriedTask = (asked: string, answered: string): Effect.Effect<void, DecodeError> => {
  const fault = otherTaskFault("task_id", asked, answered)
  return fault === undefined
    ? Effect.void
    : Effect.fail(new DecodeError({ family: "video", what: "video task", message: `video task: ${fault}` }))
}

/** E3: fails with a `DecodeError` when the video downloaded is not the one asked. @category checks */
export const checkDownloadedVideo = (asked: string, generationId: string): Effect.Effect<void, DecodeError> => {
  const fault = otherTaskFault("generation_id", asked, generationId)
  return fault === undefined
    ? Effect.void
    : Effect.fail(new DecodeError({ family: "video", what: "video download", message: fault }))
}
