/**
 * `umg video`: makes a video from generic options, with a live progress line while it is made. It
 * builds the family's body (`--dry-run` prints it and sends nothing), submits, polls (status,
 * elapsed, polls) and writes the video from the task's `url` (beta, gamma, delta) or the E3 download
 * (alpha). `umg video status ID` and
 * `umg video download ID -o FILE` act on an existing task.
 */
import { Data, Effect, Option, Stream } from "effect"
import { Gateway } from "../../adapters/Gateway.js"
import * as GatewayConfig from "../../adapters/GatewayConfig.js"
import type { VideoInput } from "../../adapters/groups/Video.js"
import * as HttpAuth from "../../adapters/http/HttpAuth.js"
import * as HttpTransport from "../../adapters/http/HttpTransport.js"
import { taskFailure } from "../../adapters/polling/VideoPoller.js"
import { FileWriteFailed, writeAtomically } from "../../batch/AtomicFile.js"
import {
  TimeoutError,
  TransportError,
  VideoTaskFailed,
  type RequestError,
  type VideoWaitError
} from "../../core/errors/GatewayError.js"
import { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import type { RoutingOptions } from "../../core/gateway/Catalog.js"
import { buildVideoBody, type VideoBody } from "../../core/video/VideoBody.js"
import { videoFamilyOf } from "../../core/video/VideoCatalog.js"
import type { VideoQueryResponse } from "../../core/video/VideoTask.js"
import * as Connection from "../support/Connection.js"
import {
  ensureWritable,
  imageInput,
  isStdout,
  writeBytes,
  writingTo,
  type FileWriteError
} from "../support/LocalFiles.js"
import * as Output from "../support/Output.js"

/** Fetching a finished video's `url` failed. @category errors */
export class VideoUrlDownloadError extends Data.TaggedError("VideoUrlDownloadError")<{
  readonly status?: number
  readonly message: string
}> {}

/**
 * `umg video download` of a task that has not ended yet (`queued`, `in_progress`): it was asked, so
 * this is not invalid input; wait for the task and download again.
 * @category errors
 */
export class VideoNotFinished extends Data.TaggedError("VideoNotFinished")<{
  readonly family: "video"
  readonly taskId: string
  /** The task's status when it was asked. */
  readonly taskStatus: string
  readonly message: string
}> {}

/** The generic options of one video request, as the command line gives them. @category models */
export interface VideoRequestOptions {
  readonly model: string
  readonly prompt: Option.Option<string>
  readonly duration: Option.Option<number>
  readonly resolution: Option.Option<string>
  readonly aspectRatio: Option.Option<string>
  readonly image: Option.Option<string>
  readonly lastFrame: Option.Option<string>
  readonly reference: ReadonlyArray<string>
  readonly seed: Option.Option<number>
}

const some = <A>(key: string, value: Option.Option<A>): Record<string, A> =>
  Option.match(value, { onNone: () => ({}), onSome: (v) => ({ [key]: v }) })

/**
 * The E1 input of the options: generic fields only, local image paths read as data URLs. The
 * family's body is then built (and checked) by `buildVideoBody`.
 * @category constructors
 */
export const videoInput = (o: VideoRequestOptions): Effect.Effect<VideoInput, InvalidRequest> =>
  Effect.gen(function* () {
    const image = Option.isSome(o.image)
      ? Option.some(yield* imageInput(o.image.value, "image"))
      : Option.none<string>()
    const lastFrame = Option.isSome(o.lastFrame)
      ? Option.some(yield* imageInput(o.lastFrame.value, "last_frame"))
      : Option.none<string>()
    const references = yield* Effect.forEach(o.reference, (r, i) => imageInput(r, `reference_images[${i}]`))
    return {
      model: o.model,
      ...some("prompt", o.prompt),
      ...some("duration", o.duration),
      ...some("resolution", o.resolution),
      ...some("aspect_ratio", o.aspectRatio),
      ...some("image", image),
      ...some("last_frame", lastFrame),
      ...(references.length > 0 ? { reference_images: references } : {}),
      ...some("seed", o.seed)
    }
  })

/** A data URL shortened for display: bodies may carry megabytes of base64. @category output */
export const shortenDataUrls = (value: unknown): unknown => {
  if (typeof value === "string")
    return /^data:[^,]{0,80},/.test(value) && value.length > 96
      ? `${value.slice(0, 64)}…(${value.length} chars)`
      : value
  if (Array.isArray(value)) return value.map(shortenDataUrls)
  if (typeof value === "object" && value !== null)
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, shortenDataUrls(v)]))
  return value
}

