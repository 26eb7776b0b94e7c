/**
 * The emulator's HTTP and WebSocket server on `node:http`: CORS, request ids, bounded bodies,
 * routing, authentication per family, fault injection and request counting.
 *
 * Counting: `<route>` counts every request that reaches the route's handler (it was authenticated
 * and no `status`/`drop-before` fault stood in for it), so a test can prove a paid action happened
 * exactly once; `<route>.rejected` counts requests turned away before the handler (wrong key,
 * injected `status` or `drop-before`). WebSocket routes count an accepted upgrade as `<route>` and
 * a refused one as `<route>.rejected`. Faults are taken only by authenticated requests.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { Socket } from "node:net"
import type { Duplex } from "node:stream"
import { randomBytes } from "node:crypto"
import { WebSocketServer } from "ws"
import { authenticate, type AuthResult } from "./Auth.js"
import type { EmulatorContext } from "./Context.js"
import { errorBody, familyOfPath, type Family } from "./Family.js"
import { modelsAuth } from "../gateway/Models.js"
import { makeReply } from "./Respond.js"
import type { EmuRequest, Route, WsRoute } from "./Route.js"
import { MAX_JSON_DEPTH, tooDeep } from "./JsonDepth.js"
import { Router } from "./Router.js"
import { makeRateLimiter, RATE_LIMIT_HEADER_NAMES, type RateLimiter } from "./RateLimit.js"

/**
 * Largest request body the emulator reads, per route (the contract shows no maximum request size, so
 * these are the emulator's own, documented in the README): 32 MiB where bodies carry media (text
 * routes with images, video submits, images), 1 MiB for the platform routes and anything read with
 * GET. Larger bodies get 413 in the route family's shape and are never buffered.
 */
export const MAX_BODY_BYTES = 32 * 1024 * 1024
export const MAX_SMALL_BODY_BYTES = 1024 * 1024
const bodyLimitOf = (route: Route, family: Family): number =>
  route.method === "GET" || family === "platform" ? MAX_SMALL_BODY_BYTES : MAX_BODY_BYTES

const LOOPBACK_ORIGIN = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/

/** The `access-control-allow-origin` to answer `origin` with, or none (the page is not allowed). */
const allowedOrigin = (origin: string | undefined, policy: "*" | ReadonlyArray<string>): string | undefined => {
  if (policy === "*") return "*"
  if (origin === undefined) return undefined
  return LOOPBACK_ORIGIN.test(origin) || policy.includes(origin) ? origin : undefined
}

// The request headers a page may send (a fixed list: what a page asks for is never reflected back);
// `b3`/`traceparent`/`tracestate` are the tracing headers @effect/platform's client adds.
const ALLOWED_HEADERS =
  "authorization, content-type, accept, x-api-key, anthropic-version, anthropic-beta, x-vendor-api-key, openai-beta, openai-organization, openai-project, b3, traceparent, tracestate"
const EXPOSED_HEADERS = "request-id, x-request-id, retry-after, retry-after-ms, x-should-retry"

/** A running server. */
export interface EmulatorServer {
  /** Listens on the configured host/port and resolves to the bound port. */
  listen(): Promise<number>
  /** Ends every open response and WebSocket, then stops listening. */
  close(): Promise<void>
}

/** The request target as a URL; a target that is not a valid path (`//`, spaces) reads as `/` so that it 404s. */
const parseTarget = (target: string | undefined): URL => {
  try {
    return new URL(target ?? "/", "http://emulator.local")
  } catch {
    return new URL("/", "http://emulator.local")
  }
}

const newRequestId = (): string => `req_${randomBytes(12).toString("hex")}`

/** Reads the body up to `limit` bytes; resolves `undefined` when it is too large. */
const readBody = (req: IncomingMessage, limit: number): Promise<Buffer | undefined> =>
  new Promise((resolve, reject) => {
    const declared = Number(req.headers["content-length"] ?? "0")
    if (Number.isFinite(declared) && declared > limit) return resolve(undefined)
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.byteLength
      if (size > limit) {
        req.removeAllListeners("data")
        req.pause()
        resolve(undefined)
      } else chunks.push(chunk)
    })
    req.on("end", () => resolve(Buffer.concat(chunks)))
    req.on("error", reject)
  })

const parseJson = (body: Buffer): { json: unknown; jsonError?: string } => {
  if (body.byteLength === 0) return { json: undefined }
  try {
    return { json: JSON.parse(body.toString("utf8")) as unknown }
  } catch (e) {
    return { json: undefined, jsonError: e instanceof Error ? e.message : String(e) }
  }
}

