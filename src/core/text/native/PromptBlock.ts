/**
 * The native stream's failure on a blocked prompt, named once: the message `stepNative` gives it and
 * the way back to its block reason. The frameworks' providers end such a stream as a filtered answer;
 * this module is not part of umg's public API.
 */
import type { IncompleteStream } from "../../errors/GatewayError.js"

/** The message of a stream failed on a blocked prompt. @category constructors */
export const blockedMessage = (blockReason: string): string => `the prompt was blocked: ${blockReason}`

/**
 * The block reason (`SAFETY`, …) of a stream `stepNative` failed because its prompt was blocked, or
 * `undefined` for any other failure.
 * @category getters
 */
export const promptBlockReason = (error: IncompleteStream): string | undefined =>
  error.family === "native" &&
  error.reason === "error-event" &&
  error.errorType !== undefined &&
  error.message === blockedMessage(error.errorType)
    ? error.errorType
    : undefined
