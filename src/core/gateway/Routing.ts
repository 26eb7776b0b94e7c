/**
 * Which endpoint, and which body shape, a model id goes to: routing is data (an ordered catalog of
 * model-id patterns) that a user extends for new ids, so one family's body never reaches another
 * family's endpoint.
 */
import { Effect, Schema } from "effect"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import * as Rules from "../validation/Rules.js"

/**
 * What a request asks the gateway to do; each capability has one endpoint and one body shape.
 * `countTokens` is the messages family's token counter.
 * @category models
 */
export const Capability = Schema.Literal(
  "messages",
  "countTokens",
  "native",
  "chat",
  "responses",
  "embeddings",
  "rerank",
  "speech",
  "images",
  "video",
  "realtime",
  "live"
)
/** @category models */
export type Capability = typeof Capability.Type

/** The name of a request body's shape, as the per-family builders produce it. @category models */
export const BodyShape = Schema.Literal(
  "messages",
  "count-tokens",
  "native-content",
  "chat",
  "responses",
  "embeddings",
  "rerank",
  "speech",
  "images",
  "video",
  "realtime-v1",
  "realtime-v2",
  "live-setup"
)
/** @category models */
export type BodyShape = typeof BodyShape.Type

/**
 * Where a request goes: the capability served, the transport, HTTP method, endpoint path (with the
 * model filled in where the path carries it), the streaming path where it differs, and the body shape.
 * @category models
 */
export const Route = Schema.Struct({
  model: Schema.String,
  capability: Capability,
  transport: Schema.Literal("http", "websocket"),
  method: Schema.Literal("GET", "POST"),
  path: Schema.String,
  /** The path of the streaming variant (native-content only; other families stream with `stream: true`). */
  streamPath: Schema.optionalWith(Schema.String, { exact: true }),
  shape: BodyShape,
  /** Every capability this model may be sent to, the preferred one first. */
  capabilities: Schema.Array(Capability)
})
/** @category models */
export type Route = typeof Route.Type

/** How a catalog entry matches a model id. @category models */
export type ModelMatch =
  | { readonly exact: string }
  | { readonly prefix: string }
  | { readonly pattern: RegExp }

/**
 * One catalog line: the ids it matches, the capabilities those models may use (the first is the
 * preferred one, `routeFor`'s answer), and for realtime the event style.
 * @category models
 */
export interface RouteEntry {
  readonly match: ModelMatch
  readonly capabilities: readonly [Capability, ...Array<Capability>]
  readonly realtime?: "v1" | "v2"
  /** Why this entry exists, quoted in errors (e.g. "the GPT-5 Pro family is served only by /v1/responses"). */
  readonly note?: string
}

/** An ordered list of entries; the first entry that matches a model id wins. @category models */
export type RouteCatalog = ReadonlyArray<RouteEntry>

/** The capability of a model id nothing in the catalog matches: "other chat models". */
const FALLBACK: RouteEntry = { match: { pattern: /^/ }, capabilities: ["chat", "responses"] }

/**
 * The gateway's routing table (gateway-api.md "Capability routing"), specific entries before general
 * ones. Unknown ids fall back to chat completions (with responses allowed: both are OpenAI shapes).
 * @category catalog
 */
export const defaultRouteCatalog: RouteCatalog = [
  // zeta ids that are not native-content text models come before the `zeta-` prefix.
  { match: { prefix: "zeta-embedding-" }, capabilities: ["embeddings"], note: "zeta embedding models use /v1/embeddings, never the native shape" },
  // The zeta image models: /v1/images/generations preferred; native content with
  // `responseModalities: ["IMAGE"]` and `imageConfig` (E10) works too.
  { match: { exact: "zeta-2.5-flash-image" }, capabilities: ["images", "native"] },
  { match: { exact: "zeta-3-pro-image-preview" }, capabilities: ["images", "native"] },
  { match: { prefix: "zeta-live-" }, capabilities: ["live"] },
  { match: { prefix: "zeta-" }, capabilities: ["native"] },
  { match: { prefix: "epsilon-" }, capabilities: ["messages", "countTokens"] },
  { match: { prefix: "text-embedding-" }, capabilities: ["embeddings"] },
  { match: { prefix: "rerank-" }, capabilities: ["rerank"] },
  { match: { exact: "gpt-4o-mini-tts" }, capabilities: ["speech"] },
  { match: { prefix: "tts-" }, capabilities: ["speech"] },
  { match: { exact: "gpt-realtime-2" }, capabilities: ["realtime"], realtime: "v2" },
  { match: { prefix: "gpt-realtime" }, capabilities: ["realtime"], realtime: "v1" },
  {
    match: { pattern: /^gpt-5(?:\.\d+)?-pro(?:-|$)/ },
    capabilities: ["responses"],
    note: "the GPT-5 Pro family is served only by /v1/responses"
  },
  { match: { pattern: /^(?:gpt-5(?:[.-]|$)|o\d)/ }, capabilities: ["responses", "chat"] },
  { match: { prefix: "alpha-" }, capabilities: ["video"] },
  { match: { prefix: "beta-" }, capabilities: ["video"] },
  { match: { prefix: "gamma" }, capabilities: ["video"] },
  { match: { prefix: "delta-" }, capabilities: ["video"] }
]

/**
 * A catalog with the user's entries in front of the base catalog, so they win over the defaults.
 * @category catalog
 */
