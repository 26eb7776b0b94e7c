/**
 * Text that came from outside (an error page, a close reason, a value that failed its schema) made safe
 * to put into an error: every configured secret replaced, and cut to a bounded length. The one place
 * where that rule lives; every error built from outside text goes through it.
 */

/** The longest outside text an error carries (characters, before the ellipsis). @category models */
export const maxOutsideTextChars = 500

// Shorter "secrets" (an empty password, a one-letter key) would redact ordinary words.
const minSecretChars = 4

/**
 * `text` with every occurrence of every secret replaced by `[redacted]`, then cut to `maxChars`.
 * Redaction runs before the cut, so a secret straddling the cut is never half-shown.
 * @category constructors
 */
export const redactText = (
  text: string,
  secrets: ReadonlyArray<string>,
  maxChars: number = maxOutsideTextChars
): string => {
  let out = text
  for (const secret of secrets) {
    if (secret.length < minSecretChars) continue
    if (out.includes(secret)) out = out.split(secret).join("[redacted]")
  }
  return out.length > maxChars ? `${out.slice(0, maxChars)}…` : out
}
