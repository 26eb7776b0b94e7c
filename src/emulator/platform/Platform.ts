/**
 * The platform-style routes (E4–E7) under `{platform_url}/prod-api/…`: a token from username and
 * password, then three submits that require it, all answering in the `{code, msg, data}` envelope.
 *
 * Chosen where the contract says "not shown": a failure answers with an HTTP status equal to its envelope
 * `code` — 400 for bad input, 401 for wrong credentials and for a missing, unknown or expired token.
 */
import { randomBytes } from "node:crypto"
import { BoundedStore } from "../server/BoundedStore.js"
import type { EmulatorContext } from "../server/Context.js"
import type { EmuRequest, Reply, Route } from "../server/Route.js"
import { SAMPLE_PNG_BASE64 } from "../media/samplePng.js"

const SAMPLE_PNG = new Uint8Array(Buffer.from(SAMPLE_PNG_BASE64, "base64"))

/** Live tokens and generated images kept per emulator; beyond this the oldest are forgotten. */
export const MAX_PLATFORM_RECORDS = 50_000

/** Tokens (with their expiry on the emulator clock) and image ids of one emulator. */
class PlatformState {
  readonly tokens = new BoundedStore<number>(MAX_PLATFORM_RECORDS, Infinity)
  readonly images = new BoundedStore<true>(MAX_PLATFORM_RECORDS, Infinity)
  constructor(private readonly ctx: EmulatorContext) {}

  issue(): string {
    const token = randomBytes(24).toString("hex")
    this.tokens.put(token, this.ctx.clock.now() + this.ctx.options.platform.tokenTtlMs, 0)
    return token
  }

  /** Is `token` known and unexpired now? An expired token is forgotten. */
  valid(token: string): boolean {
    const expires = this.tokens.get(token)
    if (expires === undefined) return false
    if (this.ctx.clock.now() < expires) return true
    this.tokens.delete(token)
    return false
  }

  addImage(id: string): void {
    this.images.put(id, true, 0)
  }
}

const states = new WeakMap<EmulatorContext, PlatformState>()
const stateOf = (ctx: EmulatorContext): PlatformState => {
  let s = states.get(ctx)
  if (s === undefined) {
    s = new PlatformState(ctx)
    states.set(ctx, s)
  }
  return s
}

/** Answers a failure: HTTP status = envelope code. */
const fail = (reply: Reply, code: number, msg: string): void => reply.json(code, { code, msg, data: null })
const ok = (reply: Reply, data: unknown): void => reply.json(200, { code: 200, msg: "success", data })

type Body = Readonly<Record<string, unknown>>

/** The JSON object body, or undefined after answering 400. */
const bodyOf = (req: EmuRequest, reply: Reply): Body | undefined => {
  const j = req.json
  if (typeof j === "object" && j !== null && !Array.isArray(j)) return j as Body
  fail(
    reply,
    400,
    req.jsonError === undefined
      ? "request body must be a JSON object"
      : `request body is not valid JSON: ${req.jsonError}`
  )
  return undefined
}

/** True when the request carries a live E7 token; otherwise answers 401 and returns false. */
const authorized = (req: EmuRequest, reply: Reply, ctx: EmulatorContext): boolean => {
  const header = req.headers.authorization
  const m = typeof header === "string" ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null
  if (m === null) {
    fail(reply, 401, "missing Authorization: Bearer <token> (get one from /prod-api/v3/auth/getToken)")
    return false
  }
  if (!stateOf(ctx).valid(m[1]!)) {
    fail(reply, 401, "token is invalid or expired")
    return false
  }
  return true
}

// The contract bounds no length or count in these bodies (the 1 MiB body limit bounds them all), so
// the checks are those the client's builders make: presence, type, not blank, and the forms below.
const str = (v: unknown): v is string => typeof v === "string" && v.trim() !== ""
// A URL's scheme is case-insensitive (RFC 3986 §3.1).
const httpUrl = (v: unknown): v is string => str(v) && /^https?:\/\/\S+$/i.test(v)
const ASPECT_RATIO = /^(?:[1-9]\d?:[1-9]\d?|adaptive)$/
const SIZE = /^[1-9]\d*x[1-9]\d*$/

/**
 * Why `b[key]` is not a string that is not blank — missing (when `required`), of another type, or
 * blank (empty, when `blankOk`) — or undefined when it is one, or absent and optional; null is absent.
 */
const stringProblem = (b: Body, key: string, required: boolean, blankOk = false): string | undefined => {
  const v = b[key]
  if (v === undefined || v === null) return required ? `${key} is required` : undefined
  if (typeof v !== "string") return `${key} must be a string`
  return (blankOk ? v === "" : v.trim() === "") ? `${key} must not be empty` : undefined
}

/** A task id for the platform submits (E4, E6). */
const taskId = (): string => `ptask_${randomBytes(12).toString("hex")}`

/** E7: POST /prod-api/v3/auth/getToken. */
const token: Route = {
  name: "platform.token",
  method: "POST",
  path: "/prod-api/v3/auth/getToken",
  handle: (req, reply, ctx) => {
    const b = bodyOf(req, reply)
    if (b === undefined) return
    // A password is taken as given: spaces are characters of it.
    const problem = stringProblem(b, "username", true) ?? stringProblem(b, "password", true, true)
    if (problem !== undefined) return fail(reply, 400, problem)
    const { username, password } = ctx.options.platform
    if (b.username !== username || b.password !== password) return fail(reply, 401, "invalid username or password")
    ok(reply, `Bearer ${stateOf(ctx).issue()}`)
  }
}