export const extendRouteCatalog = (entries: RouteCatalog, base: RouteCatalog = defaultRouteCatalog): RouteCatalog => [
  ...entries,
  ...base
]

/** Options of the routing functions. @category models */
export interface RoutingOptions {
  /** The catalog to route with; `defaultRouteCatalog` when absent. */
  readonly catalog?: RouteCatalog
}

const matches = (match: ModelMatch, model: string): boolean => {
  if ("exact" in match) return model === match.exact
  if ("prefix" in match) return model.startsWith(match.prefix)
  // A user's RegExp may be global/sticky; reset so `test` does not depend on a previous call.
  match.pattern.lastIndex = 0
  return match.pattern.test(model)
}

/** The catalog entry of a model id (the fallback chat entry when nothing matches). @category catalog */
export const entryFor = (model: string, options: RoutingOptions = {}): RouteEntry =>
  (options.catalog ?? defaultRouteCatalog).find((e) => matches(e.match, model)) ?? FALLBACK

// The model id goes into paths as one segment or one query value, so it cannot change the path.
const segment = (model: string): string => encodeURIComponent(model)

/**
 * The native-content (zeta) paths of a model id, kept as given: a thinking suffix
 * (`-thinking-8192`, …) stays in the path because that is where the gateway reads it.
 * @category routing
 */
export const nativePaths = (model: string): { readonly generate: string; readonly stream: string } => ({
  generate: `/v1beta/models/${segment(model)}:generateContent`,
  stream: `/v1beta/models/${segment(model)}:streamGenerateContent?alt=sse`
})

/** The endpoint of a capability for a model; the shape of the body sent there. */
const endpoint = (
  model: string,
  capability: Capability,
  entry: RouteEntry
): Pick<Route, "transport" | "method" | "path" | "shape"> & { readonly streamPath?: string } => {
  switch (capability) {
    case "messages":
      return { transport: "http", method: "POST", path: "/v1/messages", shape: "messages" }
    case "countTokens":
      return { transport: "http", method: "POST", path: "/v1/messages/count_tokens", shape: "count-tokens" }
    case "native":
      return { transport: "http", method: "POST", path: nativePaths(model).generate, streamPath: nativePaths(model).stream, shape: "native-content" }
    case "chat":
      return { transport: "http", method: "POST", path: "/v1/chat/completions", shape: "chat" }
    case "responses":
      return { transport: "http", method: "POST", path: "/v1/responses", shape: "responses" }
    case "embeddings":
      return { transport: "http", method: "POST", path: "/v1/embeddings", shape: "embeddings" }
    case "rerank":
      return { transport: "http", method: "POST", path: "/v1/rerank", shape: "rerank" }
    case "speech":
      return { transport: "http", method: "POST", path: "/v1/audio/speech", shape: "speech" }
    case "images":
      return { transport: "http", method: "POST", path: "/v1/images/generations", shape: "images" }
    case "video":
      return { transport: "http", method: "POST", path: "/v1/video/generations", shape: "video" }
    case "realtime":
      return {
        transport: "websocket",
        method: "GET",
        path: `/v1/realtime?model=${segment(model)}`,
        shape: entry.realtime === "v2" ? "realtime-v2" : "realtime-v1"
      }
    case "live":
      return { transport: "websocket", method: "GET", path: `/ws/v1beta/models/${segment(model)}/liveStream`, shape: "live-setup" }
  }
}

const makeRoute = (model: string, capability: Capability, entry: RouteEntry): Route => ({
  model,
  capability,
  ...endpoint(model, capability, entry),
  capabilities: entry.capabilities
})

/**
 * The preferred route of a model id: capability, endpoint path and body shape. Never fails: an id
 * the catalog does not know is treated as a chat model.
 * @category routing
 */
export const routeFor = (model: string, options: RoutingOptions = {}): Route => {
  const entry = entryFor(model, options)
  return makeRoute(model, entry.capabilities[0], entry)
}

const describeCapability = (capability: Capability, entry: RouteEntry, model: string): string => {
  const e = endpoint(model, capability, entry)
  return `${capability} (${e.path})`
}

/**
 * The route of a model id for one capability, or an `InvalidRequest` on `model` naming the
 * capabilities the model does take (an epsilon model sent to chat, a zeta model to messages, the
 * GPT-5 Pro family to chat: "use responses").
 * @category routing
 */
export const routeForCapability = (
  model: unknown,
  capability: Capability,
  options: RoutingOptions = {}
): Effect.Effect<Route, InvalidRequest> =>
  Effect.flatMap(Rules.string(model, "model", { nonEmpty: true }), (id) => {
    const entry = entryFor(id, options)
    if (entry.capabilities.includes(capability)) return Effect.succeed(makeRoute(id, capability, entry))
    const allowed = entry.capabilities.map((c) => describeCapability(c, entry, id)).join(", ")
    const use = entry.capabilities[0]
    return Rules.fail(
      "model",
      "route",
      `model: ${Rules.describe(id)} cannot be sent to ${describeCapability(capability, entry, id)}${
        entry.note ? `: ${entry.note}` : ""
      }; use ${use}; allowed: ${allowed}`
    )
  })

/**
 * The check adapters run before sending: the same as `routeForCapability` — it fails with an
 * `InvalidRequest` on `model` when the model does not belong to the capability.
 * @category routing
 */
export const ensureRoute: (
  model: unknown,
  capability: Capability,
  options?: RoutingOptions
) => Effect.Effect<Route, InvalidRequest> = routeForCapability
