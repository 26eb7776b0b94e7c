/**
 * The video task routes (E1–E3) and the MP4 file a finished task's `url` points at.
 * Errors are OpenAI-style (`{error: {message, type, param, code}}`).
 */
import { authenticate } from "../server/Auth.js"
import type { EmulatorContext } from "../server/Context.js"
import { parseRange, SAMPLE_MP4, SAMPLE_MP4_B64 } from "./Mp4.js"
import type { EmuRequest, Reply, Route } from "../server/Route.js"
import { checkVideoBody } from "./VideoRules.js"
import { CONTENT_REJECTED_CODE, CONTENT_REJECTED_MESSAGE, taskStoreOf, type VideoTask } from "./VideoTasks.js"

/** The path a finished task's video is served at (no auth: `<video src>` cannot send headers). */
export const videoFilePath = (taskId: string): string => `/files/videos/${taskId}.mp4`

const openAiError = (
  reply: Reply,
  status: number,
  message: string,
  param: string | null,
  code: string | null,
  type = "invalid_request_error"
): void => reply.json(status, { error: { message, type, param, code } })

const notFound = (reply: Reply, id: string): void =>
  openAiError(reply, 404, `video task ${id.slice(0, 100)} not found`, "task_id", "not_found")

/** The key of an authenticated request, or undefined after answering the auth failure. */
const keyOf = (req: EmuRequest, reply: Reply, ctx: EmulatorContext): string | undefined => {
  // The server has usually authenticated already; checking here too keeps the handler correct on its own.
  if (req.key !== undefined) return req.key
  const auth = authenticate(ctx, req.headers, req.url, "video")
  if (!auth.ok) {
    reply.json(auth.status, auth.body)
    return undefined
  }
  return auth.key
}

/** The E2 view of a task now. */
const taskView = (task: VideoTask, ctx: EmulatorContext): Record<string, unknown> => {
  const status = taskStoreOf(ctx).status(task)
  const view: Record<string, unknown> = { task_id: task.id, status, format: "mp4" }
  if (status === "succeeded" && task.family !== "alpha") view.url = `${ctx.baseUrl}${videoFilePath(task.id)}`
  if (status === "failed") view.error = { code: CONTENT_REJECTED_CODE, message: CONTENT_REJECTED_MESSAGE }
  return view
}

/** E1: POST /v1/video/generations. */
const submit: Route = {
  name: "video.submit",
  method: "POST",
  path: "/v1/video/generations",
  handle: (req, reply, ctx) => {
    const key = keyOf(req, reply, ctx)
    if (key === undefined) return
    if (req.jsonError !== undefined)
      return openAiError(reply, 400, `request body is not valid JSON: ${req.jsonError}`, null, "invalid_json")
    const profile = ctx.options.keys.get(key) ?? "full"
    const check = checkVideoBody(req.json, profile)
    if (!check.ok) return openAiError(reply, check.status, check.message, check.param, check.code)
    const task = taskStoreOf(ctx).submit(key, check.value.model, check.value.family, check.value.prompt)
    reply.json(200, { task_id: task.id, status: "submitted", format: "mp4" })
  }
}

/** E3: GET /v1/video/generations/download?id= (family alpha only). Listed before E2 so the literal path wins. */
const download: Route = {
  name: "video.download",
  method: "GET",
  path: "/v1/video/generations/download",
  handle: (req, reply, ctx) => {
    const key = keyOf(req, reply, ctx)
    if (key === undefined) return
    const id = req.url.searchParams.get("id")
    if (id === null || id === "")
      return openAiError(reply, 400, "query parameter id is required", "id", "missing_required_parameter")
    const task = taskStoreOf(ctx).find(id, key)
    if (task === undefined) return notFound(reply, id)
    if (task.family !== "alpha")
      return openAiError(
        reply,
        400,
        `download is for family alpha only; ${task.model} gives its url in the task query`,
        "id",
        "unsupported_model"
      )
    const status = taskStoreOf(ctx).status(task)
    if (status !== "succeeded")
      return openAiError(reply, 400, `video task ${task.id} is ${status}, not succeeded`, "id", "video_not_ready")
    reply.json(200, {
      success: true,
      generation_id: id,
      task_id: task.id,
      format: "mp4",
      size: SAMPLE_MP4.length,
      base64: SAMPLE_MP4_B64,
      data_url: `data:video/mp4;base64,${SAMPLE_MP4_B64}`
    })
  }
}

/** E2: GET /v1/video/generations/{task_id}. */
const get: Route = {
  name: "video.get",
  method: "GET",
  path: "/v1/video/generations/{task_id}",
  handle: (req, reply, ctx) => {
    const key = keyOf(req, reply, ctx)
    if (key === undefined) return
    const id = req.params.task_id ?? ""
    const task = taskStoreOf(ctx).find(id, key)
    if (task === undefined) return notFound(reply, id)
    reply.json(200, taskView(task, ctx))
  }
}

/** GET /files/videos/{task_id}.mp4: the MP4 of a succeeded task, with single byte-range support for `<video>`. */
const file: Route = {
  name: "video.file",
  method: "GET",
  path: "/files/videos/{task_id}.mp4",
  public: true,
  handle: (req, reply, ctx) => {
    const id = req.params.task_id ?? ""
    const task = taskStoreOf(ctx).find(id, undefined)
    if (task === undefined || taskStoreOf(ctx).status(task) !== "succeeded") return notFound(reply, id)
    const total = SAMPLE_MP4.length
    const rangeHeader = req.headers.range
    const range = parseRange(Array.isArray(rangeHeader) ? rangeHeader[0] : rangeHeader, total)
    const common = { "accept-ranges": "bytes", "cache-control": "public, max-age=86400" }
    if (range.kind === "unsatisfiable")
      return reply.bytes(416, "video/mp4", new Uint8Array(0), { ...common, "content-range": `bytes */${total}` })
    if (range.kind === "whole") return reply.bytes(200, "video/mp4", SAMPLE_MP4, common)
    reply.bytes(206, "video/mp4", SAMPLE_MP4.subarray(range.start, range.end + 1), {
      ...common,
      "content-range": `bytes ${range.start}-${range.end}/${total}`
    })
  }
}

/**
 * The video routes. `video.download` comes before `video.get`: `/v1/video/generations/download`
 * also matches the `{task_id}` pattern, and the literal route must win.
 */
export const videoRoutes: ReadonlyArray<Route> = [submit, download, get, file]
