/**
 * The emulator's model catalogue and E11 `GET /v1/models`: one list, three formats chosen by
 * headers, holding only the models the key's profile may use.
 */
import type { IncomingHttpHeaders } from "node:http"
import { authFailure, bearerKey, type AuthResult } from "../server/Auth.js"
import type { EmulatorContext, KeyProfile } from "../server/Context.js"
import type { Route } from "../server/Route.js"

/** What a model is for; decides its native `supportedGenerationMethods`. */
export type ModelKind = "text" | "image" | "embedding" | "rerank" | "speech" | "realtime" | "live" | "video"

/** One catalogue entry; `fullOnly` models are hidden from (and refused to) the restricted profile. */
export interface CatalogModel {
  readonly id: string
  readonly ownedBy: string
  readonly kind: ModelKind
  readonly fullOnly?: boolean
}

const m = (ownedBy: string, kind: ModelKind, ids: ReadonlyArray<string>, fullOnly = false): Array<CatalogModel> =>
  ids.map((id) => (fullOnly ? { id, ownedBy, kind, fullOnly } : { id, ownedBy, kind }))

/** Every model id of the contract the emulator serves. */
export const CATALOG: ReadonlyArray<CatalogModel> = [
  ...m("epsilon", "text", [
    "epsilon-opus-4-5-20251101",
    "epsilon-haiku-4-5-20251001",
    "epsilon-sonnet-4-5-20250929",
    "epsilon-opus-4-1-20250805",
    "epsilon-sonnet-4-20250514",
    "epsilon-3-haiku-20240307"
  ]),
  ...m("zeta", "text", ["zeta-2.5-pro", "zeta-2.5-flash", "zeta-2.5-flash-lite", "zeta-3-pro-preview"]),
  ...m("zeta", "image", ["zeta-2.5-flash-image", "zeta-3-pro-image-preview"]),
  ...m("zeta", "embedding", ["zeta-embedding-001"]),
  ...m("zeta", "live", ["zeta-live-2.5-flash-native-audio"]),
  ...m("openai", "text", ["gpt-5", "gpt-5-pro", "gpt-4.1", "gpt-4o", "gpt-4o-mini", "o3", "o4-mini"]),
  ...m("openai", "embedding", ["text-embedding-3-small", "text-embedding-3-large", "text-embedding-ada-002"]),
  ...m("openai", "speech", ["gpt-4o-mini-tts", "tts-1", "tts-1-hd"]),
  ...m("openai", "realtime", ["gpt-realtime", "gpt-realtime-mini", "gpt-realtime-2"]),
  ...m("rerank", "rerank", ["rerank-v1"]),
  ...m("alpha", "video", ["alpha-2"], true),
  ...m("beta", "video", ["beta-3.0-fast-generate-001", "beta-3.1-fast-generate-001"]),
  ...m("gamma", "video", ["gamma2.5-t2v-preview", "gamma2.5-i2v-preview"]),
  ...m("delta", "video", ["delta-1-0-lite-t2v-250428", "delta-1-0-lite-i2v-250428"], true),
  ...m("delta", "video", ["delta-1-0-pro-250528", "delta-1-5-pro-251215", "delta-1-5-pro-251215-noAudio"])
]

/** The catalogue entry of `id`, if any. */
export const findModel = (id: string): CatalogModel | undefined => CATALOG.find((x) => x.id === id)

/** The models `profile` may use. */
export const modelsFor = (profile: KeyProfile): ReadonlyArray<CatalogModel> =>
  profile === "full" ? CATALOG : CATALOG.filter((x) => x.fullOnly !== true)

/** The three list formats of E11. */
export type ListFormat = "openai" | "messages" | "native"

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const v = headers[name]
  return Array.isArray(v) ? v[0] : v
}

/** E11: `x-api-key` with `anthropic-version` → messages style; `x-vendor-api-key` or `?key=` → native; else OpenAI. */
export const listFormat = (headers: IncomingHttpHeaders, url: URL): ListFormat => {
  if (header(headers, "x-api-key") !== undefined && header(headers, "anthropic-version") !== undefined)
    return "messages"
  if (header(headers, "x-vendor-api-key") !== undefined || url.searchParams.has("key")) return "native"
  return "openai"
}

/** Authenticates a models-list request with the key of its format (Bearer always works). */
export const modelsAuth = (ctx: EmulatorContext, headers: IncomingHttpHeaders, url: URL): AuthResult => {
  const format = listFormat(headers, url)
  const formatKey =
    format === "messages"
      ? header(headers, "x-api-key")
      : format === "native"
        ? (header(headers, "x-vendor-api-key") ?? url.searchParams.get("key") ?? undefined)
        : undefined
  const key = bearerKey(headers) ?? formatKey
  const family = format === "messages" ? "messages" : format === "native" ? "native" : "openai"
  if (key === undefined) return { ok: false, ...authFailure(family, true) }
  const profile = ctx.options.keys.get(key)
  if (profile === undefined) return { ok: false, ...authFailure(family, false) }
  return { ok: true, key, profile }
}

const CREATED = 1_735_689_600 // 2025-01-01: fixed so that lists are deterministic

const displayName = (id: string): string => id.replace(/-/g, " ")

const methodsOf = (kind: ModelKind): ReadonlyArray<string> => {
  switch (kind) {
    case "text":
    case "image":
      return ["generateContent", "countTokens"]
    case "embedding":
      return ["embedContent"]
    case "live":
    case "realtime":
      return ["bidiGenerateContent"]
    case "video":
      return ["predictLongRunning"]
    case "rerank":
    case "speech":
      return []
  }
}

/** The list body in `format`. */
export const listBody = (models: ReadonlyArray<CatalogModel>, format: ListFormat): unknown => {
  switch (format) {
    case "openai":
      return {
        object: "list",
        data: models.map((x) => ({ id: x.id, object: "model", created: CREATED, owned_by: x.ownedBy }))
      }
    case "messages":
      return {
        data: models.map((x) => ({
          type: "model",
          id: x.id,
          display_name: displayName(x.id),
          created_at: new Date(CREATED * 1000).toISOString()
        })),
        has_more: false,
        first_id: models[0]?.id ?? null,
        last_id: models[models.length - 1]?.id ?? null
      }
    case "native":
      return {
        models: models.map((x) => ({
          name: `models/${x.id}`,
          version: "001",
          displayName: displayName(x.id),
          description: `${x.ownedBy} ${x.kind} model served by the umg emulator`,
          inputTokenLimit: 1_048_576,
          outputTokenLimit: 65_536,
          supportedGenerationMethods: methodsOf(x.kind)
        }))
      }
  }
}

/** `GET /v1/models`. */
export const modelsRoute: Route = {
  name: "models",
  method: "GET",
  path: "/v1/models",
  handle: (req, reply) =>
    reply.json(200, listBody(modelsFor(req.profile ?? "restricted"), listFormat(req.headers, req.url)))
}
