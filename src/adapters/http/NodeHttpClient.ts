/**
 * umg's `HttpClient` for Node: `effect/http`'s `HttpClient` over `node:http`/`node:https` with one
 * keep-alive agent per layer. Nothing is on the request path but the exchange itself — no span of
 * its own (the call's span is the parent and its trace context is sent), no `AbortController`, no
 * web stream: a request is one `Effect.callback`, a body read is one callback loop, and a streamed
 * body hands over every chunk that arrived since the last pull at once. Browsers use
 * `FetchHttpClient` (package.json `imports` `#umg/http`); any other `HttpClient` may be provided
 * instead (`Gateway.layerWithoutHttpClient`).
 *
 * It follows no redirect (the transport does, by hand), asks for no compression, and inflates a
 * compressed answer a server sends anyway as it is read, so a byte bound counted by the reader
 * holds after decompression. Interrupting a request, or a read of its body, destroys its
 * connection.
 *
 * It goes through an HTTP proxy as Node's own clients do (`HttpProxy.ts`: the environment proxy when Node
 * runs with `NODE_USE_ENV_PROXY=1`), or through the one its `proxy` option names. A failure at the
 * proxy (unreachable, a 407, a refused or never opened tunnel, a proxy's own answer whose `Proxy-Status`
 * says it could not reach the gateway) is a `TransportError` whose cause is a `ProxyFailure` naming the
 * proxy's host and port, never its credentials.
 */
import type { Schema } from "effect"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Inspectable from "effect/Inspectable"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as References from "effect/References"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import { pipeArguments } from "effect/Pipeable"
import type { Socket } from "effect/socket"
import type { HttpClientRequest } from "effect/http"
import * as Cookies from "effect/http/Cookies"
import * as Headers from "effect/http/Headers"
import * as HttpClient from "effect/http/HttpClient"
import * as HttpClientError from "effect/http/HttpClientError"
import * as HttpClientResponse from "effect/http/HttpClientResponse"
import * as HttpIncomingMessage from "effect/http/HttpIncomingMessage"
import * as HttpTraceContext from "effect/http/HttpTraceContext"
import * as Url from "effect/http/Url"
import * as UrlParams from "effect/http/UrlParams"
import * as Http from "node:http"
import * as Https from "node:https"
import type { Readable } from "node:stream"
import * as Zlib from "node:zlib"
import * as ByteSource from "./ByteSource.js"
import * as HttpProxy from "./HttpProxy.js"
import * as ProxyTunnel from "./ProxyTunnel.js"
import * as ConnectProgress from "./ConnectProgress.js"

/** Settings of the connection pool. @category models */
export interface NodeHttpClientOptions {
  /** Idle connections kept per origin for reuse (Node's `maxFreeSockets`). Default 256. */
  readonly maxIdleSockets?: number
  /**
   * How long an idle connection is kept for reuse, in ms (default 15,000). A server that announces a
   * shorter `Keep-Alive: timeout=N` has its connections dropped a second before it would close them,
   * so a request never goes out on a connection the server is closing (a paid submit sent that way
   * could only end `unknown`).
   */
  readonly idleSocketTimeoutMs?: number
  /**
   * The HTTP proxy: not given, the one Node's own clients use (`HTTP_PROXY`, `HTTPS_PROXY` and
   * `NO_PROXY` when Node runs with `NODE_USE_ENV_PROXY=1` or `--use-env-proxy`); a URL
   * (`http://user:password@proxy.corp:3128`) or `{ url, noProxy }`: that proxy; `false`: none. A
   * given proxy needs Node 22.21+ or 24.5+: `layerWith` throws `InvalidRequest` on an older Node, and
   * for a URL that is not an http(s) URL.
   */
  readonly proxy?: HttpProxy.ProxySetting | undefined
}

const inflaterFor = (encoding: string | undefined): Zlib.Gunzip | Zlib.Inflate | Zlib.BrotliDecompress | undefined => {
  switch (encoding?.trim().toLowerCase()) {
    case "gzip":
    case "x-gzip":
      return Zlib.createGunzip()
    case "deflate":
      return Zlib.createInflate()
    case "br":
      return Zlib.createBrotliDecompress()
    default:
      return undefined
  }
}