/** What one poll loop saw. @category models */
export interface PollProgress {
  readonly taskId: string
  readonly status: string
  readonly elapsedMs: number
  readonly polls: number
}

/**
 * Follows the task with the gateway's one poll loop (`video.wait`) until it succeeds (or fails:
 * `VideoTaskFailed`), calling `onProgress` after each query; gives up after `timeoutMs` with
 * `TimeoutError`.
 * @category constructors
 */
export const waitForVideo = (
  taskId: string,
  options: {
    readonly intervalMs: number
    readonly timeoutMs: number
    readonly onProgress: (p: PollProgress) => Effect.Effect<void>
  }
): Effect.Effect<
  { readonly task: VideoQueryResponse; readonly polls: number; readonly elapsedMs: number },
  VideoWaitError | InvalidRequest,
  Gateway
> =>
  Effect.gen(function* () {
    const gateway = yield* Gateway
    // The progress line is printed synchronously from the poll's callback, with this fiber's services.
    const runSync = Effect.runSyncWith(yield* Effect.context<never>())
    return yield* gateway.video.wait(taskId, {
      intervalMs: options.intervalMs,
      timeoutMs: options.timeoutMs,
      onQuery: (u) =>
        runSync(options.onProgress({ taskId, status: u.task.status, elapsedMs: u.elapsedMs, polls: u.polls }))
    })
  })

/** The progress line of a poll loop. @category output */
export const progressText = (p: PollProgress): string =>
  `${p.taskId}  ${p.status.padEnd(11)}  ${Output.duration(p.elapsedMs).padStart(7)}  polls ${p.polls}`

/** A task `url` umg fetches: http(s), without credentials in it (`user:password@`). */
const checkedUrl = (url: string): Effect.Effect<string, VideoUrlDownloadError> => {
  const parsed = URL.parse(url)
  if (parsed === null || (parsed.protocol !== "http:" && parsed.protocol !== "https:"))
    return Effect.fail(new VideoUrlDownloadError({ message: "the task's url is not an http(s) URL" }))
  if (parsed.username !== "" || parsed.password !== "")
    return Effect.fail(new VideoUrlDownloadError({ message: "the task's url has credentials in it (user:password@)" }))
  return Effect.succeed(url)
}

/**
 * The video at a finished task's `url` as a stream of its bytes, never held whole: sent by umg's HTTP
 * transport (its client, time limits, retries until the answer starts, and redirect rules) without
 * the credential or the configured extra headers, which are the gateway's and the url may be another
 * origin's; bounded by `limits.maxDownloadBytes` (past it, a `TransportError` with reason `too-large`).
 * @category constructors
 */
export const urlStream = (
  gatewayConfig: GatewayConfig.GatewayConfig,
  url: string
): Stream.Stream<Uint8Array, VideoUrlDownloadError | RequestError> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const config = { ...gatewayConfig, headers: {} }
      const transport = yield* HttpTransport.fromConfig(config)
      const limit = config.limits.maxDownloadBytes
      const body = yield* transport.open({
        family: "video",
        method: "GET",
        url: yield* checkedUrl(url),
        auth: HttpAuth.none,
        kind: "idempotent",
        maxBytes: limit
      })
      let received = 0
      return Stream.mapEffect(body, (chunk) => {
        received += chunk.length
        return received > limit
          ? Effect.fail(
              new TransportError({
                family: "video",
                reason: "too-large",
                message: `the video at the task's url is larger than its bound of ${limit} bytes (limits in the config)`
              })
            )
          : Effect.succeed(chunk)
      })
    })
  )

/**
 * Writes a stream of bytes to `path` whole or not at all (`writeAtomically`: a failure leaves any
 * earlier file untouched), or to standard output for `-`; gives the number of bytes written.
 */
const writeStream = <E>(
  path: string,
  content: Stream.Stream<Uint8Array, E>
): Effect.Effect<number, E | FileWriteFailed | FileWriteError> =>
  Effect.suspend(() => {
    let bytes = 0
    const counted = Stream.tap(content, (chunk) => Effect.sync(() => (bytes += chunk.length)))
    const written: Effect.Effect<void, E | FileWriteFailed | FileWriteError> = isStdout(path)
      ? Stream.runForEach(counted, (chunk) => writeBytes(path, chunk))
      : writeAtomically(path, counted)
    return Effect.map(written, () => bytes)
  })

/** The bytes of a succeeded task: E3 for alpha, the task's `url` otherwise. @category models */
export interface SavedVideo {
  readonly path: string
  readonly bytes: number
  readonly source: "download" | "url"
  /** For alpha: the `size` E3 declared (the decoder has checked it against the bytes). */
  readonly declaredSize?: number
}

