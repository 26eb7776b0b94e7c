/**
 * The emulator's HTTP and WebSocket server on `node:http`: CORS, request ids, bounded bodies,
 * routing, authentication per family, fault injection and request counting.
 *
 * Counting: `<route>` counts every request that reaches the route's handler (it was authenticated
 * and no `status`/`drop-before` fault stood in for it), so a test can prove a paid action happened
 * exactly once; `<route>.rejected` counts requests turned away before the handler (wrong key,
 * injected `status` or `drop-before`). WebSocket routes count an accepted upgrade as `<route>` and
 * a refused one as `<route>.rejected`. Faults are taken only by authenticated requests. HEAD is
 * answered wherever GET is (the same route, status and headers, no body).
 */
import { createServer, STATUS_CODES, type IncomingMessage, type ServerResponse } from "node:http"
import type { Socket } from "node:net"
import type { Duplex } from "node:stream"
import { randomBytes } from "node:crypto"
import { WebSocketServer } from "ws"
import { authenticate, type AuthResult } from "./Auth.js"
import { renewContext, type EmulatorContext } from "./Context.js"
import { allowedOrigin, allowHeaders, EXPOSED_HEADERS } from "./Cors.js"
import type { Fault } from "./Faults.js"
import { errorBody, familyOfPath, type Family, unknownPathMessage } from "./Family.js"
import { modelsAuth } from "../gateway/Models.js"
import { makeReply } from "./Respond.js"
import type { EmuRequest, Route, WsRoute } from "./Route.js"
import { attachWsFault } from "./WsSender.js"
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

/** A running server. */
export interface EmulatorServer {
  /** Listens on the configured host/port and resolves to the bound port. */
  listen(): Promise<number>
  /** Ends every open response and WebSocket, then stops listening. */
  close(): Promise<void>
  /** Forgets all stored state (a new context, see `renewContext`) and returns the context routes now get. */
  reset(): EmulatorContext
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

/** What the handlers share across requests; `ctx` and `limiter` are replaced by a reset. */
interface Deps {
  ctx: EmulatorContext
  limiter: RateLimiter
  readonly router: Router<Route>
  readonly wsRouter: Router<WsRoute>
  readonly wss: WebSocketServer
}

type StatusFault = Extract<Fault, { readonly kind: "status" }>

/**
 * What a `status` fault answers in `family`: a string `body` as it is (`text/plain` unless the fault's
 * headers give a content-type), another `body` as JSON, no `body` the family's error for the status.
 */
const statusFaultAnswer = (
  family: Family,
  fault: StatusFault,
  requestId: string
): { readonly headers: Record<string, string>; readonly payload: string } => {
  const headers = Object.fromEntries(Object.entries(fault.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]))
  if (typeof fault.body === "string")
    return { headers: { "content-type": "text/plain; charset=utf-8", ...headers }, payload: fault.body }
  const body = fault.body ?? errorBody(family, fault.status, `Injected fault: HTTP ${fault.status}`, { requestId })
  return { headers: { "content-type": "application/json", ...headers }, payload: JSON.stringify(body) }
}

/** Answers one HTTP request: preflight, routing, body bound, auth, faults, JSON depth, then the route. */
const handleHttp = async (deps: Deps, req: IncomingMessage, res: ServerResponse): Promise<void> => {
  const { ctx, router, limiter } = deps
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
    const requested = req.headers["access-control-request-headers"]
    res.writeHead(204, {
      ...base,
      "access-control-allow-methods": "GET, HEAD, POST, DELETE, OPTIONS",
      ...("access-control-allow-origin" in base ? { "access-control-allow-headers": allowHeaders(requested) } : {}),
      "access-control-max-age": "600"
    })
    return void res.end()
  }

  // HEAD is GET without the body (node:http leaves the body out of an answer to HEAD).
  const found = router.find(req.method === "HEAD" ? "GET" : req.method, url.pathname)
  if (found.kind === "not-found") return fail(404, unknownPathMessage(req.method ?? "GET", url.pathname))
  if (found.kind === "method-not-allowed") {
    const allowed = found.allowed.flatMap((m) => (m === "GET" ? ["GET", "HEAD"] : [m]))
    return fail(405, `Method ${req.method ?? ""} not allowed on ${url.pathname}`, { allow: allowed.join(", ") })
  }
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

  const taken = ctx.faults.take(route.name)
  const fault = taken?.fault
  if (fault?.kind === "status") {
    ctx.counters.increment(`${route.name}.rejected`)
    const answer = statusFaultAnswer(family, fault, requestId)
    res.writeHead(fault.status, { ...base, ...answer.headers })
    return void res.end(answer.payload)
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
  await route.handle(emuReq, makeReply(res, taken, headers), ctx)
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

/** Writes a refused upgrade's HTTP answer on `socket` and ends it (header values lose any CR/LF). */
const refuseUpgrade = (
  socket: Duplex,
  status: number,
  headers: Readonly<Record<string, string>>,
  payload: string
): void => {
  const all = { "content-type": "application/json", ...headers, "content-length": String(Buffer.byteLength(payload)) }
  const lines = Object.entries(all).map(([k, v]) => `${k}: ${v.replace(/[\r\n]+/g, " ")}\r\n`)
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Refused"}\r\n${lines.join("")}connection: close\r\n\r\n${payload}`
  )
}

