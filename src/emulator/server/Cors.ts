/**
 * CORS for the emulator: which page origins may call it (loopback unless widened) and which request
 * headers a preflight allows (the fixed list plus the well-formed names the page asks for).
 */

const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/

/** The `access-control-allow-origin` to answer `origin` with, or none (the page is not allowed). */
export const allowedOrigin = (origin: string | undefined, policy: "*" | ReadonlyArray<string>): string | undefined => {
  if (policy === "*") return "*"
  if (origin === undefined) return undefined
  return LOOPBACK_ORIGIN.test(origin) || policy.includes(origin) ? origin : undefined
}

// Allowed whatever a preflight asks: the gateway's and the official SDKs' headers, and
// `b3`/`traceparent`/`tracestate`, the tracing headers @effect/platform's client adds.
const FIXED_HEADERS = [
  "authorization",
  "content-type",
  "accept",
  "x-api-key",
  "x-vendor-api-key",
  "x-goog-api-key",
  "x-goog-api-client",
  "anthropic-version",
  "anthropic-beta",
  "anthropic-dangerous-direct-browser-access",
  "openai-beta",
  "openai-organization",
  "openai-project",
  "b3",
  "traceparent",
  "tracestate"
]

/** A header name as RFC 9110 writes one (a token), of a sane length. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9a-z-]{1,64}$/
/** At most this many requested names are allowed back; a preflight asking for more gets the first ones. */
const MAX_REQUESTED = 64

/**
 * The `access-control-allow-headers` of a preflight from an allowed origin: the fixed list plus each
 * well-formed name in `requested` (`access-control-request-headers`), as permissive APIs answer, so
 * that SDKs' own headers (`x-stainless-*`, `x-goog-api-client`, …) pass. Malformed or overlong names
 * are left out, so nothing but header names is ever echoed.
 */
export const allowHeaders = (requested: string | undefined): string => {
  const names = new Set(FIXED_HEADERS)
  const asked = (requested ?? "").split(",").slice(0, MAX_REQUESTED)
  for (const raw of asked) {
    const name = raw.trim().toLowerCase()
    if (HEADER_NAME.test(name)) names.add(name)
  }
  return [...names].join(", ")
}

export const EXPOSED_HEADERS = "request-id, x-request-id, retry-after, retry-after-ms, x-should-retry"