const DURATIONS = ["3", "5", "8", "10", "12"]

/** E4: POST /prod-api/svc/v4/api/svcVideoCompletions. */
const textToVideo: Route = {
  name: "platform.textToVideo",
  method: "POST",
  path: "/prod-api/svc/v4/api/svcVideoCompletions",
  handle: (req, reply, ctx) => {
    if (!authorized(req, reply, ctx)) return
    const b = bodyOf(req, reply)
    if (b === undefined) return
    const problem = stringProblem(b, "model", true) ?? stringProblem(b, "prompt", true)
    if (problem !== undefined) return fail(reply, 400, problem)
    if (b.duration === undefined || b.duration === null) return fail(reply, 400, "duration is required")
    if (typeof b.duration !== "string" || !DURATIONS.includes(b.duration))
      return fail(reply, 400, `duration must be one of the strings ${DURATIONS.join(", ")}`)
    if (b.aspect_ratio === undefined || b.aspect_ratio === null) return fail(reply, 400, "aspect_ratio is required")
    if (typeof b.aspect_ratio !== "string" || !ASPECT_RATIO.test(b.aspect_ratio))
      return fail(reply, 400, "aspect_ratio must be a ratio such as 16:9, 9:16, 1:1, 4:3, 3:4, 21:9, or adaptive")
    const optional = stringProblem(b, "resolution", false) ?? stringProblem(b, "req_key", false)
    if (optional !== undefined) return fail(reply, 400, optional)
    if (b.return_url !== undefined && b.return_url !== null && typeof b.return_url !== "boolean")
      return fail(reply, 400, "return_url must be a boolean")
    ok(reply, { task_id: taskId() })
  }
}

/** Why E5's `contents` is malformed, or undefined when it is fine. */
const contentsProblem = (contents: unknown): string | undefined => {
  if (!Array.isArray(contents) || contents.length === 0) return "contents is required and must be a non-empty array"
  for (const [i, c] of contents.entries()) {
    const parts = typeof c === "object" && c !== null ? (c as Body).parts : undefined
    if (!Array.isArray(parts) || parts.length === 0)
      return `contents[${i}].parts is required and must be a non-empty array`
    for (const [j, p] of parts.entries()) {
      const part = (typeof p === "object" && p !== null ? p : {}) as Body
      const hasText = part.text !== undefined
      const hasImage = part.image !== undefined
      if (!hasText && !hasImage) return `contents[${i}].parts[${j}] needs text and/or image`
      if (hasText && typeof part.text !== "string") return `contents[${i}].parts[${j}].text must be a string`
      if (hasImage && typeof part.image !== "string")
        return `contents[${i}].parts[${j}].image must be a URL or base64 string`
      if (hasImage && !str(part.image)) return `contents[${i}].parts[${j}].image must not be empty`
    }
  }
  return undefined
}

/** E5: POST /prod-api/svc/v4/api/anyShootEasyModeSubmit → `data.url` of a PNG the emulator serves. */
const anyShootEasy: Route = {
  name: "platform.anyShootEasy",
  method: "POST",
  path: "/prod-api/svc/v4/api/anyShootEasyModeSubmit",
  handle: (req, reply, ctx) => {
    if (!authorized(req, reply, ctx)) return
    const b = bodyOf(req, reply)
    if (b === undefined) return
    if (b.size === undefined || b.size === null) return fail(reply, 400, "size is required")
    if (typeof b.size !== "string" || !SIZE.test(b.size))
      return fail(reply, 400, "size must be <width>x<height>, e.g. 1024x1024")
    const problem = contentsProblem(b.contents)
    if (problem !== undefined) return fail(reply, 400, problem)
    const id = `img_${randomBytes(12).toString("hex")}`
    stateOf(ctx).addImage(id)
    ok(reply, { url: `${ctx.baseUrl}/files/images/${id}.png` })
  }
}

const ADVANCED_FIELDS = ["productImageUrl", "productMaskUrl", "templateImageUrl", "templateMaskUrl"] as const

/** E6: POST /prod-api/svc/v4/api/anyShootAdvancedModeSubmit → a task id string. */
const anyShootAdvanced: Route = {
  name: "platform.anyShootAdvanced",
  method: "POST",
  path: "/prod-api/svc/v4/api/anyShootAdvancedModeSubmit",
  handle: (req, reply, ctx) => {
    if (!authorized(req, reply, ctx)) return
    const b = bodyOf(req, reply)
    if (b === undefined) return
    for (const f of ADVANCED_FIELDS) {
      if (b[f] === undefined || b[f] === null) return fail(reply, 400, `${f} is required`)
      if (!httpUrl(b[f])) return fail(reply, 400, `${f} must be an http(s) URL`)
    }
    ok(reply, taskId())
  }
}

/** GET /files/images/{image_id}.png: the image E5 returned (no auth, like any image URL). */
const image: Route = {
  name: "platform.image",
  method: "GET",
  path: "/files/images/{image_id}.png",
  public: true,
  handle: (req, reply, ctx) => {
    if (!stateOf(ctx).images.has(req.params.image_id ?? "")) return fail(reply, 404, "image not found")
    reply.bytes(200, "image/png", SAMPLE_PNG, { "cache-control": "public, max-age=86400" })
  }
}

/** The platform routes (token, E4, E5, E6) and the image file route. */
export const platformRoutes: ReadonlyArray<Route> = [token, textToVideo, anyShootEasy, anyShootAdvanced, image]
