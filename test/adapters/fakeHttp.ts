/** A scripted fake `HttpClient` for adapter tests: each request takes the next scripted answer and is recorded. */
import { Effect } from "effect"
import { HttpClient, HttpClientError, HttpClientResponse, type HttpClientRequest } from "effect/http"

/** One scripted answer: a web `Response`, a transport failure with a Node-style error code, or no answer ever. */
export type Scripted =
  | {
      readonly status: number
      readonly body?: unknown
      readonly headers?: Record<string, string>
      readonly raw?: BodyInit
      readonly delayMs?: number
    }
  | { readonly fail: string }
  | { readonly hang: true }

export interface Recorded {
  readonly method: string
  readonly url: string
  readonly headers: Record<string, string>
  readonly body: unknown
  readonly signal: AbortSignal
}

export const makeFake = (script: ReadonlyArray<Scripted> | ((n: number, req: Recorded) => Scripted)) => {
  const requests: Array<Recorded> = []
  const next = (req: Recorded): Scripted => {
    const n = requests.length - 1
    if (typeof script === "function") return script(n, req)
    return script[Math.min(n, script.length - 1)]!
  }
  const client = HttpClient.make((request: HttpClientRequest.HttpClientRequest, url, signal) => {
    const body =
      request.body._tag === "Uint8Array" ? JSON.parse(new TextDecoder().decode(request.body.body)) : undefined
    const rec: Recorded = { method: request.method, url: url.toString(), headers: { ...request.headers }, body, signal }
    requests.push(rec)
    const s = next(rec)
    if ("hang" in s) return Effect.never
    if ("fail" in s) {
      const cause = Object.assign(new TypeError("fetch failed"), {
        cause: Object.assign(new Error(s.fail), { code: s.fail })
      })
      return Effect.fail(
        new HttpClientError.HttpClientError({ reason: new HttpClientError.TransportError({ request, cause }) })
      )
    }
    const raw = s.raw ?? (s.body === undefined ? null : JSON.stringify(s.body))
    const response = Effect.sync(() =>
      HttpClientResponse.fromWeb(
        request,
        new Response(raw, { status: s.status, headers: { "content-type": "application/json", ...s.headers } })
      )
    )
    return s.delayMs === undefined ? response : Effect.delay(response, `${s.delayMs} millis`)
  })
  return { client, requests }
}