/** How long a finished reader's body may take to end before its connection is closed (`ByteFlow.finish`). */
const DRAIN_MS = 1_000
/** How much of a finished reader's body is read and dropped at most before its connection is closed. */
const DRAIN_BYTES = 64 * 1024

const clientError = (reason: HttpClientError.HttpClientErrorReason) => new HttpClientError.HttpClientError({ reason })

/** A response over an `IncomingMessage`. Its body is read once, by `stream` or by one of the whole-body reads. */
class NodeResponse extends Inspectable.Class implements HttpClientResponse.HttpClientResponse {
  readonly [HttpIncomingMessage.TypeId]: typeof HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  readonly [HttpClientResponse.TypeId]: typeof HttpClientResponse.TypeId = HttpClientResponse.TypeId
  readonly status: number
  readonly headers: Headers.Headers
  private readonly body: Readable
  private whole: Uint8Array | undefined

  constructor(
    readonly request: HttpClientRequest.HttpClientRequest,
    readonly url: string,
    private readonly source: Http.IncomingMessage,
    private readonly nodeRequest: Http.ClientRequest
  ) {
    super()
    this.status = source.statusCode ?? 0
    this.headers = Headers.fromInput(source.headers)
    const inflater = inflaterFor(this.headers["content-encoding"])
    this.body = inflater === undefined ? source : source.pipe(inflater)
    if (inflater !== undefined) {
      source.on("error", (e) => inflater.destroy(e))
      // A reader that stopped early has let go of the inflater; its late error must not be uncaught.
      inflater.on("error", () => {})
    }
  }

  private fail(cause: unknown, description?: string): HttpClientError.HttpClientError {
    return clientError(
      new HttpClientError.DecodeError({
        request: this.request,
        response: this,
        cause,
        ...(description !== undefined ? { description } : {})
      })
    )
  }

  /** Releases the connection: a body read to its end leaves it to the pool, one abandoned mid-way is closed. */
  private abandon(): void {
    if (!this.source.complete) this.nodeRequest.destroy()
  }

  get cookies(): Cookies.Cookies {
    const header = this.source.headers["set-cookie"]
    return header === undefined ? Cookies.empty : Cookies.fromSetCookie(header)
  }

  get remoteAddress(): Option.Option<string> {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- Node nulls a message's socket internally (its docs say so) though @types/node types it non-null
    return Option.fromNullishOr(this.source.socket?.remoteAddress)
  }

  /** The whole body, read once (through `bodySource`) and kept for `arrayBuffer`, `text` and `json`. */
  private get bytes(): Effect.Effect<Uint8Array, HttpClientError.HttpClientError> {
    if (this.whole !== undefined) return Effect.succeed(this.whole)
    return Effect.callback<Uint8Array, HttpClientError.HttpClientError>((resume) => {
      const parts: Array<Uint8Array> = []
      const flow = this.openBody({
        chunk: (chunk) => void parts.push(chunk),
        end: () => {
          flow.close()
          this.whole = parts.length === 1 ? parts[0]! : Buffer.concat(parts)
          resume(Effect.succeed(this.whole))
        },
        fail: (error) => {
          flow.close()
          resume(Effect.fail(error))
        }
      })
      return Effect.sync(() => flow.close())
    })
  }

  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.HttpClientError> {
    return Effect.map(
      this.bytes,
      (b) => (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b.buffer : b.slice().buffer) as ArrayBuffer
    )
  }

