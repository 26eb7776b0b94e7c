/**
 * The browser example: a chat box that streams a messages-style reply token by token (Stop
 * unsubscribes, which aborts the fetch) and a video panel that follows a video task to the
 * finished video. The gateway's URL and key come from the page's query: `?gateway=…&key=…`.
 */
import {
  EMPTY,
  type Observable,
  catchError,
  concat,
  defer,
  exhaustMap,
  fromEvent,
  map,
  of,
  startWith,
  takeUntil,
  tap
} from "rxjs"
// A user of the package writes `from "umg/rx"`; the example imports the sources so it builds without `dist/`.
import { createGateway, textDeltas, type VideoGenerateEvent } from "../../src/streams/index.js"

const query = new URLSearchParams(location.search)
const baseUrl = query.get("gateway") ?? "http://127.0.0.1:8787"
const apiKey = query.get("key") ?? "umg-emulator-key"
// The gateway contract polls every 3–5 s (docs/ARCHITECTURE.md); `?pollMs=` lowers it for an emulator
// with fast timings (tests, demos).
const pollMs = Math.min(5_000, Math.max(0, Number(query.get("pollMs") ?? "3000")))

const element = <T extends HTMLElement>(id: string): T => {
  const found = document.getElementById(id)
  if (found === null) throw new Error(`#${id} is missing from the page`)
  return found as T
}

const errorText = (error: unknown): string =>
  typeof error === "object" && error !== null && "message" in error && typeof error.message === "string"
    ? error.message
    : String(error)

// ---- the two gateway calls of the page ---------------------------------------------------------

const gateway = createGateway({ baseUrl, apiKey, minPollIntervalMs: pollMs })

/** The text pieces of a streamed messages-style reply; unsubscribing aborts the request. */
const replyText$ = (model: string, prompt: string): Observable<string> =>
  gateway.messages
    .stream$({ model, max_tokens: 1024, messages: [{ role: "user", content: prompt }] })
    .pipe(textDeltas())

/** What the video panel shows. */
type VideoView =
  | { readonly state: "submitting" | "cancelled" }
  | {
      readonly state: "running"
      readonly status: string
      readonly elapsedMs: number
      readonly polls: number
      readonly taskId: string
    }
  | { readonly state: "succeeded"; readonly src: string }
  | { readonly state: "error"; readonly error: string }

/** A `generate$` event as the panel shows it; the finished video becomes a playable address. */
const videoView = (event: VideoGenerateEvent): VideoView => {
  switch (event.type) {
    case "submitted":
      return { state: "running", status: "submitted", elapsedMs: 0, polls: 0, taskId: event.taskId }
    case "progress":
      return {
        state: "running",
        status: event.status,
        elapsedMs: event.elapsedMs,
        polls: event.polls,
        taskId: event.taskId
      }
    case "done": {
      // beta, gamma and delta give a URL; alpha's video arrives as bytes (E3) and plays from a blob.
      const { url, download } = event.result
      const src =
        url ??
        (download === undefined
          ? undefined
          : URL.createObjectURL(new Blob([download.bytes.slice()], { type: "video/mp4" })))
      return src === undefined
        ? { state: "error", error: "the task succeeded without a video" }
        : { state: "succeeded", src }
    }
  }
}

/** Submits a video task and follows it to the finished video. */
const generateVideo$ = (model: string, prompt: string): Observable<VideoView> =>
  gateway.video.generate$({ model, prompt }, { intervalMs: Math.max(pollMs, 1) }).pipe(map(videoView))

// ---- chat --------------------------------------------------------------------------------------

const chat = element<HTMLElement>("chat")
const chatForm = element<HTMLFormElement>("chat-form")
const chatModel = element<HTMLSelectElement>("chat-model")
const chatPrompt = element<HTMLTextAreaElement>("chat-prompt")
const chatSend = element<HTMLButtonElement>("chat-send")
const chatStop = element<HTMLButtonElement>("chat-stop")
const chatStatus = element<HTMLElement>("chat-status")
const chatPieces = element<HTMLElement>("chat-pieces")
const chatOutput = element<HTMLOutputElement>("chat-output")

