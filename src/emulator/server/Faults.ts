/**
 * Injected faults: their kinds, which transport each applies to, the checks `inject` makes, and the
 * plan a request takes its fault from (its route's queue first, then `*`'s).
 */

/** A fault to inject on a route, consumed one request at a time. */
export type Fault =
  /**
   * Answer with this status (and optional headers/body) instead of handling the request; on a
   * WebSocket route, refuse the upgrade so. A string `body` is sent as it is (`text/plain` unless the
   * fault's headers set a content-type), any other `body` as JSON; without one, the family's error.
   */
  | {
      readonly kind: "status"
      readonly status: number
      readonly headers?: Readonly<Record<string, string>>
      readonly body?: unknown
    }
  /** Destroy the socket before any byte of the response is written (on a WebSocket route, before the upgrade). */
  | { readonly kind: "drop-before" }
  /** Handle the request, but destroy the socket after `afterBytes` bytes of the response body. */
  | { readonly kind: "drop-mid"; readonly afterBytes: number }
  /** For SSE: write the stream up to `afterEvents` events, then stop in the middle of the next event and destroy the socket. */
  | { readonly kind: "sse-cut"; readonly afterEvents: number }
  /** For SSE: write every event except the final one(s), then end the response cleanly. */
  | { readonly kind: "sse-no-final" }
  /**
   * For SSE: write `afterEvents` events, then the route family's own in-stream error event (as
   * upstream sends after HTTP 200), then end the response. `status` picks the error's type as the
   * family's HTTP error would (default: the family's overloaded error, 529 messages-style, 503 the
   * others); `type` overrides that type, `message` the text. A stream of fewer events is unchanged.
   */
  | {
      readonly kind: "sse-error"
      readonly afterEvents: number
      readonly status?: number
      readonly type?: string
      readonly message?: string
    }
  /** For SSE: replace the data of event number `atEvent` with malformed JSON. */
  | { readonly kind: "sse-malformed"; readonly atEvent: number }
  /** Send headers (and, for SSE, `afterEvents` events) then stall: write nothing more until closed. */
  | { readonly kind: "stall"; readonly afterEvents?: number }
  /** For SSE: keep the stream open sending only comments/pings every `everyMs` ms, never data. */
  | { readonly kind: "sse-only-pings"; readonly everyMs: number }
  /** For WebSockets: close the socket with this code after `afterMessages` server messages (1006: end it abruptly). */
  | { readonly kind: "ws-close"; readonly code: number; readonly reason?: string; readonly afterMessages?: number }

/** The `sse-error` fault: an in-stream error after `afterEvents` events. */
export type SseErrorFault = Extract<Fault, { readonly kind: "sse-error" }>

/**
 * How a route is reached: plain HTTP answering JSON or bytes only, HTTP that answers some requests
 * with an event stream (`sse`: chat, messages, …), or a WebSocket upgrade.
 */
export type FaultTransport = "http" | "sse" | "ws"

/** Every fault kind, and those a WebSocket route applies (an HTTP route applies all but `ws-close`). */
export const FAULT_KINDS: ReadonlyArray<Fault["kind"]> = [
  "status",
  "drop-before",
  "drop-mid",
  "sse-cut",
  "sse-no-final",
  "sse-error",
  "sse-malformed",
  "stall",
  "sse-only-pings",
  "ws-close"
]
const WS_KINDS: ReadonlyArray<Fault["kind"]> = ["status", "drop-before", "ws-close"]
/** The kinds only an event stream can apply (`stall` and `drop-mid` apply to any HTTP answer). */
const SSE_KINDS: ReadonlyArray<Fault["kind"]> = [
  "sse-cut",
  "sse-no-final",
  "sse-error",
  "sse-malformed",
  "sse-only-pings"
]

/** Whether a fault of `kind` applies only to an event-stream answer. */
export const streamOnly = (kind: Fault["kind"]): boolean => SSE_KINDS.includes(kind)

