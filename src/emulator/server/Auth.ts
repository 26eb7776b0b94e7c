/**
 * Authentication as the contract says (docs/ARCHITECTURE.md), with each family's own error shape and
 * status for a missing or wrong key.
 */
import type { IncomingHttpHeaders } from "node:http"
import type { EmulatorContext, KeyProfile } from "./Context.js"

export type AuthFamily = "messages" | "count_tokens" | "native" | "openai" | "video"

export type AuthResult =
  | { readonly ok: true; readonly key: string; readonly profile: KeyProfile }
  | { readonly ok: false; readonly status: number; readonly body: unknown }

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const v = headers[name]
  return Array.isArray(v) ? v[0] : v
}

/** The Bearer key of a request, if any. */
export const bearerKey = (headers: IncomingHttpHeaders): string | undefined => {
  const auth = header(headers, "authorization")
  const m = auth === undefined ? null : /^Bearer\s+(.+)$/i.exec(auth.trim())
  return m ? m[1]!.trim() : undefined
}

/** The key a request presents: Bearer everywhere; native content also `x-vendor-api-key` and `?key=`. */
export const presentedKey = (headers: IncomingHttpHeaders, url: URL, family: AuthFamily): string | undefined => {
  const bearer = bearerKey(headers)
  if (bearer !== undefined) return bearer
  if (family === "native") return header(headers, "x-vendor-api-key") ?? url.searchParams.get("key") ?? undefined
  return undefined
}

/** The error body and status of a missing or wrong key, per family. */
export const authFailure = (
  family: AuthFamily,
  missing: boolean
): { readonly status: number; readonly body: unknown } => {
  const what = missing ? "Missing API key" : "Invalid API key"
  switch (family) {
    case "messages":
      return { status: 401, body: { type: "error", error: { type: "authentication_error", message: `${what}.` } } }
    case "count_tokens":
      return { status: 401, body: { error: { message: "Invalid token", type: "invalid_request_error" } } }
    case "native":
      return {
        status: 401,
        body: { error: { code: 401, message: `${what}. Please pass a valid API key.`, status: "UNAUTHENTICATED" } }
      }
    case "openai":
    case "video":
      return {
        status: 401,
        body: { error: { message: `${what}.`, type: "invalid_request_error", param: null, code: "invalid_api_key" } }
      }
  }
}

/** Checks a request's key against the configured keys. */
export const authenticate = (
  ctx: EmulatorContext,
  headers: IncomingHttpHeaders,
  url: URL,
  family: AuthFamily
): AuthResult => {
  const key = presentedKey(headers, url, family)
  if (key === undefined) return { ok: false, ...authFailure(family, true) }
  const profile = ctx.options.keys.get(key)
  if (profile === undefined) return { ok: false, ...authFailure(family, false) }
  return { ok: true, key, profile }
}