/**
 * Writes the video of a succeeded task to `path`, streamed (never whole in memory) and atomically:
 * family alpha through E3 (size checked), the other families from the task's `url` (`urlStream`).
 * A failed write is a `FileWriteFailed` and leaves any earlier file at `path` as it was.
 * @category constructors
 */
export const saveVideo = (
  model: string,
  task: VideoQueryResponse,
  path: string
): Effect.Effect<
  SavedVideo,
  RequestError | InvalidRequest | VideoUrlDownloadError | FileWriteFailed | FileWriteError,
  Gateway | Connection.Connection
> =>
  Effect.gen(function* () {
    const gateway = yield* Gateway
    if (videoFamilyOf(model) === "alpha") {
      // The stream fails unless the bytes it decoded are exactly the `size` E3 declared.
      const bytes = yield* writeStream(path, gateway.video.downloadStream(task.task_id))
      return { path, bytes, source: "download" as const, declaredSize: bytes }
    }
    if (task.url === undefined) {
      return yield* Effect.fail(new VideoUrlDownloadError({ message: `task ${task.task_id} succeeded without a url` }))
    }
    const config = GatewayConfig.make((yield* Connection.Connection).config)
    const bytes = yield* writeStream(path, urlStream(config, task.url))
    return { path, bytes, source: "url" as const }
  })

/** `--timeout` in milliseconds: a number of seconds, or a number with `ms`, `s` or `m`; the error names the flag. @category constructors */
export const parseTimeout = (raw: string): Effect.Effect<number, InvalidRequest> => {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(raw.trim())
  const ms = m === null ? Number.NaN : Number(m[1]) * (m[2] === "ms" ? 1 : m[2] === "m" ? 60_000 : 1_000)
  return Number.isFinite(ms) && ms >= 1 && ms <= 24 * 3_600_000
    ? Effect.succeed(Math.round(ms))
    : Effect.fail(
        new InvalidRequest({
          field: "--timeout",
          rule: "duration",
          message: `--timeout: ${JSON.stringify(raw.slice(0, 40))} is not a duration; allowed: seconds (300), or a number with ms, s or m (1500ms, 90s, 5m), up to 24 h`
        })
      )
}

/** The options of `umg video`. @category models */
export interface VideoCommandOptions extends Connection.CommonOptions, Omit<VideoRequestOptions, "model"> {
  readonly model: Option.Option<string>
  readonly noWait: boolean
  readonly dryRun: boolean
  readonly output: Option.Option<string>
  readonly timeout: string
}

const missingModel = new InvalidRequest({
  field: "model",
  rule: "required",
  message: "model is required: give -m MODEL (see `umg models`)"
})

/** The body `umg video` would send for these options (what `--dry-run` prints). @category constructors */
export const dryRunBody = (
  o: VideoRequestOptions,
  routing: RoutingOptions = {}
): Effect.Effect<VideoBody, InvalidRequest> => Effect.flatMap(videoInput(o), (input) => buildVideoBody(input, routing))

