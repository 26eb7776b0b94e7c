/**
 * A WebSocket upgrade the gateway refused with an HTTP answer, mapped to the typed error the same
 * answer gets over HTTP. Its body is read up to `limits.maxErrorBodyBytes`, decoded with the family's
 * error envelope (`toAnswerError`), and every secret is redacted.
 */
import { redactError, redactText } from "../../core/errors/Redact.js"
import type { AnswerError, Family } from "../../core/errors/GatewayError.js"
import { toAnswerError } from "../../core/wire/ErrorEnvelope.js"

/** What a socket read of a refused upgrade: the answer's headers (names lower-cased) and the start of its body. @category models */
export interface RefusedAnswer {
  readonly headers: Readonly<Record<string, string>>
  /** The body as UTF-8 text, at most `maxErrorBodyBytes` of it. */
  readonly body: string
}

/** Where the default bound comes from when a socket is opened without one (`limits.maxErrorBodyBytes`). @category constants */
export const defaultMaxErrorBodyBytes = 64 * 1024

/**
 * The typed error of a refused upgrade, read as the HTTP transport reads an error answer: the text
 * redacted of `secrets` and cut to `maxChars`, parsed when it is JSON, mapped by `toAnswerError`
 * (the family's envelope first; `retry-after` against `now`), then redacted again (a secret written
 * with JSON escapes is only whole once parsed, and the request id comes from a header). Without an
 * answer (a socket that cannot see it) the status alone is mapped.
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
  const { family, status, answer, secrets, now } = options
  if (answer === undefined) return toAnswerError({ family, status })
  const text = redactText(answer.body, secrets, options.maxChars)
  let body: unknown = text
  try {
    body = text === "" ? undefined : JSON.parse(text)
  } catch {
    // Not JSON: the mapping gets the text.
  }
  return redactError(toAnswerError({ family, status, headers: answer.headers, body, now }), secrets)
}