/** The authentication a route needs: the gateway key of its family, or none (platform, public routes). */
const authOf = (
  ctx: EmulatorContext,
  route: Route,
  req: IncomingMessage,
  url: URL,
  family: Family
): AuthResult | undefined => {
  if (route.public === true || family === "platform") return undefined
  if (!(url.pathname.startsWith("/v1/") || url.pathname.startsWith("/v1beta/"))) return undefined
  if (url.pathname === "/v1/models") return modelsAuth(ctx, req.headers, url)
  return authenticate(ctx, req.headers, url, family)
}

/** The headers every answer to `req` carries: CORS, the exposed names, the request id in the family's header. */
const baseHeaders = (
  ctx: EmulatorContext,
  req: IncomingMessage,
  family: Family,
  requestId: string
): Record<string, string> => {
  const idHeader = family === "messages" || family === "count_tokens" ? "request-id" : "x-request-id"
  const allow = allowedOrigin(
    typeof req.headers.origin === "string" ? req.headers.origin : undefined,
    ctx.options.corsOrigins
  )
  return {
    ...(allow === undefined ? {} : { "access-control-allow-origin": allow, vary: "origin" }),
    "access-control-expose-headers": ctx.options.rateLimitHeaders
      ? `${EXPOSED_HEADERS}, ${RATE_LIMIT_HEADER_NAMES.join(", ")}`
      : EXPOSED_HEADERS,
    [idHeader]: requestId
  }
}

/** What the HTTP handler shares across requests. */
interface HttpDeps {
  readonly ctx: EmulatorContext
  readonly router: Router<Route>
  readonly limiter: RateLimiter
}

/** Answers one HTTP request: preflight, routing, body bound, auth, faults, JSON depth, then the route. */
const handleHttp = async (
  { ctx, router, limiter }: HttpDeps,
  req: IncomingMessage,
  res: ServerResponse
): Promise<void> => {
  const url = parseTarget(req.url)
  const family = familyOfPath(url.pathname)
  const requestId = newRequestId()
  const base = baseHeaders(ctx, req, family, requestId)
  const fail = (status: number, message: string, headers: Record<string, string> = {}, body?: unknown): void => {
    if (res.headersSent) return
    const payload = JSON.stringify(body ?? errorBody(family, status, message, { requestId }))
    res.writeHead(status, { ...base, "content-type": "application/json", ...headers })
    res.end(payload)
  }

  if (req.method === "OPTIONS") {
    // A fixed list of allowed headers: requested headers are never reflected back.
    res.writeHead(204, {
      ...base,
      "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
      "access-control-allow-headers": ALLOWED_HEADERS,
      "access-control-max-age": "600"
    })
    return void res.end()
  }

  const found = router.find(req.method, url.pathname)
  if (found.kind === "not-found") return fail(404, `Unknown path: ${req.method ?? "GET"} ${url.pathname}`)
  if (found.kind === "method-not-allowed")
    return fail(405, `Method ${req.method ?? ""} not allowed on ${url.pathname}`, { allow: found.allowed.join(", ") })
  const { route, params } = found

  const limit = bodyLimitOf(route, family)
  const body = await readBody(req, limit)
  if (body === undefined) {
    ctx.counters.increment(`${route.name}.rejected`)
    return fail(413, `Request body larger than ${limit} bytes`, { connection: "close" })
  }

  const auth = authOf(ctx, route, req, url, family)
  if (auth !== undefined && !auth.ok) {
    ctx.counters.increment(`${route.name}.rejected`)
    return fail(auth.status, "", {}, withRequestId(auth.body, family, requestId))
  }

  const fault = ctx.faults.take(route.name)
  if (fault?.kind === "status") {
    ctx.counters.increment(`${route.name}.rejected`)
    return fail(fault.status, `Injected fault: HTTP ${fault.status}`, { ...fault.headers }, fault.body)
  }
  if (fault?.kind === "drop-before") {
    ctx.counters.increment(`${route.name}.rejected`)
    return void req.socket.destroy()
  }

  const parsed = parseJson(body)
  if (parsed.json !== undefined && tooDeep(parsed.json, MAX_JSON_DEPTH)) {
    ctx.counters.increment(`${route.name}.rejected`)
    return fail(400, `Request JSON nests deeper than ${MAX_JSON_DEPTH} levels`)
  }
  ctx.counters.increment(route.name)
  const emuReq: EmuRequest = {
    method: req.method ?? "GET",
    url,
    headers: req.headers,
    body,
    json: parsed.json,
    ...(parsed.jsonError === undefined ? {} : { jsonError: parsed.jsonError }),
    params,
    raw: req,
    requestId,
    ...(auth?.ok === true ? { key: auth.key, profile: auth.profile } : {})
  }
  const headers = route.public === true ? base : { ...base, ...limiter.headers(family, body.byteLength) }
  await route.handle(emuReq, makeReply(res, fault, headers), ctx)
}

