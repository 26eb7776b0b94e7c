/**
 * The default `HttpClient` in Node: `node:http`/`node:https` over one keep-alive agent per layer, with
 * nothing on the request path but the exchange itself. Measured against @effect/platform's clients on
 * the same requests (bench/requests.bench.ts), a request through `FetchHttpClient` cost 1.8× raw `fetch`
 * and `NodeHttpClient` 4× raw `node:http` in CPU: they pay for a URL object, an `AbortController`, a
 * span, a `FinalizationRegistry` entry and a web stream per request and per read. Here a request is one
 * `Effect.async`, a body read is one callback loop, and a streamed body hands over every chunk that
 * arrived since the last pull at once. Browsers keep `FetchHttpClient` (package.json `imports`
 * `#umg/http`).
 *
 * It follows no redirect (the transport does, by hand), asks for no compression, and inflates a
 * compressed answer a server sends anyway as it is read, so a byte bound counted by the reader holds
 * after decompression. Trace context is propagated from the current span when a tracer is on.
 */
// Submodules, not the package's index: the index also loads the HTTP API docs UIs (megabytes of strings).
import * as Cookies from "@effect/platform/Cookies"
import type * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpTraceContext from "@effect/platform/HttpTraceContext"
import * as UrlParams from "@effect/platform/UrlParams"
import { Chunk, Context, Effect, FiberRef, Inspectable, Layer, Option, Stream, Tracer } from "effect"
import * as Http from "node:http"
import * as Https from "node:https"
import type { Readable } from "node:stream"
import * as Zlib from "node:zlib"
import * as ByteSource from "./ByteSource.js"
import * as LeanStream from "./LeanStream.js"
import * as LeanClient from "./LeanClient.js"

/** Settings of the connection pool. @category models */
export interface NodeHttpClientOptions {
  /** Idle connections kept per origin for reuse (Node's `maxFreeSockets`). Default 256. */
  readonly maxIdleSockets?: number
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

const headersOf = (message: Http.IncomingMessage): Headers.Headers => {
  const out: Record<string, string> = {}
  const raw = message.headers
  for (const name in raw) {
    const value = raw[name]
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value
  }
  return out as Headers.Headers
}

/** How long a finished reader's body may take to end before its connection is closed (`ByteFlow.finish`). */
const DRAIN_MS = 1_000
/** How much of a finished reader's body is read and dropped at most before its connection is closed. */
const DRAIN_BYTES = 64 * 1024

/** A response over an `IncomingMessage`. Its body is read once, by `stream` or by one of the whole-body reads. */
class NodeResponse extends Inspectable.Class implements HttpClientResponse.HttpClientResponse {
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  readonly [HttpClientResponse.TypeId]: HttpClientResponse.TypeId = HttpClientResponse.TypeId
  readonly status: number
  readonly headers: Headers.Headers
  private readonly body: Readable
  private whole: Uint8Array | undefined

  constructor(
    readonly request: HttpClientRequest.HttpClientRequest,
    private readonly source: Http.IncomingMessage,
    private readonly nodeRequest: Http.ClientRequest
  ) {
    super()
    this.status = source.statusCode ?? 0
    this.headers = headersOf(source)
    const inflater = inflaterFor(this.headers["content-encoding"])
    this.body = inflater === undefined ? source : source.pipe(inflater)
    if (inflater !== undefined) {
      source.on("error", (e) => inflater.destroy(e))
      // A reader that stopped early has let go of the inflater; its late error must not be uncaught.
      inflater.on("error", () => {})
    }
  }

  private fail(cause: unknown, description?: string): HttpClientError.ResponseError {
    return new HttpClientError.ResponseError({
      request: this.request,
      response: this,
      reason: "Decode",
      cause,
      ...(description !== undefined ? { description } : {})
    })
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
    return Option.fromNullable(this.source.socket?.remoteAddress)
  }