  get text(): Effect.Effect<string, HttpClientError.HttpClientError> {
    return Effect.map(this.bytes, (b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("utf8"))
  }

  get json(): Effect.Effect<Schema.Json, HttpClientError.HttpClientError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({
        try: (): Schema.Json => (text === "" ? null : JSON.parse(text)),
        catch: (cause) => this.fail(cause)
      })
    )
  }

  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.HttpClientError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({ try: () => UrlParams.fromInput(new URLSearchParams(text)), catch: (cause) => this.fail(cause) })
    )
  }

  get formData(): Effect.Effect<FormData, HttpClientError.HttpClientError> {
    return Effect.flatMap(this.bytes, (bytes) =>
      Effect.tryPromise({
        try: () => new Response(Buffer.from(bytes), { headers: { ...this.headers } }).formData(),
        catch: (cause) => this.fail(cause)
      })
    )
  }

  get upgrade(): Effect.Effect<Socket.Socket, HttpClientError.HttpClientError> {
    return Effect.fail(
      clientError(
        new HttpClientError.StatusCodeError({
          request: this.request,
          response: this,
          description: "umg's Node client does not hand over connections"
        })
      )
    )
  }

  /** The body as callbacks straight from the socket's events (what the SSE decoder reads). */
  readonly bodySource: ByteSource.ByteSource<HttpClientError.HttpClientError> = ByteSource.fromOpen((sink) =>
    this.openBody(sink)
  )

  /** `bodySource`, where the transport finds it (`ByteSource.ofBody`) without making a `stream`. */
  get [ByteSource.BodySourceTypeId](): ByteSource.ByteSource<HttpClientError.HttpClientError> {
    return this.bodySource
  }

  /** Starts the body into a sink: its listeners, removed (and the connection released) by `close`. */
  private openBody(sink: ByteSource.ByteSink<HttpClientError.HttpClientError>): ByteSource.ByteFlow {
    const body = this.body
    let over = false
    const onData = (chunk: Buffer) => void sink.chunk(chunk)
    const onEnd = () => {
      if (over) return
      over = true
      // Node frees the connection for the next request on the tick after the body's end: the reader
      // is told then, so that a request it sends at once finds the connection free.
      process.nextTick(() => {
        if (!detached) sink.end()
      })
    }
    const onError = (cause: unknown) => {
      if (over) return
      over = true
      sink.fail(this.fail(cause))
    }
    const onClose = () => {
      if (!this.source.complete) onError(new Error("the connection closed before the answer's end"))
    }
    body.on("data", onData).on("end", onEnd).on("error", onError)
    this.source.on("close", onClose)
    let finished = false
    let detached = false
    const detach = () => {
      over = true
      detached = true
      body.off("data", onData).off("end", onEnd).off("error", onError)
      this.source.off("close", onClose)
    }
    return {
      pause: () => void body.pause(),
      resume: () => void body.resume(),
      close: () => {
        if (finished) return
        detach()
        this.abandon()
      },
      finish: () => {
        if (finished || over) return
        finished = true
        detach()
        this.drain()
      }
    }
  }

  /**
   * Reads what is left of a body nobody wants any more, so that Node's agent keeps the connection:
   * an SSE stream's final event usually comes a moment before the body's end. A body that does not
   * end within `DRAIN_MS` or sends more than `DRAIN_BYTES` meanwhile has its connection closed.
   */
  private drain(): void {
    if (this.source.complete) return
    const body = this.body
    let left = DRAIN_BYTES
    const done = () => {
      clearTimeout(timer)
      body.off("data", onData).off("end", done).off("error", giveUp)
      this.source.off("close", done)
    }
    const giveUp = () => {
      done()
      this.abandon()
    }
    const onData = (chunk: Buffer) => {
      left -= chunk.length
      if (left < 0) giveUp()
    }
    const timer = setTimeout(giveUp, DRAIN_MS)
    timer.unref()
    body.on("data", onData).on("end", done).on("error", giveUp)
    this.source.on("close", done)
    body.resume()
  }

  /** The body as it arrives (`ByteSource.toStream` over `bodySource`, marked with it). */
  get stream(): Stream.Stream<Uint8Array, HttpClientError.HttpClientError> {
    return ByteSource.withSource(ByteSource.toStream(this.bodySource), this.bodySource)
  }

  toJSON(): unknown {
    return HttpIncomingMessage.inspect(this, {
      _id: "HttpClientResponse",
      request: this.request.toJSON(),
      status: this.status
    })
  }

  pipe() {
    // eslint-disable-next-line prefer-rest-params -- `pipeArguments` takes the `IArguments` object, as Effect's own Pipeable classes pass it
    return pipeArguments(this, arguments)
  }
}

/** The bytes of a body sent as it is (the stream and form-data bodies are read whole first, in `execute`). */
const bodyBytes = (body: HttpClientRequest.HttpClientRequest["body"]): Uint8Array | string | undefined => {
  switch (body._tag) {
    case "Uint8Array":
      // A text body (the transport's JSON) is sent as its text: no encoding step here.
      return body.text ?? body.body
    case "Raw":
      return typeof body.body === "string" || body.body instanceof Uint8Array ? body.body : JSON.stringify(body.body)
    default:
      return undefined
  }
}

