/**
 * Which endpoint, and which body shape, a model id goes to, read from the one model catalog
 * (`Catalog.ts`), so one family's body never reaches another family's endpoint.
 */
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { ModelId } from "../validation/Closed.js"
import { conform } from "../validation/Conform.js"
import { describe, fail } from "../validation/Rules.js"
import { videoFamilyFromPrefix } from "../video/VideoCatalog.js"
import {
  Capability,
  entryFor,
  knownModels,
  listsModel,
  type RouteEntry,
  type RoutingOptions,
  unmatchedEntry
} from "./Catalog.js"

/** The name of a request body's shape, as the per-family builders produce it. @category models */
export const BodyShape = Schema.Literals([
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
])
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
  transport: Schema.Literals(["http", "websocket"]),
  method: Schema.Literals(["GET", "POST"]),
  path: Schema.String,
  /** The path of the streaming variant (native-content only; other families stream with `stream: true`). */
  streamPath: Schema.optionalKey(Schema.String),
  shape: BodyShape,
  /** Every capability this model may be sent to, the preferred one first. */
  capabilities: Schema.Array(Capability)
})
/** @category models */
export type Route = typeof Route.Type

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
      return {
        transport: "http",
        method: "POST",
        path: nativePaths(model).generate,
        streamPath: nativePaths(model).stream,
        shape: "native-content"
      }
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
      return {
        transport: "websocket",
        method: "GET",
        path: `/ws/v1beta/models/${segment(model)}/liveStream`,
        shape: "live-setup"
      }
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
 * Capabilities whose body is the model family's own ("one family's body must not be reused for
 * another"): the text families, video (E1–E3) and the sessions. An id whose name places it in another
 * family is refused there even with `allowUnknownModels`. The media endpoints (embeddings, rerank,
 * speech, images) take one body for every family (E15 serves zeta image models), so there a name only
 * guesses.
 * @category routing
 */
export const familyShaped: ReadonlyArray<Capability> = [
  "messages",
  "countTokens",
  "native",
  "chat",
  "responses",
  "video",
  "realtime",
  "live"
]

/** A model's family and the endpoints that serve it ("a rerank model, served by rerank (POST /v1/rerank)"). */
const familyServedBy = (id: string, entry: RouteEntry): string =>
  `${familyOf(id, entry)}, served by ${entry.capabilities.map((c) => describeCapability(c, entry, id)).join(" or ")}`

/** The refusal of a model of another family: its family, the endpoints that serve it, the one to use. */
const otherFamily = (id: string, capability: Capability, entry: RouteEntry): Result.Result<never, InvalidRequest> =>
  fail(
    "model",
    "route",
    `model: ${describe(id)} is ${familyServedBy(id, entry)}; it cannot be sent to ${describeCapability(
      capability,
      entry,
      id
    )}${entry.note ? ` (${entry.note})` : ""}; use ${entry.capabilities[0]}`
  )

/**
 * The route of a model id for one capability, or an `InvalidRequest` on `model`: a listed model of
 * another family names the family it belongs to and the endpoint that serves it (an epsilon model sent
 * to chat, a rerank model to embeddings: rule `route`); an id the catalog does not list is refused with
 * the known models of the capability (and the family its name suggests), rule `unknown-model`, unless
 * `allowUnknownModels`. With it, such an id goes to a media capability asked, since a prefix or pattern
 * only guesses its family there; an endpoint whose body is a family's own (`familyShaped`) refuses an
 * id whose name places it in another family (the GPT-5 Pro family to chat: "use responses").
 * @category routing
 */
export const routeForCapability = (
  model: unknown,
  capability: Capability,
  options: RoutingOptions = {}
): Result.Result<Route, InvalidRequest> =>
  Result.flatMap(conform(ModelId, model, "model"), (id): Result.Result<Route, InvalidRequest> => {
    const entry = entryFor(id, options)
    const served = entry.capabilities.includes(capability)
    const matched = entry !== unmatchedEntry
    if (matched && listsModel(entry, id))
      return served ? Result.succeed(makeRoute(id, capability, entry)) : otherFamily(id, capability, entry)
    // From here the id is unlisted: a matching entry only guesses its family from its name.
    if (matched && !served && familyShaped.includes(capability)) return otherFamily(id, capability, entry)
    if (options.allowUnknownModels === true)
      return Result.succeed(
        makeRoute(id, capability, served && matched ? entry : { ...entry, capabilities: [capability] })
      )
    const known = knownModels(capability, options)
    const guess = !matched || served ? "" : `; by its name it may be ${familyServedBy(id, entry)}`
    return fail(
      "model",
      "unknown-model",
      `model: ${describe(id)} is not a model umg knows for ${describeCapability(capability, entry, id)}; known: ${
        known.length > 0 ? known.join(", ") : "none"
      }${guess}; for a model newer than umg's catalog pass allowUnknownModels: true`
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
) => Result.Result<Route, InvalidRequest> = routeForCapability
