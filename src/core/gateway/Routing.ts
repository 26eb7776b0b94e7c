/**
 * Which endpoint, and which body shape, a model id goes to: routing is data (an ordered catalog of
 * model-id patterns) that a user extends for new ids, so one family's body never reaches another
 * family's endpoint.
 */
import { Effect, Schema } from "effect"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import * as Rules from "../validation/Rules.js"
import { videoFamilyFromPrefix, videoModels } from "../video/VideoCatalog.js"

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
  /**
   * The ids of this entry the gateway is known to serve. Another id the entry matches has a family but
   * is unknown: refused unless `allowUnknownModels`. Without a list, every id the entry matches is known
   * (an exact entry, or a user's entry for a new family of ids).
   */
  readonly models?: ReadonlyArray<string>
}

/** An ordered list of entries; the first entry that matches a model id wins. @category models */
export type RouteCatalog = ReadonlyArray<RouteEntry>

/** The entry of a model id nothing in the catalog matches: no family, no known model. */
const FALLBACK: RouteEntry = { match: { pattern: /^/ }, capabilities: ["chat", "responses"] }

const videoIds = (prefix: string): ReadonlyArray<string> => Object.keys(videoModels).filter((id) => videoFamilyFromPrefix(id) !== undefined && id.startsWith(prefix))

/**
 * The gateway's model catalog (gateway-api.md "Capability routing" and the model ids of E1, E8, E10–E16):
 * every known model id with the capabilities it may use, specific entries before general ones. The one
 * list of model ids: realtime styles and video ids are read from here too (video limits per id live in
 * `VideoCatalog`, keyed by the same ids).
 * @category catalog
 */
export const defaultRouteCatalog: RouteCatalog = [
  {
    match: { prefix: "zeta-embedding-" },
    capabilities: ["embeddings"],
    models: ["zeta-embedding-001"],
    note: "zeta embedding models use /v1/embeddings, never the native shape"
  },
  { match: { exact: "zeta-2.5-flash-image" }, capabilities: ["images", "native"] },
  { match: { exact: "zeta-3-pro-image-preview" }, capabilities: ["images", "native"] },
  { match: { prefix: "zeta-live-" }, capabilities: ["live"], models: ["zeta-live-2.5-flash-native-audio"] },
  { match: { prefix: "zeta-" }, capabilities: ["native"], models: ["zeta-2.5-pro", "zeta-2.5-flash", "zeta-2.5-flash-lite", "zeta-3-pro-preview"] },
  {
    match: { prefix: "epsilon-" },
    capabilities: ["messages", "countTokens"],
    models: [
      "epsilon-opus-4-5-20251101",
      "epsilon-haiku-4-5-20251001",
      "epsilon-sonnet-4-5-20250929",
      "epsilon-opus-4-1-20250805",
      "epsilon-sonnet-4-20250514",
      "epsilon-3-haiku-20240307"
    ]
  },
  {
    match: { prefix: "text-embedding-" },
    capabilities: ["embeddings"],
    models: ["text-embedding-3-small", "text-embedding-3-large", "text-embedding-ada-002"]
  },
  { match: { prefix: "rerank-" }, capabilities: ["rerank"], models: ["rerank-v1"] },
  { match: { exact: "gpt-4o-mini-tts" }, capabilities: ["speech"] },
  { match: { prefix: "tts-" }, capabilities: ["speech"], models: ["tts-1", "tts-1-hd"] },
  { match: { exact: "gpt-realtime-2" }, capabilities: ["realtime"], realtime: "v2" },
  { match: { prefix: "gpt-realtime" }, capabilities: ["realtime"], realtime: "v1", models: ["gpt-realtime", "gpt-realtime-mini"] },
  {
    match: { pattern: /^gpt-5(?:\.\d+)?-pro(?:-|$)/ },
    capabilities: ["responses"],
    models: ["gpt-5-pro"],
    note: "the GPT-5 Pro family is served only by /v1/responses"
  },
  { match: { pattern: /^(?:gpt-5(?:[.-]|$)|o\d)/ }, capabilities: ["responses", "chat"], models: ["gpt-5", "o3", "o4-mini"] },
  { match: { pattern: /^(?:gpt-4|gpt-3\.5|chatgpt-)/ }, capabilities: ["chat", "responses"], models: ["gpt-4.1", "gpt-4o", "gpt-4o-mini"] },
  { match: { prefix: "alpha-" }, capabilities: ["video"], models: videoIds("alpha-") },
  { match: { prefix: "beta-" }, capabilities: ["video"], models: videoIds("beta-") },
  { match: { prefix: "gamma" }, capabilities: ["video"], models: videoIds("gamma") },
  { match: { prefix: "delta-" }, capabilities: ["video"], models: videoIds("delta-") }
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
  /**
   * Accept model ids the catalog does not list (for a gateway newer than umg). A model of another
   * family is still refused; an id with no known family may go to any capability. Default false.
   */
  readonly allowUnknownModels?: boolean
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

// An entry without a `models` list vouches for every id it matches (an exact entry, or a user's own).
const listsModel = (entry: RouteEntry, model: string): boolean => entry.models === undefined || entry.models.includes(model)

/** Whether the catalog lists a model id as one the gateway serves. @category catalog */
export const isKnownModel = (model: string, options: RoutingOptions = {}): boolean => {
  const entry = entryFor(model, options)
  return entry !== FALLBACK && listsModel(entry, model)
}

/** The model ids the catalog lists for a capability, in catalog order. @category catalog */
export const knownModels = (capability: Capability, options: RoutingOptions = {}): ReadonlyArray<string> => {
  const out: Array<string> = []
  for (const entry of options.catalog ?? defaultRouteCatalog) {
    if (!entry.capabilities.includes(capability)) continue
    const ids = "exact" in entry.match ? [entry.match.exact] : (entry.models ?? [])
    for (const id of ids) if (!out.includes(id) && entryFor(id, options) === entry) out.push(id)
  }
  return out
}

/** The realtime event style of every realtime model the catalog lists. @category catalog */
export const realtimeStyles = (options: RoutingOptions = {}): Readonly<Record<string, "v1" | "v2">> => {
  const out: Record<string, "v1" | "v2"> = Object.create(null)
  for (const id of knownModels("realtime", options)) out[id] = entryFor(id, options).realtime ?? "v1"
  return out
}

/** What a capability's models are called in errors ("a rerank model"). */
const familyNames: Readonly<Record<Capability, string>> = {
  messages: "an epsilon (messages-style) model",
  countTokens: "an epsilon (messages-style) model",
  native: "a zeta (native-content) model",
  chat: "a chat model",
  responses: "a responses model",
  embeddings: "an embedding model",
  rerank: "a rerank model",
  speech: "a speech model",
  images: "an image model",
  video: "a video model",
  realtime: "a realtime model",
  live: "a live model"
}

const familyOf = (model: string, entry: RouteEntry): string => {
  const first = entry.capabilities[0]
  if (first === "video") {
    const family = videoFamilyFromPrefix(model)
    return family === undefined ? familyNames.video : `a ${family} video model`
  }
  if (first === "images" && entry.capabilities.includes("native")) return "a zeta image model"
  return familyNames[first]
}

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
  return `${capability} (${e.method} ${e.path})`
}