const transportFailure = (request: HttpClientRequest.HttpClientRequest, cause: unknown) =>
  clientError(new HttpClientError.TransportError({ request, cause }))

/** The request's headers, with the current span's trace context when a tracer is on and propagation is. */
const headersWithTrace = (
  request: HttpClientRequest.HttpClientRequest,
  fiber: { readonly context: Context.Context<never>; getRef<A>(ref: Context.Reference<A>): A }
): Readonly<Record<string, string>> => {
  // Node reads the headers' own keys and copies them: without a trace context they are sent as they are.
  const headers = request.headers
  if (
    !fiber.getRef(References.TracerEnabled) ||
    !fiber.getRef(HttpClient.TracerPropagationEnabled) ||
    fiber.getRef(Tracer.DisablePropagation)
  )
    return headers
  const span = Context.getOption(fiber.context, Tracer.ParentSpan)
  return Option.isSome(span) && span.value._tag === "Span"
    ? { ...headers, ...HttpTraceContext.toHeaders(span.value) }
    : headers
}

type Agents = {
  readonly http: Http.Agent
  readonly https: Https.Agent
  /** The proxy of each protocol's agent, to say where a request failed (none when absent). */
  readonly proxies?: { readonly http: HttpProxy.ProxyPlan; readonly https: HttpProxy.ProxyPlan }
}

/** One request: its URL and headers, its body read whole when it is a stream or form data, then the exchange. */
const execute = (
  agents: Agents,
  request: HttpClientRequest.HttpClientRequest
): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> =>
  Effect.withFiber((fiber) => {
    const url = Url.make(request.url, request.urlParams, Option.getOrUndefined(request.hash))
    if (Result.isFailure(url))
      return Effect.fail(clientError(new HttpClientError.InvalidUrlError({ request, cause: url.failure })))
    const headers = headersWithTrace(request, fiber)
    const progress = Context.getOrUndefined(fiber.context, ConnectProgress.ConnectProgress)
    const body = request.body
    if (body._tag === "Stream" || body._tag === "FormData") {
      // Rare here (the gateway takes JSON): read the body whole first, then send it as bytes.
      const whole =
        body._tag === "Stream"
          ? Effect.map(Stream.runCollect(body.stream), (chunks) => Buffer.concat(chunks))
          : Effect.promise(() => new Response(body.formData).arrayBuffer().then((b) => Buffer.from(b)))
      return Effect.flatMap(
        Effect.mapError(whole, (cause) => clientError(new HttpClientError.EncodeError({ request, cause }))),
        (bytes) => exchange(agents, request, url.success, headers, bytes, progress)
      )
    }
    return exchange(agents, request, url.success, headers, bodyBytes(body), progress)
  })

/**
 * A client over the given agents.
 * @category constructors
 */
export const make = (agents: Agents): HttpClient.HttpClient =>
  HttpClient.makeWith<never, never, HttpClientError.HttpClientError, never>(
    (requestEffect) => Effect.flatMap(requestEffect, (request) => execute(agents, request)),
    Effect.succeed
  )

