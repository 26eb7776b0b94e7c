/**
 * The contract between the emulator's server and its routes: a parsed request, the reply helpers a
 * route writes with (they apply injected faults), and HTTP and WebSocket route descriptions.
 */
import type { IncomingHttpHeaders, IncomingMessage } from "node:http"
import type { WebSocket } from "ws"
import type { EmulatorContext, Fault, KeyProfile, SseErrorFault } from "./Context.js"

/** A request as routes see it: the body is read whole (bounded) before the route runs. */
export interface EmuRequest {
  readonly method: string
  readonly url: URL
  readonly headers: IncomingHttpHeaders
  readonly body: Buffer
  /** The body parsed as JSON; `undefined` when empty or not JSON (see `jsonError`). */
  readonly json: unknown
  /** Why the body is not JSON, when it is not empty and fails to parse. */
  readonly jsonError?: string
  /** Path parameters captured by the route pattern (`{task_id}` → `params.task_id`). */
  readonly params: Readonly<Record<string, string>>
  readonly raw: IncomingMessage
  /** The key the server authenticated the request with (absent on routes it does not authenticate, e.g. platform). */
  readonly key?: string
  /** That key's profile. */
  readonly profile?: KeyProfile
  /** The id the server put in this response's `request-id` / `x-request-id` header. */
  readonly requestId?: string
}

/** One SSE event as written: its `event:` name (undefined: a data-only event) and its data. */
export interface SseEvent {
  readonly name: string | undefined
  readonly data: string
}

/** How an SSE response frames its events and, for an `sse-error` fault, its family's error event. */
export interface SseOptions {
  /** `\n` (default) or `\r\n` line ends (native content uses `\r\n\r\n`). */
  readonly lineEnd?: "\n" | "\r\n"
  /** The family's in-stream error event; default the OpenAI-style data-only `{"error": {…}}`. */
  readonly errorEvent?: (fault: SseErrorFault) => SseEvent
}

/** An open SSE response. `event` writes one event; `end` finishes the response. */
export interface SseWriter {
  /** Writes one event; `name` undefined writes a data-only event. Resolves when written (honours pacing and faults). */
  event(name: string | undefined, data: string): Promise<void>
  /** Writes a comment line (`: text`). */
  comment(text: string): Promise<void>
  /** Marks the following events as the stream's final ones (so `sse-no-final` can leave them out). */
  final(): void
  /** Ends the response. */
  end(): void
  /** True once the client went away; a route stops producing then. */
  readonly closed: boolean
}

/** How a route answers. Every method applies the fault injected for this request, if any. */
export interface Reply {
  json(status: number, body: unknown, headers?: Readonly<Record<string, string>>): void
  bytes(status: number, contentType: string, body: Uint8Array, headers?: Readonly<Record<string, string>>): void
  sse(headers?: Readonly<Record<string, string>>, options?: SseOptions): SseWriter
  /** The fault injected for this request, if the route wants to apply it itself. */
  readonly fault: Fault | undefined
}

export interface Route {
  /** Counter and fault name, e.g. `messages`, `video.submit`, `platform.token`. */
  readonly name: string
  readonly method: "GET" | "POST" | "DELETE"
  /** Path pattern with `{param}` segments, e.g. `/v1/video/generations/{task_id}`. Matched exactly. */
  readonly path: string
  /**
   * Served without a gateway key (e.g. a video file a `<video>` element loads). By default the server
   * authenticates every `/v1/…` and `/v1beta/…` route with its family's rules before the route runs.
   */
  readonly public?: boolean
  /** Answers some requests with an event stream (`reply.sse`): the routes an `sse-…` fault may name. */
  readonly streams?: boolean
  readonly handle: (req: EmuRequest, reply: Reply, ctx: EmulatorContext) => void | Promise<void>
}

/** The answer to a WebSocket upgrade request: accept, or refuse with an HTTP status and JSON body. */
export type UpgradeDecision =
  { readonly ok: true } | { readonly ok: false; readonly status: number; readonly body: unknown }

export interface WsRoute {
  readonly name: string
  /** Path pattern as for `Route.path`. */
  readonly path: string
  readonly accept: (req: IncomingMessage, url: URL, ctx: EmulatorContext) => UpgradeDecision
  readonly handle: (
    ws: WebSocket,
    req: IncomingMessage,
    url: URL,
    ctx: EmulatorContext,
    params: Readonly<Record<string, string>>
  ) => void
}