interface ChatView {
  readonly state: "streaming" | "done" | "stopped" | "error"
  readonly text: string
  readonly pieces: number
  readonly error?: string
}

const renderChat = (view: ChatView): void => {
  chat.dataset["state"] = view.state
  chatStatus.textContent = view.state === "error" ? `error: ${view.error ?? ""}` : view.state
  chatPieces.textContent = String(view.pieces)
  chatOutput.textContent = view.text
  chatOutput.scrollTop = chatOutput.scrollHeight
  chatSend.disabled = view.state === "streaming"
  chatStop.disabled = view.state !== "streaming"
}

const stops = fromEvent(chatStop, "click")

fromEvent<SubmitEvent>(chatForm, "submit")
  .pipe(
    tap((event) => event.preventDefault()),
    // One reply at a time: Send is disabled while streaming, and a stray submit is ignored.
    exhaustMap(() => {
      const start: ChatView = { state: "streaming", text: "", pieces: 0 }
      let view = start
      const streamed = replyText$(chatModel.value, chatPrompt.value.trim() || "Hello!").pipe(
        map((piece) => (view = { ...view, text: view.text + piece, pieces: view.pieces + 1 })),
        // Stop completes the chain, which unsubscribes from the reply: the fiber is interrupted
        // and the fetch aborted, so the gateway stops generating.
        takeUntil(stops.pipe(tap(() => (view = { ...view, state: "stopped" })))),
        catchError((error: unknown) => {
          view = { ...view, state: "error", error: errorText(error) }
          return EMPTY
        })
      )
      const last = defer(() => of<ChatView>(view.state === "streaming" ? { ...view, state: "done" } : view))
      return concat(streamed, last).pipe(startWith(start))
    })
  )
  .subscribe(renderChat)

// ---- video -------------------------------------------------------------------------------------

const video = element<HTMLElement>("video")
const videoForm = element<HTMLFormElement>("video-form")
const videoModel = element<HTMLSelectElement>("video-model")
const videoPrompt = element<HTMLInputElement>("video-prompt")
const videoGenerate = element<HTMLButtonElement>("video-generate")
const videoCancel = element<HTMLButtonElement>("video-cancel")
const videoStatus = element<HTMLElement>("video-status")
const videoElapsed = element<HTMLElement>("video-elapsed")
const videoPolls = element<HTMLElement>("video-polls")
const videoTask = element<HTMLElement>("video-task")
const player = element<HTMLVideoElement>("video-player")

const renderVideo = (view: VideoView): void => {
  // `succeeded` keeps the last progress figures on screen; the status line says the task ended.
  video.dataset["state"] = view.state
  const busy = view.state === "running" || view.state === "submitting"
  videoGenerate.disabled = busy
  videoCancel.disabled = !busy
  switch (view.state) {
    case "submitting":
    case "cancelled":
      videoStatus.textContent = view.state
      return
    case "error":
      videoStatus.textContent = `error: ${view.error}`
      return
    case "running":
      videoStatus.textContent = view.status
      videoElapsed.textContent = `${(view.elapsedMs / 1000).toFixed(1)} s`
      videoPolls.textContent = String(view.polls)
      videoTask.textContent = view.taskId
      return
    case "succeeded":
      videoStatus.textContent = "succeeded"
      if (player.src.startsWith("blob:")) URL.revokeObjectURL(player.src)
      player.src = view.src
  }
}

fromEvent<SubmitEvent>(videoForm, "submit")
  .pipe(
    tap((event) => event.preventDefault()),
    exhaustMap(() =>
      generateVideo$(videoModel.value, videoPrompt.value.trim() || "A paper boat on a rainy street").pipe(
        // Cancel unsubscribes: the poll loop and any query in flight stop.
        takeUntil(fromEvent(videoCancel, "click").pipe(tap(() => renderVideo({ state: "cancelled" })))),
        catchError((error: unknown) => of<VideoView>({ state: "error", error: errorText(error) })),
        startWith<VideoView>({ state: "submitting" })
      )
    )
  )
  .subscribe(renderVideo)

element<HTMLElement>("gateway-url").textContent = baseUrl
chat.dataset["ready"] = "true"
