/**
 * A WebSocket upgrade the gateway refused with an HTTP answer, mapped to the typed error the same
 * answer gets over HTTP. Its body is read up to `limits.maxErrorBodyBytes`, decoded with the family's
 * error envelope (`toAnswerError`), and every secret is redacted.
 */
import type { AnswerError, Family } from "../../core/errors/GatewayError.js"
import { errorOfAnswerText, toAnswerError } from "../../core/wire/ErrorEnvelope.js"

/** What a socket read of a refused upgrade: the answer's headers (names lower-cased) and the start of its body. @category models */
export interface RefusedAnswer {
  readonly headers: Readonly<Record<string, string>>
  /** The body as UTF-8 text, at most `maxErrorBodyBytes` of it. */
  readonly body: string
}

/** Where the default bound comes from when a socket is opened without one (`limits.maxErrorBodyBytes`). @category constants */
export const defaultMaxErrorBodyBytes = 64 * 1024

/**
 * The typed error of a refused upgrade, read as the HTTP transport reads an error answer
 * (`errorOfAnswerText` with `toAnswerError`: the family's envelope first, `retry-after` against
 * `now`, `secrets` redacted). Without an answer (a socket that cannot see it) the status alone is mapped.
 * @category constructors
 */
export const refusedUpgradeError = (options: {
  readonly family: Family
  readonly status: number
  readonly answer: RefusedAnswer | undefined
  readonly secrets: ReadonlyArray<string>
  readonly maxChars: number
  readonly now: number
}): AnswerError => {
  const { family, status, answer, secrets, maxChars, now } = options
  if (answer === undefined) return toAnswerError({ family, status })
  return errorOfAnswerText(
    { family, status, headers: answer.headers, text: answer.body, secrets, maxChars, now },
    toAnswerError
  ).error
}
