/**
 * `umg/emulator`: starts the local gateway emulator and returns its addresses, credentials and the
 * controls tests use (counters, fault injection, virtual time).
 */
import {
  DEFAULT_KEY,
  RESTRICTED_KEY,
  keepContext,
  makeContext,
  type EmulatorOptions,
  type Fault
} from "./server/Context.js"
import { countTokensRoute } from "./text/messages/CountTokens.js"
import { embeddingsRoute } from "./media/Embeddings.js"
import { imagesRoute } from "./media/Images.js"
import { liveRoute } from "./realtime/Live.js"
import { messagesRoute } from "./text/messages/Messages.js"
import { modelsRoute } from "./gateway/Models.js"
import { nativeRoutes } from "./text/native/Native.js"
import { chatRoute } from "./text/chat/OpenAiText.js"
import { platformRoutes } from "./platform/Platform.js"
import { realtimeRoute } from "./realtime/Realtime.js"
import { rerankRoute } from "./media/Rerank.js"
import { responsesRoutes } from "./text/responses/index.js"
import type { PendingFault } from "./server/Faults.js"
import type { Route, WsRoute } from "./server/Route.js"
import { makeServer } from "./server/Server.js"
import { speechRoute } from "./media/Speech.js"
import { videoRoutes } from "./video/Video.js"

export type { EmulatorOptions, Fault, KeyProfile } from "./server/Context.js"
export type { PendingFault } from "./server/Faults.js"
export { DEFAULT_KEY, RESTRICTED_KEY } from "./server/Context.js"

/** A running emulator. */
export interface Emulator {
  /** The gateway `{base_url}`: `http://127.0.0.1:PORT` (endpoints at `url + "/v1/…"`). */
  readonly url: string
  /** The `{platform_url}` (the same server). */
  readonly platformUrl: string
  /** A key with the `full` profile. */
  readonly apiKey: string
  /** A key with the `restricted` profile (the contract's video access outcomes), when one is configured. */
  readonly restrictedKey: string | undefined
  /** Credentials E7 accepts. */
  readonly platform: { readonly username: string; readonly password: string }
  readonly port: number
  /** Request counters by route name (`messages`, `messages.rejected`, …; see Server.ts). */
  readonly counters: {
    get(route: string): number
    snapshot(): Record<string, number>
    reset(): void
  }
  /**
   * Queues `fault` for the next `times` requests on `route` (a route name, or `*` for any). Route
   * names: `models`, `messages`, `count_tokens`, `native.generate`, `native.stream`, `native.embed`,
   * `chat`, `responses` (and `responses.get`, `responses.delete`, `conversations.create`, `.get`,
   * `.delete`), `embeddings`, `rerank`, `speech`, `images`, and the video, platform,
   * `realtime` and `live` routes (see their modules). Throws on an unknown route (naming the routes),
   * a malformed fault, a kind the route cannot apply (WebSocket routes take `status`, `drop-before`
   * and `ws-close`; HTTP routes every other kind) or `times` that is not an integer >= 0.
   */
  inject(route: string, fault: Fault, times?: number): void
  /** The faults still queued, route by route in queue order, with how many requests each still awaits. */
  pendingFaults(): ReadonlyArray<PendingFault>
  clearFaults(): void
  /**
   * Forgets everything stored (prompt cache, stored responses and conversations, video tasks,
   * platform tokens, rate-limit windows), empties the counters and the fault queue: the emulator
   * answers as a fresh one, on the same port with the same keys. The virtual clock keeps its time.
   */
  reset(): void
  /** Moves the virtual clock forward by `ms`, a finite number ≥ 0 (needs `virtualClock: true`); throws otherwise. */
  advanceTime(ms: number): void
  /** Ends open streams and sockets and stops the server. */
  close(): Promise<void>
  /** The emulator clock's time in ms since the epoch: the virtual clock's (`virtualClock: true`), else the system's. */
  now(): number
}

/** Every HTTP route of the emulator. */
const gatewayRoutes = (): ReadonlyArray<Route> => [
  modelsRoute,
  messagesRoute,
  countTokensRoute,
  ...nativeRoutes,
  chatRoute,
  ...responsesRoutes,
  embeddingsRoute,
  rerankRoute,
  speechRoute,
  imagesRoute,
  ...videoRoutes,
  ...platformRoutes
]

/** Every WebSocket route of the emulator. */
const webSocketRoutes = (): ReadonlyArray<WsRoute> => [realtimeRoute, liveRoute]

/** Starts an emulator on loopback (a free port unless `options.port` is set). */
export const startEmulator = async (options: EmulatorOptions = {}): Promise<Emulator> => {
  const ctx = makeContext(options)
  const server = makeServer(ctx, gatewayRoutes(), webSocketRoutes())
  const port = await server.listen()
  const host = ctx.options.host.includes(":") ? `[${ctx.options.host}]` : ctx.options.host
  const url = `http://${host}:${port}`
  ctx.baseUrl = url
  const keys = [...ctx.options.keys.entries()]
  const apiKey = keys.find(([, p]) => p === "full")?.[0] ?? keys[0]?.[0] ?? DEFAULT_KEY
  const restrictedKey =
    keys.find(([, p]) => p === "restricted")?.[0] ?? (ctx.options.keys.has(RESTRICTED_KEY) ? RESTRICTED_KEY : undefined)
  let closed: Promise<void> | undefined
  let current = ctx
  const emulator: Emulator = {
    url,
    platformUrl: url,
    apiKey,
    restrictedKey,
    platform: { username: ctx.options.platform.username, password: ctx.options.platform.password },
    port,
    counters: ctx.counters,
    inject: (route, fault, times) => ctx.faults.inject(route, fault, times),
    pendingFaults: () => ctx.faults.pending(),
    clearFaults: () => ctx.faults.clear(),
    reset: () => {
      current = server.reset()
    },
    advanceTime: (ms) => {
      if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0)
        throw new Error(`advanceTime: ms must be a finite number >= 0, got ${String(ms)}`)
      if (!ctx.clock.advance(ms)) throw new Error("advanceTime needs an emulator started with virtualClock: true")
    },
    close: () => (closed ??= server.close()),
    now: () => current.clock.now()
  }
  keepContext(emulator, () => current)
  return emulator
}