/** Answers an HTTP request the handler failed on with the family's 500 (an emulator fault, never a crash). */
const answerCrash = (req: IncomingMessage, res: ServerResponse, e: unknown): void => {
  if (res.headersSent) return void res.destroy()
  res.writeHead(500, { "content-type": "application/json" })
  const family = familyOfPath(parseTarget(req.url).pathname)
  // An emulator fault is the gateway's own internal error: `svc_api_error` in the messages family
  // (an injected 500 stands for an upstream failure, `upstream_error`).
  const details = family === "messages" ? { type: "svc_api_error" } : {}
  res.end(
    JSON.stringify(errorBody(family, 500, `Emulator error: ${e instanceof Error ? e.message : String(e)}`, details))
  )
}

/** Accepts or refuses one WebSocket upgrade, then hands the socket to its route. */
const handleUpgrade = (
  ctx: EmulatorContext,
  wsRouter: Router<WsRoute>,
  wss: WebSocketServer,
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer
): void => {
  // After an upgrade Node no longer listens for socket errors; a reset peer must not crash the emulator.
  socket.on("error", () => socket.destroy())
  const url = parseTarget(req.url)
  const refuse = (status: number, body: unknown): void => {
    const payload = JSON.stringify(body)
    socket.end(
      `HTTP/1.1 ${status} ${status === 404 ? "Not Found" : "Refused"}\r\ncontent-type: application/json\r\n` +
        `content-length: ${Buffer.byteLength(payload)}\r\nconnection: close\r\n\r\n${payload}`
    )
  }
  const found = wsRouter.find(undefined, url.pathname)
  if (found.kind !== "found")
    return refuse(404, errorBody(familyOfPath(url.pathname), 404, `No WebSocket endpoint at ${url.pathname}`))
  const { route, params } = found
  let decision: ReturnType<WsRoute["accept"]>
  try {
    decision = route.accept(req, url, ctx)
  } catch (e) {
    const message = `Emulator error: ${e instanceof Error ? e.message : String(e)}`
    decision = { ok: false, status: 500, body: errorBody(familyOfPath(url.pathname), 500, message) }
  }
  if (!decision.ok) {
    ctx.counters.increment(`${route.name}.rejected`)
    return refuse(decision.status, decision.body)
  }
  wss.handleUpgrade(req, socket, head, (ws) => {
    ctx.counters.increment(route.name)
    try {
      route.handle(ws, req, url, ctx, params)
    } catch {
      ws.close(1011, "emulator error")
    }
  })
}

/** Builds the server for `routes` and `wsRoutes` over `ctx`. */
export const makeServer = (
  ctx: EmulatorContext,
  routes: ReadonlyArray<Route>,
  wsRoutes: ReadonlyArray<WsRoute>
): EmulatorServer => {
  const deps: HttpDeps = { ctx, router: new Router(routes), limiter: makeRateLimiter(ctx) }
  const wsRouter = new Router(wsRoutes)
  const sockets = new Set<Socket | Duplex>()
  const wss = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 })
  const track = (socket: Socket | Duplex): void => {
    sockets.add(socket)
    socket.once("close", () => sockets.delete(socket))
  }

  const server = createServer((req, res) => {
    handleHttp(deps, req, res).catch((e: unknown) => answerCrash(req, res, e))
  })
  server.on("connection", track)
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    track(socket)
    handleUpgrade(ctx, wsRouter, wss, req, socket, head)
  })

  return {
    listen: () =>
      new Promise((resolve, reject) => {
        server.once("error", reject)
        server.listen(ctx.options.port, ctx.options.host, () => {
          const address = server.address()
          resolve(typeof address === "object" && address !== null ? address.port : ctx.options.port)
        })
      }),
    close: () =>
      new Promise((resolve) => {
        for (const ws of wss.clients) ws.terminate()
        for (const socket of sockets) socket.destroy()
        wss.close()
        server.close(() => resolve())
      })
  }
}

/** Adds the request id to a messages-style error body, as the upstream does. */
const withRequestId = (body: unknown, family: Family, requestId: string): unknown =>
  family === "messages" && typeof body === "object" && body !== null ? { ...body, request_id: requestId } : body
