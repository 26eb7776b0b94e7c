/**
 * The platform-style routes (E4–E7) under `{platform_url}/prod-api/…`: a token from username and
 * password, then three submits that require it, all answering in the `{code, msg, data}` envelope.
 *
 * Chosen where the contract says "not shown": a failure answers with an HTTP status equal to its envelope
 * `code` — 400 for bad input, 401 for wrong credentials and for a missing, unknown or expired token.
 */
import { randomBytes } from "node:crypto"
import type { EmulatorContext } from "../server/Context.js"
import type { EmuRequest, Reply, Route } from "../server/Route.js"
import { SAMPLE_PNG_BASE64 } from "../media/samplePng.js"

const SAMPLE_PNG = new Uint8Array(Buffer.from(SAMPLE_PNG_BASE64, "base64"))

/** Live tokens and generated images kept per emulator; beyond this the oldest are forgotten. */
export const MAX_PLATFORM_RECORDS = 50_000

/** Tokens (with their expiry on the emulator clock) and image ids of one emulator. */
class PlatformState {
  readonly tokens = new Map<string, number>()
  readonly images = new Set<string>()
  constructor(private readonly ctx: EmulatorContext) {}

  issue(): string {
    const token = randomBytes(24).toString("hex")
    this.tokens.set(token, this.ctx.clock.now() + this.ctx.options.platform.tokenTtlMs)
    if (this.tokens.size > MAX_PLATFORM_RECORDS) this.tokens.delete(this.tokens.keys().next().value!)
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
    this.images.add(id)
    if (this.images.size > MAX_PLATFORM_RECORDS) this.images.delete(this.images.values().next().value!)
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

const str = (v: unknown, max = 10_000): v is string => typeof v === "string" && v.trim() !== "" && v.length <= max
const httpUrl = (v: unknown): v is string => str(v, 8192) && /^https?:\/\/\S+$/.test(v)

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
    if (!str(b.username, 256) || !str(b.password, 1024))
      return fail(reply, 400, "username and password are required strings")
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
    if (!str(b.model, 200)) return fail(reply, 400, "model is required")
    if (!str(b.prompt)) return fail(reply, 400, "prompt is required")
    if (b.duration === undefined) return fail(reply, 400, "duration is required")
    if (typeof b.duration !== "string" || !DURATIONS.includes(b.duration))
      return fail(reply, 400, `duration must be one of the strings ${DURATIONS.join(", ")}`)
    if (!str(b.aspect_ratio, 20)) return fail(reply, 400, "aspect_ratio is required")
    if (!/^(?:\d{1,2}:\d{1,2}|adaptive)$/.test(b.aspect_ratio))
      return fail(reply, 400, "aspect_ratio must look like 16:9")
    if (b.resolution !== undefined && !str(b.resolution, 20)) return fail(reply, 400, "resolution must be a string")
    if (b.return_url !== undefined && typeof b.return_url !== "boolean")
      return fail(reply, 400, "return_url must be a boolean")
    if (b.req_key !== undefined && !str(b.req_key, 200)) return fail(reply, 400, "req_key must be a string")
    ok(reply, { task_id: taskId() })
  }
}

const MAX_CONTENTS = 16
const MAX_PARTS = 16

/** Why E5's `contents` is malformed, or undefined when it is fine. */
const contentsProblem = (contents: unknown): string | undefined => {
  if (!Array.isArray(contents) || contents.length === 0) return "contents is required and must be a non-empty array"
  if (contents.length > MAX_CONTENTS) return `contents takes at most ${MAX_CONTENTS} items`
  for (const [i, c] of contents.entries()) {
    const parts = typeof c === "object" && c !== null ? (c as Body).parts : undefined
    if (!Array.isArray(parts) || parts.length === 0)
      return `contents[${i}].parts is required and must be a non-empty array`
    if (parts.length > MAX_PARTS) return `contents[${i}].parts takes at most ${MAX_PARTS} items`
    for (const [j, p] of parts.entries()) {
      const part = (typeof p === "object" && p !== null ? p : {}) as Body
      const hasText = part.text !== undefined
      const hasImage = part.image !== undefined
      if (!hasText && !hasImage) return `contents[${i}].parts[${j}] needs text and/or image`
      if (hasText && typeof part.text !== "string") return `contents[${i}].parts[${j}].text must be a string`
      if (hasImage && !str(part.image, 20_000_000))
        return `contents[${i}].parts[${j}].image must be a URL or base64 string`
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
    if (!str(b.size, 20)) return fail(reply, 400, "size is required")
    if (!/^[1-9]\d{0,4}x[1-9]\d{0,4}$/.test(b.size)) return fail(reply, 400, "size must be <width>x<height>")
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
      if (b[f] === undefined) return fail(reply, 400, `${f} is required`)
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