/** Whether a route reached over `transport` can apply a fault of `kind`. */
export const appliesTo = (kind: Fault["kind"], transport: FaultTransport): boolean =>
  transport === "ws" ? WS_KINDS.includes(kind) : kind !== "ws-close" && (transport === "sse" || !streamOnly(kind))

const transportNames: Readonly<Record<FaultTransport, string>> = {
  http: "an HTTP route that never streams (every kind but ws-close and the sse-… ones)",
  sse: "an HTTP route (every kind but ws-close)",
  ws: `a WebSocket route (${WS_KINDS.join(", ")})`
}

const isCount = (v: unknown): boolean => typeof v === "number" && Number.isSafeInteger(v) && v >= 0
const isStatus = (v: unknown): boolean => typeof v === "number" && Number.isInteger(v) && v >= 200 && v <= 599
const optional = (v: unknown, ok: (v: unknown) => boolean): boolean => v === undefined || ok(v)
const isString = (v: unknown): boolean => typeof v === "string"
const isHeaders = (v: unknown): boolean =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.values(v).every(isString)

/** What is wrong with `fault` (its kind or a field), or `undefined` when it is well formed. */
export const faultProblem = (fault: unknown): string | undefined => {
  if (typeof fault !== "object" || fault === null) return "a fault must be an object with a `kind`"
  const f = fault as Record<string, unknown>
  const kind = FAULT_KINDS.find((k) => k === f.kind)
  if (kind === undefined)
    return `unknown fault kind ${typeof f.kind === "string" ? JSON.stringify(f.kind) : String(typeof f.kind)} (kinds: ${FAULT_KINDS.join(", ")})`
  const checks: ReadonlyArray<readonly [string, boolean, string]> = (() => {
    switch (kind) {
      case "status":
        return [
          ["status", isStatus(f.status), "an integer from 200 to 599"],
          ["headers", optional(f.headers, isHeaders), "an object of string values"]
        ]
      case "drop-mid":
        return [["afterBytes", isCount(f.afterBytes), "an integer >= 0"]]
      case "sse-cut":
        return [["afterEvents", isCount(f.afterEvents), "an integer >= 0"]]
      case "sse-error":
        return [
          ["afterEvents", isCount(f.afterEvents), "an integer >= 0"],
          ["status", optional(f.status, isStatus), "an integer from 200 to 599"],
          ["type", optional(f.type, isString), "a string"],
          ["message", optional(f.message, isString), "a string"]
        ]
      case "sse-malformed":
        return [["atEvent", isCount(f.atEvent), "an integer >= 0"]]
      case "stall":
        return [["afterEvents", optional(f.afterEvents, isCount), "an integer >= 0"]]
      case "sse-only-pings":
        return [["everyMs", typeof f.everyMs === "number" && f.everyMs >= 1 && f.everyMs <= 2 ** 31 - 1, "ms >= 1"]]
      case "ws-close":
        return [
          [
            "code",
            typeof f.code === "number" &&
              Number.isInteger(f.code) &&
              f.code >= 1000 &&
              f.code <= 4999 &&
              !reservedClose(f.code),
            "a close code that can be sent, or 1006 for an abrupt end (1000-4999 but 1004, 1005 and 1015)"
          ],
          ["reason", optional(f.reason, isString), "a string"],
          ["afterMessages", optional(f.afterMessages, isCount), "an integer >= 0"]
        ]
      case "drop-before":
      case "sse-no-final":
        return []
    }
  })()
  const bad = checks.find(([, ok]) => !ok)
  if (bad !== undefined) return `a "${kind}" fault's \`${bad[0]}\` must be ${bad[2]}`
  const known = ["kind", ...checks.map(([field]) => field), ...(kind === "status" ? ["body"] : [])]
  const unknown = Object.keys(f).find((key) => !known.includes(key))
  return unknown === undefined
    ? undefined
    : `a "${kind}" fault has no field \`${unknown}\` (its fields: ${known.map((k) => `\`${k}\``).join(", ")})`
}

/**
 * Close codes no endpoint may send in a close frame (RFC 6455 §7.4.1), 1006 aside: a `ws-close`
 * fault with 1006 ends the socket abruptly, which the client sees as 1006 (`WsSender`).
 */
const reservedClose = (code: number): boolean => code === 1004 || code === 1005 || code === 1015

/** A fault waiting on a route, as `pendingFaults()` lists it: `times` requests still to take it. */
export interface PendingFault {
  readonly route: string
  readonly fault: Fault
  readonly times: number
}

/** A fault a request took, and how to give it back when its answer cannot apply it. */
export interface TakenFault {
  readonly fault: Fault
  /** Queues the fault again, first on the queue it came from: an event-stream fault a JSON answer took. */
  readonly giveBack: () => void
}

/**
 * Faults queued per route name; each request on the route takes the next one it can apply (its
 * route's first, then `*`'s). A fault a route cannot apply (`ws-close` over HTTP, an SSE fault on a
 * WebSocket or on a route that never streams) stays queued for a route that can; an SSE fault that a
 * request of a streaming route took but answered without a stream (`stream: false`) is given back.
 */
export class FaultPlan {
  private readonly queues = new Map<string, Array<{ readonly fault: Fault; left: number }>>()
  private readonly routes = new Map<string, FaultTransport>()

  /** Declares the routes faults may name, with their transport (the server does, once it knows its routes). */
  setRoutes(routes: ReadonlyArray<readonly [string, FaultTransport]>): void {
    this.routes.clear()
    for (const [name, transport] of routes) this.routes.set(name, transport)
  }

  /** Queues `fault` for the next `times` requests on `route` (`*` matches every route); throws on a mistake. */
  inject(route: string, fault: Fault, times = 1): void {
    const transport = this.routes.get(route)
    if (route !== "*" && transport === undefined)
      throw new Error(
        `inject: unknown route ${JSON.stringify(route)}; the routes are "*", ${[...this.routes.keys()].map((r) => JSON.stringify(r)).join(", ")}`
      )
    const problem = faultProblem(fault)
    if (problem !== undefined) throw new Error(`inject(${JSON.stringify(route)}): ${problem}`)
    if (transport !== undefined && !appliesTo(fault.kind, transport))
      throw new Error(
        `inject(${JSON.stringify(route)}): a "${fault.kind}" fault cannot apply to ${transportNames[transport]}`
      )
    if (!isCount(times))
      throw new Error(`inject(${JSON.stringify(route)}): times must be an integer >= 0, got ${String(times)}`)
    if (times === 0) return
    const q = this.queues.get(route) ?? []
    q.push({ fault, left: times })
    this.queues.set(route, q)
  }

  /** Takes the fault for this request on `route` (its transport as declared), if any. */
  take(route: string): TakenFault | undefined {
    const transport = this.routes.get(route) ?? "sse"
    for (const name of [route, "*"]) {
      const q = this.queues.get(name)
      const i = q === undefined ? -1 : q.findIndex((e) => appliesTo(e.fault.kind, transport))
      if (q === undefined || i < 0) continue
      const entry = q[i]!
      if (--entry.left === 0) q.splice(i, 1)
      if (q.length === 0) this.queues.delete(name)
      return { fault: entry.fault, giveBack: () => this.requeue(name, entry.fault) }
    }
    return undefined
  }

  private requeue(name: string, fault: Fault): void {
    const q = this.queues.get(name) ?? []
    const first = q[0]
    if (first !== undefined && first.fault === fault) first.left++
    else q.unshift({ fault, left: 1 })
    this.queues.set(name, q)
  }

  /** The faults still queued, route by route in queue order. */
  pending(): ReadonlyArray<PendingFault> {
    return [...this.queues].flatMap(([route, q]) => q.map((e) => ({ route, fault: e.fault, times: e.left })))
  }

  clear(): void {
    this.queues.clear()
  }
}