  /** The whole body, read once (through `bodySource`) and kept for `arrayBuffer`, `text` and `json`. */
  private get bytes(): Effect.Effect<Uint8Array, HttpClientError.ResponseError> {
    if (this.whole !== undefined) return Effect.succeed(this.whole)
    return Effect.async<Uint8Array, HttpClientError.ResponseError>((resume) => {
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

  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.ResponseError> {
    return Effect.map(this.bytes, (b) => (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b.buffer : b.slice().buffer) as ArrayBuffer)
  }

  get text(): Effect.Effect<string, HttpClientError.ResponseError> {
    return Effect.map(this.bytes, (b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("utf8"))
  }

  get json(): Effect.Effect<unknown, HttpClientError.ResponseError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({ try: () => (text === "" ? null : JSON.parse(text)), catch: (cause) => this.fail(cause) })
    )
  }

  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.ResponseError> {
    return Effect.flatMap(this.text, (text) => Effect.try({ try: () => UrlParams.fromInput(new URLSearchParams(text)), catch: (cause) => this.fail(cause) }))
  }

  get formData(): Effect.Effect<FormData, HttpClientError.ResponseError> {
    return Effect.flatMap(this.bytes, (bytes) =>
      Effect.tryPromise({
        try: () => new Response(Buffer.from(bytes), { headers: this.headers as Record<string, string> }).formData(),
        catch: (cause) => this.fail(cause)
      })
    )
  }

  /** The body as callbacks straight from the socket's events (what the SSE decoder reads). */
  readonly bodySource: ByteSource.ByteSource<HttpClientError.ResponseError> = ByteSource.fromOpen((sink) => this.openBody(sink))

  /** Starts the body into a sink: its listeners, removed (and the connection released) by `close`. */
  private openBody(sink: ByteSource.ByteSink<HttpClientError.ResponseError>): ByteSource.ByteFlow {
    const body = this.body
    let over = false
    const onData = (chunk: Buffer) => void sink.chunk(chunk)
    const onEnd = () => {
      if (over) return
      over = true
      sink.end()
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
    const detach = () => {
      over = true
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
  get stream(): Stream.Stream<Uint8Array, HttpClientError.ResponseError> {
    return ByteSource.withSource(ByteSource.toStream(this.bodySource), this.bodySource)
  }

  toJSON(): unknown {
    return HttpIncomingMessage.inspect(this, { _id: "@effect/platform/HttpClientResponse", request: this.request.toJSON(), status: this.status })
  }
}

/** The bytes of a body sent as it is (the stream and form-data bodies are read whole first, in `make`). */
const bodyBytes = (body: HttpClientRequest.HttpClientRequest["body"]): Uint8Array | string | undefined => {
  switch (body._tag) {
    case "Empty":
      return undefined
    case "Uint8Array":
      return body.body
    case "Raw":
      return typeof body.body === "string" || body.body instanceof Uint8Array ? body.body : JSON.stringify(body.body)
    default:
      return undefined
  }
}

const requestError = (request: HttpClientRequest.HttpClientRequest, cause: unknown, reason: "Transport" | "InvalidUrl" | "Encode" = "Transport") =>
  new HttpClientError.RequestError({ request, reason, cause })

/** The URL of a request, with its URL params and hash applied. */
const urlOf = (request: HttpClientRequest.HttpClientRequest): URL | undefined => {
  try {
    const url = new URL(request.url)
    for (const [key, value] of request.urlParams) url.searchParams.append(key, value)
    if (Option.isSome(request.hash)) url.hash = request.hash.value
    return url
  } catch {
    return undefined
  }
}

/**
 * A client over the given agents.
 * @category constructors
 */
export const make = (agents: { readonly http: Http.Agent; readonly https: Https.Agent }): HttpClient.HttpClient =>
  LeanClient.mark(HttpClient.makeWith<never, never, HttpClientError.HttpClientError, never>(
    (requestEffect) =>
      Effect.flatMap(requestEffect, (request) =>
        Effect.withFiberRuntime<HttpClientResponse.HttpClientResponse, HttpClientError.HttpClientError>((fiber) => {
          const url = urlOf(request)
          if (url === undefined) return Effect.fail(requestError(request, new Error("invalid URL"), "InvalidUrl"))
          const expiry = fiber.getFiberRef(LeanClient.currentExpiry)
          let headers: Record<string, string> = request.headers as Record<string, string>
          if (fiber.getFiberRef(FiberRef.currentTracerEnabled) && fiber.getFiberRef(HttpClient.currentTracerPropagation)) {
            const span = Context.getOption(fiber.currentContext, Tracer.ParentSpan)
            if (Option.isSome(span) && span.value._tag === "Span") headers = { ...headers, ...HttpTraceContext.toHeaders(span.value) }
          }
          const body = request.body
          if (body._tag === "Stream" || body._tag === "FormData") {
            // Rare here (the gateway takes JSON): read the body whole first, then send it as bytes.
            const whole =
              body._tag === "Stream"
                ? Effect.map(Stream.runCollect(body.stream), (chunks) => Buffer.concat(Chunk.toReadonlyArray(chunks)))
                : Effect.promise(() => new Response(body.formData).arrayBuffer().then((b) => Buffer.from(b)))
            return Effect.flatMap(Effect.mapError(whole, (cause) => requestError(request, cause, "Encode")), (bytes) => exchange(agents, request, url, headers, bytes, expiry))
          }
          return exchange(agents, request, url, headers, bodyBytes(body), expiry)
        })
      ),
    Effect.succeed
  ))

/** One exchange: send the request, resolve with the response's head; interrupting destroys the request. */
const exchange = (
  agents: { readonly http: Http.Agent; readonly https: Https.Agent },
  request: HttpClientRequest.HttpClientRequest,
  url: URL,
  headers: Record<string, string>,
  body: Uint8Array | string | undefined,
  expiry: LeanClient.Expiry | undefined
): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.RequestError> =>
  Effect.async<HttpClientResponse.HttpClientResponse, HttpClientError.RequestError>((resume) => {
    const secure = url.protocol === "https:"
    let nodeRequest: Http.ClientRequest
    try {
      nodeRequest = (secure ? Https : Http).request(url, { agent: secure ? agents.https : agents.http, method: request.method, headers })
    } catch (cause) {
      resume(Effect.fail(requestError(request, cause)))
      return
    }
    let settled = false
    // Once settled, the request's listeners must not hold `resume`: it holds the waiting fiber, which
    // would stay in memory (with everything it refers to) as long as the response is open.
    let settle: typeof resume | undefined = resume
    const once = (outcome: Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.RequestError>) => {
      const done = settle
      settled = true
      settle = undefined
      done?.(outcome)
    }
    // A later error (the connection lost while the body is read) reaches the body's reader through the
    // response; this listener only keeps it from being an uncaught 'error' event.
    nodeRequest.on("error", (cause) => {
      if (!settled) once(Effect.fail(requestError(request, cause)))
    })
    nodeRequest.once("response", (message) => once(Effect.succeed(new NodeResponse(request, message, nodeRequest))))
    // Past the time limit the request is destroyed, whether its answer is awaited or being read.
    expiry?.onExpire(() => nodeRequest.destroy(new Error("the time limit passed")))
    nodeRequest.end(body)
    return Effect.sync(() => {
      if (!settled) {
        settled = true
        settle = undefined
        nodeRequest.destroy()
      }
    })
  })

/**
 * The client as a layer; its agents (and their idle connections) live as long as the layer.
 * @category layers
 */
export const layerWith = (options: NodeHttpClientOptions = {}): Layer.Layer<HttpClient.HttpClient> =>
  Layer.scoped(
    HttpClient.HttpClient,
    Effect.map(
      Effect.acquireRelease(
        Effect.sync(() => {
          const settings = { keepAlive: true, maxFreeSockets: options.maxIdleSockets ?? 256, scheduling: "lifo" as const }
          return { http: new Http.Agent(settings), https: new Https.Agent(settings) }
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

/** The default client layer in Node (what `#umg/http` resolves to outside browsers). @category layers */
export const defaultHttpClientLayer: Layer.Layer<HttpClient.HttpClient> = layerWith()