/** One exchange: send the request, resolve with the response's head; interrupting destroys the request. */
const exchange = (
  agents: Agents,
  request: HttpClientRequest.HttpClientRequest,
  url: URL,
  headers: Readonly<Record<string, string>>,
  body: Uint8Array | string | undefined,
  progress: ConnectProgress.Progress | undefined
): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError> =>
  Effect.callback<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>((resume) => {
    const secure = url.protocol === "https:"
    let nodeRequest: Http.ClientRequest
    // The socket of a CONNECT tunnel still opening is not the request's: destroying the request leaves it.
    let tunnel: { destroy(): void } | undefined
    const options = {
      agent: secure ? agents.https : agents.http,
      method: request.method,
      headers,
      [ProxyTunnel.onTunnelSocket]: (socket: { destroy(): void }) => void (tunnel = socket)
    }
    try {
      nodeRequest = (secure ? Https : Http).request(url, options)
    } catch (cause) {
      resume(Effect.fail(transportFailure(request, cause)))
      return
    }
    let settled = false
    // Once settled, the request's listeners must not hold `resume`: it holds the waiting fiber, which
    // would stay in memory (with everything it refers to) as long as the response is open.
    let settle: typeof resume | undefined = resume
    const once = (outcome: Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>) => {
      const done = settle
      settled = true
      settle = undefined
      done?.(outcome)
    }
    const plan = secure ? agents.proxies?.https : agents.proxies?.http
    if (progress !== undefined)
      ConnectProgress.trackNodeRequest(
        progress,
        plan === undefined ? undefined : HttpProxy.proxyOf(plan, url),
        nodeRequest
      )
    // A later error (the connection lost while the body is read) reaches the body's reader through the
    // response; this listener only keeps it from being an uncaught 'error' event.
    nodeRequest.on("error", (cause) => {
      if (!settled)
        once(Effect.fail(transportFailure(request, plan === undefined ? cause : HttpProxy.failureOf(plan, url, cause))))
    })
    nodeRequest.once("response", (message) => {
      // A 407 to a request sent to the proxy in absolute form is the proxy's, not the gateway's; so is a
      // 5xx whose Proxy-Status says the proxy could not connect to the gateway.
      const refused =
        plan === undefined ? undefined : HttpProxy.refusalOf(plan, url, message.statusCode ?? 0, message.headers)
      if (refused !== undefined) {
        nodeRequest.destroy()
        return once(Effect.fail(transportFailure(request, refused)))
      }
      const href = url.hash === "" ? url.href : url.href.slice(0, url.href.length - url.hash.length)
      once(Effect.succeed(new NodeResponse(request, href, message, nodeRequest)))
    })
    nodeRequest.end(body)
    return Effect.sync(() => {
      if (!settled) {
        settled = true
        settle = undefined
        nodeRequest.destroy()
        tunnel?.destroy()
      }
    })
  })

/**
 * The client as a layer; its agents (and their idle connections) live as long as the layer.
 * @category layers
 */
export const layerWith = (options: NodeHttpClientOptions = {}): Layer.Layer<HttpClient.HttpClient> => {
  HttpProxy.checkSetting(options.proxy)
  return Layer.effect(
    HttpClient.HttpClient,
    Effect.map(
      Effect.acquireRelease(
        Effect.sync((): Agents => {
          const settings = {
            keepAlive: true,
            maxFreeSockets: options.maxIdleSockets ?? 256,
            // Node's agent keeps a free socket this long, or a second less than the server's
            // `Keep-Alive: timeout` hint; with no `timeout` it ignores the hint. In-flight requests
            // are not cut by it: nothing here listens for their sockets' `timeout`.
            timeout: options.idleSocketTimeoutMs ?? 15_000,
            scheduling: "lifo" as const
          }
          // Read when the layer is built, as Node reads its environment proxy when an agent is made.
          const proxies = {
            http: HttpProxy.planFor(options.proxy, "http:"),
            https: HttpProxy.planFor(options.proxy, "https:")
          }
          // `proxyEnv` only when a proxy applies: an agent given one, even empty, costs about 30 µs more
          // per request (Node 24.21, sequential GETs on loopback).
          const via = (plan: HttpProxy.ProxyPlan) => (plan.proxy === undefined ? {} : { proxyEnv: plan.proxyEnv })
          return {
            http: new Http.Agent({ ...settings, ...via(proxies.http) }),
            // Its CONNECT tunnels are umg's (`ProxyTunnel`), not Node's.
            https: HttpProxy.httpsAgent(proxies.https, settings),
            proxies
          }
        }),
        (agents) =>
          Effect.sync(() => {
            agents.http.destroy()
            agents.https.destroy()
          })
      ),
      make
    )
  )
}

/** umg's Node client with the default pool settings. @category layers */
export const layer: Layer.Layer<HttpClient.HttpClient> = layerWith()

/** The default client layer in Node (what `#umg/http` resolves to outside browsers). @category layers */
export const defaultHttpClientLayer: Layer.Layer<HttpClient.HttpClient> = layer

/** The default client through the given proxy (`GatewayConfigInput.proxy`, checked there). @category layers */
export const defaultHttpClientLayerWith = (proxy: HttpProxy.ProxySetting): Layer.Layer<HttpClient.HttpClient> =>
  layerWith({ proxy })