/** Runs `umg video`. @category commands */
export const runVideo = (o: VideoCommandOptions) =>
  Effect.gen(function* () {
    if (Option.isNone(o.model)) return yield* Effect.fail(missingModel)
    const request: VideoRequestOptions = { ...o, model: o.model.value }
    const input = yield* videoInput(request)
    const deadlineMs = yield* parseTimeout(o.timeout)
    // Build before anything else: an invalid request fails here, before a connection is opened.
    const body = yield* buildVideoBody(input, yield* Connection.routing(o))
    if (o.dryRun) {
      const shown = shortenDataUrls(body)
      return yield* Output.result(o, { dryRun: true, body: shown }, () => JSON.stringify(shown, null, 2))
    }
    // The task once submitted: a --timeout past the submit names it (it is paid for, and may still finish).
    let submittedId: string | undefined
    const made = Effect.gen(function* () {
      const gateway = yield* Gateway
      const connection = yield* Connection.Connection
      const submitted = yield* gateway.video.submit(input)
      submittedId = submitted.task_id
      if (o.noWait) {
        return yield* Output.result(o, submitted, () => `${submitted.task_id}  ${submitted.status}`)
      }
      yield* Output.note(Output.errColour.dim(`submitted ${submitted.task_id}`))
      const path = Option.getOrElse(o.output, () => `${submitted.task_id}.mp4`)
      // The default path is known only now: checked before the (long) polling, not after it.
      // Past the submit a refusal is no longer "nothing was sent": a write failure naming the task.
      if (Option.isNone(o.output))
        yield* ensureWritable(path, "-o").pipe(
          Effect.mapError(
            (e) =>
              new FileWriteFailed({
                path,
                message: `${e.message}; task ${submitted.task_id} was submitted: save it with umg video download ${submitted.task_id} -o FILE`
              })
          )
        )
      const done = yield* waitForVideo(submitted.task_id, {
        intervalMs: connection.pollIntervalMs,
        timeoutMs: deadlineMs,
        onProgress: (p) => Output.progress(progressText(p))
      })
      yield* Output.endProgress
      const saved = yield* saveVideo(request.model, done.task, path)
      const summary = `${Output.colour.green("✓")} ${done.task.task_id} succeeded after ${done.polls} polls; wrote ${saved.bytes} bytes to ${isStdout(path) ? "stdout" : saved.path}`
      // With `-o -` stdout carries the video itself; the summary goes to stderr.
      if (isStdout(path)) return yield* Output.note(summary)
      yield* Output.result(o, { task: done.task, polls: done.polls, elapsedMs: done.elapsedMs, saved }, () => summary)
    })
    // The submit costs money: `-o` is checked (its folders made) before it, and if the command fails
    // the folders made for it go again; the video is written whole or not at all.
    const checked = Option.isSome(o.output) && !o.noWait ? writingTo(o.output.value, made, "-o") : made
    yield* Connection.run(
      o,
      checked.pipe(
        // The deadline is the whole command's: connecting, submitting, polling and saving together.
        Effect.timeoutOrElse({
          duration: deadlineMs,
          orElse: () =>
            Effect.fail(
              new TimeoutError({
                family: "video",
                phase: "poll",
                timeoutMs: deadlineMs,
                message:
                  submittedId === undefined
                    ? `umg video did not finish within its --timeout of ${deadlineMs} ms`
                    : `umg video did not finish within its --timeout of ${deadlineMs} ms; task ${submittedId} was submitted: follow it with umg video status ${submittedId}, save it once done with umg video download ${submittedId} -o FILE`,
                ...(submittedId === undefined ? {} : { taskId: submittedId })
              })
            )
        })
      )
    )
  })

/** The options of `umg video status`. @category models */
export interface VideoStatusOptions extends Connection.CommonOptions {
  readonly taskId: string
}

/** Runs `umg video status`. @category commands */
export const runVideoStatus = (o: VideoStatusOptions) =>
  Connection.run(
    o,
    Effect.flatMap(Gateway, (g) => g.video.get(o.taskId)).pipe(
      Effect.flatMap((task) =>
        Output.result(o, task, () =>
          [
            task.task_id,
            task.status,
            task.url ?? "",
            task.error !== undefined ? `error ${task.error.code}: ${task.error.message}` : ""
          ]
            .filter((s) => s !== "")
            .join("  ")
        )
      )
    )
  )

/** The options of `umg video download`. @category models */
export interface VideoDownloadOptions extends Connection.CommonOptions {
  readonly taskId: string
  readonly model: Option.Option<string>
  readonly output: string
}

/**
 * The task, when it succeeded; a failed one is `VideoTaskFailed` (its `error.code` and message), one
 * still on its way `VideoNotFinished`. The task was queried: neither is invalid input.
 * @category constructors
 */
export const succeededTask = (
  task: VideoQueryResponse
): Effect.Effect<VideoQueryResponse, VideoTaskFailed | VideoNotFinished> => {
  if (task.status === "succeeded") return Effect.succeed(task)
  if (task.status === "failed") return Effect.fail(taskFailure(task))
  return Effect.fail(
    new VideoNotFinished({
      family: "video",
      taskId: task.task_id,
      taskStatus: task.status,
      message: `task ${task.task_id} is not finished yet (status ${task.status}); wait for it (umg video status ${task.task_id} shows when it has succeeded) and download again`
    })
  )
}

/** Runs `umg video download`. @category commands */
export const runVideoDownload = (o: VideoDownloadOptions) =>
  Connection.run(
    o,
    Effect.gen(function* () {
      const gateway = yield* Gateway
      const task = yield* Effect.flatMap(gateway.video.get(o.taskId), succeededTask)
      // Without a model: a task with a url is fetched from it; one without is an alpha task (E3).
      const model = Option.getOrElse(o.model, () => (task.url !== undefined ? "" : "alpha-2"))
      const saved = yield* saveVideo(model, task, o.output)
      const summary = `wrote ${saved.bytes} bytes to ${isStdout(o.output) ? "stdout" : saved.path}`
      if (isStdout(o.output)) return yield* Output.note(summary)
      yield* Output.result(o, saved, () => summary)
    }).pipe((download) => writingTo(o.output, download, "-o"))
  )
