/**
 * The one model catalog: every model id umg knows, the capabilities (families) it may use, and the
 * per-model facts builders need. Those are the realtime event style and embedding sizes; video
 * limits live in `VideoCatalog`, keyed by the same ids and referenced from here. A user extends it
 * for new ids; routing, realtime and every builder read it.
 */
import * as Schema from "effect/Schema"
import { videoFamilyFromPrefix, videoModels } from "../video/VideoCatalog.js"

/**
 * What a request asks the gateway to do; each capability has one endpoint and one body shape.
 * `countTokens` is the messages family's token counter.
 * @category models
 */
export const Capability = Schema.Literals([
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
])
/** @category models */
export type Capability = typeof Capability.Type

/** How a catalog entry matches a model id. @category models */
export type ModelMatch = { readonly exact: string } | { readonly prefix: string } | { readonly pattern: RegExp }

/** What the client knows about an embedding model: its native size and whether `dimensions` may shorten it. @category models */
export interface EmbeddingModel {
  readonly nativeDimensions: number
  readonly supportsDimensions: boolean
}

/**
 * One catalog line: the ids it matches, the capabilities those models may use (the first is the
 * preferred one, `routeFor`'s answer), and the facts of those models.
 * @category models
 */
export interface RouteEntry {
  readonly match: ModelMatch
  readonly capabilities: readonly [Capability, ...Array<Capability>]
  /** Realtime models: the event style. */
  readonly realtime?: "v1" | "v2"
  /** Embedding models: the native size and whether `dimensions` may shorten it. */
  readonly embedding?: EmbeddingModel
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

/** The entry of a model id nothing in the catalog matches: no family, no known model. @category catalog */
export const unmatchedEntry: RouteEntry = { match: { pattern: /^/ }, capabilities: ["chat", "responses"] }

const videoIds = (prefix: string): ReadonlyArray<string> =>
  Object.keys(videoModels).filter((id) => videoFamilyFromPrefix(id) !== undefined && id.startsWith(prefix))

const embedding = (id: string, nativeDimensions: number, supportsDimensions: boolean, note?: string): RouteEntry => ({
  match: { exact: id },
  capabilities: ["embeddings"],
  embedding: { nativeDimensions, supportsDimensions },
  ...(note === undefined ? {} : { note })
})

/**
 * The gateway's model catalog (the contract's model ids of E1, E8, E10–E16; docs/ARCHITECTURE.md),
 * specific entries before general ones. Decisions read from the contract: the GPT-5 Pro family is served
 * by `/v1/responses` only (chat refuses it); `zeta-embedding-001` is an embeddings model on
 * `/v1/embeddings` (3072 dimensions), never the native shape; the two zeta image models take both
 * images and native content, and since E15 serves zeta image models on `/v1/images/generations`, an
 * unlisted `zeta-` id may go there with `allowUnknownModels`.
 * @category catalog
 */
export const defaultRouteCatalog: RouteCatalog = [
  embedding("zeta-embedding-001", 3072, true, "zeta embedding models use /v1/embeddings, never the native shape"),
  {
    match: { prefix: "zeta-embedding-" },
    capabilities: ["embeddings"],
    models: [],
    note: "zeta embedding models use /v1/embeddings, never the native shape"
  },
  { match: { exact: "zeta-2.5-flash-image" }, capabilities: ["images", "native"] },
  { match: { exact: "zeta-3-pro-image-preview" }, capabilities: ["images", "native"] },
  { match: { prefix: "zeta-live-" }, capabilities: ["live"], models: ["zeta-live-2.5-flash-native-audio"] },
  {
    match: { prefix: "zeta-" },
    capabilities: ["native"],
    models: ["zeta-2.5-pro", "zeta-2.5-flash", "zeta-2.5-flash-lite", "zeta-3-pro-preview"]
  },
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
  embedding("text-embedding-3-small", 1536, true),
  embedding("text-embedding-3-large", 3072, true),
  embedding("text-embedding-ada-002", 1536, false),
  { match: { prefix: "text-embedding-" }, capabilities: ["embeddings"], models: [] },
  { match: { prefix: "rerank-" }, capabilities: ["rerank"], models: ["rerank-v1"] },
  { match: { exact: "gpt-4o-mini-tts" }, capabilities: ["speech"] },
  { match: { prefix: "tts-" }, capabilities: ["speech"], models: ["tts-1", "tts-1-hd"] },
  { match: { exact: "gpt-realtime-2" }, capabilities: ["realtime"], realtime: "v2" },
  {
    match: { prefix: "gpt-realtime" },
    capabilities: ["realtime"],
    realtime: "v1",
    models: ["gpt-realtime", "gpt-realtime-mini"]
  },
  {
    match: { pattern: /^gpt-5(?:\.\d+)?-pro(?:-|$)/ },
    capabilities: ["responses"],
    models: ["gpt-5-pro"],
    note: "the GPT-5 Pro family is served only by /v1/responses"
  },
  {
    // The ChatGPT snapshots of GPT-5 (`gpt-5-chat-latest`, `gpt-5.1-chat-latest`) do not reason: chat first.
    match: { pattern: /^gpt-5(?:\.\d+)?-chat(?:-|$)/ },
    capabilities: ["chat", "responses"],
    models: []
  },
  {
    match: { pattern: /^(?:gpt-5(?:[.-]|$)|o\d)/ },
    capabilities: ["responses", "chat"],
    models: ["gpt-5", "o3", "o4-mini"]
  },
  {
    match: { pattern: /^(?:gpt-4|gpt-3\.5|chatgpt-)/ },
    capabilities: ["chat", "responses"],
    models: ["gpt-4.1", "gpt-4o", "gpt-4o-mini"]
  },
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

/** Options of everything that reads the catalog. @category models */
export interface RoutingOptions {
  /** The catalog to route with; `defaultRouteCatalog` when absent. */
  readonly catalog?: RouteCatalog
  /**
   * Accept model ids the catalog does not list (for a gateway newer than umg) for the capability asked:
   * a prefix or pattern only guesses an unlisted id's family. A listed model of another family is still
   * refused, and so is an unlisted id whose name places it in another family on an endpoint whose body
   * is a family's own (text, video, sessions: `familyShaped`). Default false.
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

/** The catalog entry of a model id (`unmatchedEntry` when nothing matches). @category catalog */
export const entryFor = (model: string, options: RoutingOptions = {}): RouteEntry =>
  (options.catalog ?? defaultRouteCatalog).find((e) => matches(e.match, model)) ?? unmatchedEntry

/** Whether an entry vouches for an id: an entry without a `models` list vouches for every id it matches. @category catalog */
export const listsModel = (entry: RouteEntry, model: string): boolean =>
  entry.models === undefined || entry.models.includes(model)

/** Whether the catalog lists a model id as one the gateway serves. @category catalog */
export const isKnownModel = (model: string, options: RoutingOptions = {}): boolean => {
  const entry = entryFor(model, options)
  return entry !== unmatchedEntry && listsModel(entry, model)
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

/** The native size of every embedding model the catalog lists. @category catalog */
export const embeddingSizes = (options: RoutingOptions = {}): Readonly<Record<string, EmbeddingModel>> => {
  const out: Record<string, EmbeddingModel> = Object.create(null)
  for (const id of knownModels("embeddings", options)) {
    const facts = entryFor(id, options).embedding
    if (facts !== undefined) out[id] = facts
  }
  return out
}

/** The size facts of an embedding model id, when the catalog has them. @category catalog */
export const embeddingModelOf = (model: string, options: RoutingOptions = {}): EmbeddingModel | undefined =>
  entryFor(model, options).embedding
