/**
 * Text that came from outside made safe to put into an error: every configured secret replaced, the
 * password of every URL hidden, and cut to a bounded length. Such text is an error page, a close
 * reason, a value that failed its schema or a database driver's message. The one place where that
 * rule lives; every error built from outside text, and every address shown, goes through it.
 */

/** The longest outside text an error carries (characters, before the ellipsis). @category models */
export const maxOutsideTextChars = 500

// Shorter "secrets" (an empty password, a one-letter key) would redact ordinary words.
const minSecretChars = 4

// `scheme://user:password@` — the user is kept (it names the account), the password is not. As the
// URL parser (and so the PostgreSQL driver) does, the user info ends at the *last* `@` before the
// host, so a password holding an unencoded `@` is hidden whole. The authority, and so the match,
// ends at `/`, `?`, `#`, a space, or a character no URL holds unencoded (`"`, `<`, `>`, a backquote):
// text after the URL (`… failed; mail me@x.y`, the next JSON value) is never taken for a password.
// A password holding such a character before its last `@` is still hidden up to its first `@` (the
// second branch). The user may hold an `@` (`me@corp:pw@host`), as the parser reads it.
const urlPassword = /([a-z][a-z0-9+.-]*:\/\/[^\s:/?#"<>`]*:)(?:[^\s/?#"<>`]*@|[^\s/?#@]*@)/gi

/**
 * `text` with the password of every URL in it (`postgres://umg:s3cret@host/db`) replaced by `***`
 * (`postgres://umg:***@host/db`); the user name and the rest of the URL are kept. The password runs
 * to the last `@` before the host, as the URL parser reads it (`postgres://u:a@b@host` hides `a@b`).
 * @category constructors
 */
export const redactUrlPasswords = (text: string): string =>
  text.includes("://") ? text.replace(urlPassword, "$1***@") : text

/**
 * `text` with every occurrence of every secret replaced by `[redacted]` and every URL's password by
 * `***`, then cut to `maxChars`. Redaction runs before the cut, so a secret straddling the cut is
 * never half-shown.
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
  out = redactUrlPasswords(out)
  return out.length > maxChars ? `${out.slice(0, maxChars)}…` : out
}

/**
 * A host name as a log line, span or metric may show it: `[redacted]` whole when it holds a secret,
 * whatever its case (the URL parser lower-cases a host, and a redirect's host is the server's choice).
 * @category constructors
 */
export const hostShown = (host: string, secrets: ReadonlyArray<string>): string => {
  const lower = host.toLowerCase()
  return secrets.some((secret) => secret.length >= minSecretChars && lower.includes(secret.toLowerCase()))
    ? "[redacted]"
    : host
}

/**
 * `error` with every secret taken out of its text fields (`message`, `requestId`, `type`, the
 * stack, …; each own string property, the object's class kept), or `error` itself when none held
 * one. The last net under every gateway call: text that reached an error by a way no earlier
 * redaction saw (decoded from a JSON escape, a header, a 2xx body, an event) is still hidden.
 * @category constructors
 */
export const redactError = <E>(error: E, secrets: ReadonlyArray<string>): E => {
  if (typeof error !== "object" || error === null) return error
  const names = Object.getOwnPropertyNames(error)
  const held = (value: unknown): value is string =>
    typeof value === "string" && secrets.some((s) => s.length >= minSecretChars && value.includes(s))
  const descriptors = names.map((name) => [name, Object.getOwnPropertyDescriptor(error, name)!] as const)
  if (!descriptors.some(([, d]) => "value" in d && held(d.value))) return error
  const copy = Object.create(Object.getPrototypeOf(error) as object | null) as E & object
  for (const [name, d] of descriptors) {
    if ("value" in d && held(d.value)) d.value = redactText(d.value, secrets, Number.MAX_SAFE_INTEGER)
    Object.defineProperty(copy, name, d)
  }
  return copy
}