/**
 * Accepts or refuses one WebSocket upgrade, then hands the socket to its route. An accepted upgrade
 * takes the route's fault: `status` refuses it, `drop-before` destroys the socket, `ws-close` goes to
 * the socket's sender.
 */
const handleUpgrade = (deps: Deps, req: IncomingMessage, socket: Duplex, head: Buffer): void => {
  const { ctx, wsRouter, wss } = deps
  // After an upgrade Node no longer listens for socket errors; a reset peer must not crash the emulator.
  socket.on("error", () => socket.destroy())
  const url = parseTarget(req.url)
  const family = familyOfPath(url.pathname)
  const refuse = (status: number, body: unknown): void => refuseUpgrade(socket, status, {}, JSON.stringify(body))
  const found = wsRouter.find(undefined, url.pathname)
  if (found.kind !== "found") return refuse(404, errorBody(family, 404, `No WebSocket endpoint at ${url.pathname}`))
  const { route, params } = found
  let decision: ReturnType<WsRoute["accept"]>
  try {
    decision = route.accept(req, url, ctx)
  } catch (e) {
    const message = `Emulator error: ${e instanceof Error ? e.message : String(e)}`
    decision = { ok: false, status: 500, body: errorBody(family, 500, message) }
  }
  if (!decision.ok) {
    ctx.counters.increment(`${route.name}.rejected`)
    return refuse(decision.status, decision.body)
  }
  const fault = ctx.faults.take(route.name)?.fault
  if (fault?.kind === "status" || fault?.kind === "drop-before") {
    ctx.counters.increment(`${route.name}.rejected`)
    if (fault.kind === "drop-before") return void socket.destroy()
    const answer = statusFaultAnswer(family, fault, newRequestId())
    return refuseUpgrade(socket, fault.status, answer.headers, answer.payload)
  }
  wss.handleUpgrade(req, socket, head, (ws) => {
    ctx.counters.increment(route.name)
    attachWsFault(ws, fault)
    try {
      route.handle(ws, req, url, ctx, params)
    } catch {
      ws.close(1011, "emulator error")
    }
  })
}

/** Builds the server for `routes` and `wsRoutes` over `ctx` (and declares their names to its fault plan). */
export const makeServer = (
  ctx: EmulatorContext,
  routes: ReadonlyArray<Route>,
  wsRoutes: ReadonlyArray<WsRoute>
): EmulatorServer => {
  ctx.faults.setRoutes([
    ...routes.map((r) => [r.name, r.streams === true ? "sse" : "http"] as const),
    ...wsRoutes.map((r) => [r.name, "ws"] as const)
  ])
  const deps: Deps = {
    ctx,
    limiter: makeRateLimiter(ctx),
    router: new Router(routes),
    wsRouter: new Router(wsRoutes),
    wss: new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 })
  }
  const sockets = new Set<Socket | Duplex>()
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
    handleUpgrade(deps, req, socket, head)
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
        for (const ws of deps.wss.clients) ws.terminate()
        for (const socket of sockets) socket.destroy()
        deps.wss.close()
        server.close(() => resolve())
      }),
    reset: () => {
      deps.ctx = renewContext(deps.ctx)
      deps.limiter = makeRateLimiter(deps.ctx)
      return deps.ctx
    }
  }
}

/** Adds the request id to a messages-style error body, as the upstream does. */
const withRequestId = (body: unknown, family: Family, requestId: string): unknown =>
  family === "messages" && typeof body === "object" && body !== null ? { ...body, request_id: requestId } : body
