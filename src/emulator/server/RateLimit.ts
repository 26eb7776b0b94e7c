/**
 * Rate-limit headers on the OpenAI-style and messages-style answers, when started with `rateLimitHeaders`.
 * Off by default: the contract does not show the gateway's rate-limit values. OpenAI-style routes
 * get `x-ratelimit-*`, messages-style ones `anthropic-ratelimit-*`, counted in a one-minute window
 * per family on the emulator's clock (tokens estimated from the body size).
 */
import type { EmulatorContext } from "./Context.js"
import type { Family } from "./Family.js"

/** The window's limits. */
export const RATE_LIMITS = { requests: 1000, tokens: 1_000_000, windowMs: 60_000 } as const

/** Every header name this module may write (for `access-control-expose-headers`). */
export const RATE_LIMIT_HEADER_NAMES = [
  ...["requests", "tokens"].flatMap((k) => [
    `x-ratelimit-limit-${k}`,
    `x-ratelimit-remaining-${k}`,
    `x-ratelimit-reset-${k}`
  ]),
  ...["requests", "tokens", "input-tokens", "output-tokens"].flatMap((k) => [
    `anthropic-ratelimit-${k}-limit`,
    `anthropic-ratelimit-${k}-remaining`,
    `anthropic-ratelimit-${k}-reset`
  ])
]

interface Window {
  start: number
  requests: number
  tokens: number
}

/** Counts requests per family and writes their headers; one per server. */
export interface RateLimiter {
  /** Counts a request of `bodyBytes` on `family` and returns the headers to answer it with (none when off). */
  headers(family: Family, bodyBytes: number): Record<string, string>
}

export const makeRateLimiter = (ctx: EmulatorContext): RateLimiter => {
  const windows = new Map<Family, Window>()
  return {
    headers: (family, bodyBytes) => {
      const style =
        family === "openai" ? "openai" : family === "messages" || family === "count_tokens" ? "messages" : undefined
      if (!ctx.options.rateLimitHeaders || style === undefined) return {}
      const now = ctx.clock.now()
      let w = windows.get(family)
      if (w === undefined || now - w.start >= RATE_LIMITS.windowMs) {
        w = { start: now, requests: 0, tokens: 0 }
        windows.set(family, w)
      }
      w.requests++
      w.tokens += Math.ceil(bodyBytes / 4)
      const requests = String(Math.max(0, RATE_LIMITS.requests - w.requests))
      const tokens = String(Math.max(0, RATE_LIMITS.tokens - w.tokens))
      const resetIn = Math.max(0, w.start + RATE_LIMITS.windowMs - now)
      if (style === "openai") {
        const reset = `${Math.ceil(resetIn / 1000)}s`
        return {
          "x-ratelimit-limit-requests": String(RATE_LIMITS.requests),
          "x-ratelimit-remaining-requests": requests,
          "x-ratelimit-reset-requests": reset,
          "x-ratelimit-limit-tokens": String(RATE_LIMITS.tokens),
          "x-ratelimit-remaining-tokens": tokens,
          "x-ratelimit-reset-tokens": reset
        }
      }
      const reset = new Date(now + resetIn).toISOString().replace(/\.\d{3}Z$/, "Z")
      const out: Record<string, string> = {
        "anthropic-ratelimit-requests-limit": String(RATE_LIMITS.requests),
        "anthropic-ratelimit-requests-remaining": requests,
        "anthropic-ratelimit-requests-reset": reset
      }
      for (const k of ["tokens", "input-tokens", "output-tokens"]) {
        out[`anthropic-ratelimit-${k}-limit`] = String(RATE_LIMITS.tokens)
        out[`anthropic-ratelimit-${k}-remaining`] = k === "output-tokens" ? String(RATE_LIMITS.tokens) : tokens
        out[`anthropic-ratelimit-${k}-reset`] = reset
      }
      return out
    }
  }
}
