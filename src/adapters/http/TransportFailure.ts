/**
 * Tells a connection that was never made from one lost after sending, by reading the error codes
 * `fetch` implementations put in their `cause` chains. Never made (refused, unresolvable): the gateway
 * cannot have seen the request; lost after sending (reset, terminated): it may have acted.
 */
import { proxyFailureIn } from "./ProxyFailure.js"

/** `connect`: the request never left; `reset`: it may have reached the gateway. @category models */
export type TransportKind = "connect" | "reset"

// Codes meaning no connection was ever established, so no byte of the request was sent.
const NEVER_CONNECTED = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EADDRNOTAVAIL",
  "UND_ERR_CONNECT_TIMEOUT",
  "ETIMEDOUT connect"
])

/** An error's own `code` (`ECONNRESET`, `ERR_PROXY_TUNNEL`, …), when it has one. @category getters */
export const errorCode = (error: unknown): string | undefined => {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined
  return typeof code === "string" ? code : undefined
}

/**
 * An error's code as this reading tells them apart: `ETIMEDOUT` from `connect(2)` (the connection never
 * made) is `ETIMEDOUT connect`; from a read or a write, on a connection made, it stays `ETIMEDOUT`.
 */
const codeOf = (error: object): string | undefined => {
  const code = errorCode(error)
  return code === "ETIMEDOUT" && (error as { syscall?: unknown }).syscall === "connect" ? "ETIMEDOUT connect" : code
}

/** Whether `error` itself (not its causes) says its connection was never made. @category predicates */
export const neverConnected = (error: unknown): boolean => {
  const code = typeof error === "object" && error !== null ? codeOf(error) : undefined
  return code !== undefined && NEVER_CONNECTED.has(code)
}

const codesOf = (error: unknown, depth = 0): Array<string> => {
  if (depth > 5 || typeof error !== "object" || error === null) return []
  const out: Array<string> = []
  const code = codeOf(error)
  if (code !== undefined) out.push(code)
  const errors = (error as { errors?: unknown }).errors
  if (Array.isArray(errors)) for (const e of errors) out.push(...codesOf(e, depth + 1))
  out.push(...codesOf((error as { cause?: unknown }).cause, depth + 1))
  return out
}

/**
 * The kind of a transport failure; anything not proven `connect` is `reset`, the safe answer for
 * requests that must not be repeated.
 * @category decisions
 */
export const classifyTransport = (error: unknown): TransportKind => {
  // A proxy that refused to carry the request (a 407, a refused tunnel) never passed it on.
  if (proxyFailureIn(error)?.problem === "refused") return "connect"
  const codes = codesOf(error)
  return codes.length > 0 && codes.every((c) => NEVER_CONNECTED.has(c)) ? "connect" : "reset"
}