/**
 * The route of a model id for one capability, or an `InvalidRequest` on `model`: a model of another
 * family names the family it belongs to and the endpoint that serves it (an epsilon model sent to
 * chat, a rerank model to embeddings, the GPT-5 Pro family to chat: "use responses"); an id the
 * catalog does not list is refused with the known models of the capability, unless
 * `allowUnknownModels`.
 * @category routing
 */
export const routeForCapability = (
  model: unknown,
  capability: Capability,
  options: RoutingOptions = {}
): Effect.Effect<Route, InvalidRequest> =>
  Effect.flatMap(Rules.string(model, "model", { nonEmpty: true }), (id) => {
    const entry = entryFor(id, options)
    const unknownId = (): Effect.Effect<never, InvalidRequest> => {
      const known = knownModels(capability, options)
      return Rules.fail(
        "model",
        "unknown-model",
        `model: ${Rules.describe(id)} is not a model umg knows for ${describeCapability(capability, entry, id)}; known: ${
          known.length > 0 ? known.join(", ") : "none"
        }; for a model newer than umg's catalog pass allowUnknownModels: true`
      )
    }
    if (entry === FALLBACK) {
      return options.allowUnknownModels === true ? Effect.succeed(makeRoute(id, capability, { ...entry, capabilities: [capability] })) : unknownId()
    }
    if (entry.capabilities.includes(capability)) {
      if (!listsModel(entry, id) && options.allowUnknownModels !== true) return unknownId()
      return Effect.succeed(makeRoute(id, capability, entry))
    }
    const served = entry.capabilities.map((c) => describeCapability(c, entry, id)).join(" or ")
    return Rules.fail(
      "model",
      "route",
      `model: ${Rules.describe(id)} is ${familyOf(id, entry)}, served by ${served}; it cannot be sent to ${describeCapability(
        capability,
        entry,
        id
      )}${entry.note ? ` (${entry.note})` : ""}; use ${entry.capabilities[0]}`
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
