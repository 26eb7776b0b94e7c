/**
 * The realtime WebSocket at `/v1/realtime?model=`: v1 (beta event names) for `gpt-realtime` and
 * `gpt-realtime-mini`, v2 (GA names, `session.type: "realtime"`) for `gpt-realtime-2`. Replies are
 * deterministic text and/or PCM16 24 kHz audio built from the conversation's user text.
 */
import { MAX_JSON_DEPTH, tooDeep } from "../server/JsonDepth.js"
import type { IncomingMessage } from "node:http"
import type { RawData, WebSocket } from "ws"
import { authFailure, bearerKey } from "../server/Auth.js"
import type { EmulatorContext } from "../server/Context.js"
import { pcmTone } from "../media/Pcm.js"
import {
  checkSessionUpdate,
  checkTranscriptionSessionUpdate,
  type ClientProblem,
  initialSession,
  initialTranscriptionSession,
  type Modality,
  namesOf,
  readItemId,
  readModalities,
  readTruncate,
  REALTIME_MODELS,
  type RealtimeVersion
} from "./RealtimeEvents.js"
import { RealtimeConversation } from "./RealtimeConversation.js"
import type { WsRoute } from "../server/Route.js"
import { estimateTokens, hash32, newId, pace, replyWords, tokenPieces } from "../text/TextGen.js"
import { makeWsSender, type WsSender } from "../server/WsSender.js"

/** Largest client event the session reads (an audio append of about 5 minutes of PCM16 at 24 kHz fits). */
export const MAX_REALTIME_EVENT_BYTES = 15 * 1024 * 1024

/** Bytes of PCM16 24 kHz mono audio in one millisecond. */
const PCM_BYTES_PER_MS = 48

/** The shortest input audio upstream commits. */
const MIN_COMMIT_MS = 100

/** Milliseconds of audio streamed per reply word. */
const AUDIO_MS_PER_WORD = 80

/** The key a realtime upgrade presents: Bearer, or the browser subprotocol `openai-insecure-api-key.<key>`. */
const realtimeKey = (req: IncomingMessage): string | undefined => {
  const bearer = bearerKey(req.headers)
  if (bearer !== undefined) return bearer
  const protocols = (req.headers["sec-websocket-protocol"] ?? "").split(",").map((p) => p.trim())
  const p = protocols.find((x) => x.startsWith("openai-insecure-api-key."))
  return p === undefined ? undefined : p.slice("openai-insecure-api-key.".length)
}

const badRequest = (message: string, code: string, param: string) => ({
  ok: false as const,
  status: 400,
  body: { error: { message, type: "invalid_request_error", param, code } }
})

/** One connection's state. */
class RealtimeSession {
  private readonly names
  private session: Record<string, unknown>
  /** The v1 transcription session (`transcription_session.update`), made on first use. */
  private transcription: Record<string, unknown> | undefined
  /** The conversation's items (bounded); the reply is built from its user text. */
  private readonly conversation = new RealtimeConversation()
  private active: { id: string; cancelled: boolean } | undefined
  /** Bytes of input audio appended since the last commit or clear. */
  private pendingAudioBytes = 0

  constructor(
    private readonly out: WsSender,
    private readonly ctx: EmulatorContext,
    private readonly version: RealtimeVersion,
    model: string
  ) {
    this.names = namesOf(version)
    this.session = initialSession(version, newId("sess_"), model)
    this.send({ type: "session.created", session: this.session })
  }

  private send(event: Record<string, unknown>): boolean {
    return this.out.send({ ...event, event_id: newId("event_") })
  }

  private error(problem: ClientProblem, clientEventId: unknown): void {
    this.send({
      type: "error",
      error: {
        type: "invalid_request_error",
        code: problem.code,
        message: problem.message,
        param: problem.param ?? null,
        event_id: typeof clientEventId === "string" ? clientEventId : null
      }
    })
  }

  /** Handles one client frame. */
  onMessage(data: RawData, isBinary: boolean): void {
    const size = Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data.byteLength
    if (size > MAX_REALTIME_EVENT_BYTES)
      return this.error(
        { code: "event_too_large", message: `events are limited to ${MAX_REALTIME_EVENT_BYTES} bytes` },
        undefined
      )
    if (isBinary) return this.error({ code: "invalid_event", message: "events are JSON text frames" }, undefined)
    let event: unknown
    try {
      event = JSON.parse(
        Buffer.isBuffer(data) ? data.toString("utf8") : Buffer.from(data as ArrayBuffer).toString("utf8")
      )
    } catch {
      return this.error({ code: "invalid_json", message: "the event is not valid JSON" }, undefined)
    }
    if (tooDeep(event, MAX_JSON_DEPTH))
      return this.error(
        { code: "invalid_event", message: `an event may nest at most ${MAX_JSON_DEPTH} levels` },
        undefined
      )
    if (typeof event !== "object" || event === null || typeof (event as { type?: unknown }).type !== "string")
      return this.error(
        { code: "invalid_event", message: "an event must be a JSON object with a string type", param: "type" },
        undefined
      )
    const e = event as Record<string, unknown>
    switch (e.type) {
      case "session.update": {
        const checked = checkSessionUpdate(this.version, e.session)
        if (!checked.ok) return this.error(checked.problem, e.event_id)
        this.session = { ...this.session, ...checked.fields }
        this.send({ type: "session.updated", session: this.session })
        return
      }
      case "transcription_session.update":
        return this.version === "v1" ? this.updateTranscription(e) : this.unknownEvent(e)
      case "conversation.item.create":
        return this.createItem(e)
      case "conversation.item.retrieve":
      case "conversation.item.delete":
        return this.retrieveOrDelete(e)
      case "conversation.item.truncate": {
        const t = readTruncate(e)
        if ("code" in t) return this.error(t, e.event_id)
        const outcome = this.conversation.truncate(t.itemId, t.contentIndex, t.audioEndMs)
        return void (outcome.ok ? this.send(outcome.event) : this.error(outcome.problem, e.event_id))
      }
      case "input_audio_buffer.append":
        if (typeof e.audio !== "string")
          return this.error(
            { code: "invalid_value", message: "audio must be a base64 string", param: "audio" },
            e.event_id
          )
        this.pendingAudioBytes += Math.floor((e.audio.replace(/=+$/, "").length * 3) / 4)
        return
      case "input_audio_buffer.commit":
        return this.commitAudio(e)
      case "input_audio_buffer.clear":
        this.pendingAudioBytes = 0
        this.send({ type: "input_audio_buffer.cleared" })
        return
      case "output_audio_buffer.clear":
        // Upstream plays audio out of a server-side buffer on WebRTC and SIP only; over a WebSocket the
        // unplayed audio is the client's, so upstream refuses the event (the session stays open).
        return this.error(
          {
            code: "invalid_value",
            message: "output_audio_buffer.clear is only supported for WebRTC and SIP connections.",
            param: "type"
          },
          e.event_id
        )
      case "response.create":
        // A bug while streaming must not become an unhandled rejection that ends the emulator.
        return void this.respond(e).catch(() => this.out.close(1011, "emulator error"))
      case "response.cancel":
        if (this.active !== undefined) this.active.cancelled = true
        else
          this.error(
            { code: "response_cancel_not_active", message: "there is no active response to cancel" },
            e.event_id
          )
        return
      default:
        return this.unknownEvent(e)
    }
  }

  private unknownEvent(e: Record<string, unknown>): void {
    this.error(
      {
        code: "invalid_event",
        message: `unknown or unsupported client event type: ${String(e.type).slice(0, 80)}`,
        param: "type"
      },
      e.event_id
    )
  }

  /**
   * `input_audio_buffer.commit`: the appended audio becomes a user item (without a transcript, as
   * upstream's without input transcription), announced as the item a client event would make.
   * Under 100 ms of audio is upstream's refusal.
   */
  private commitAudio(e: Record<string, unknown>): void {
    const ms = this.pendingAudioBytes / PCM_BYTES_PER_MS
    if (ms < MIN_COMMIT_MS)
      return this.error(
        {
          code: "input_audio_buffer_commit_empty",
          message: `Error committing input audio buffer: buffer too small. Expected at least ${MIN_COMMIT_MS}ms of audio, but buffer only has ${ms.toFixed(2)}ms of audio.`
        },
        e.event_id
      )
    this.pendingAudioBytes = 0
    const id = newId("item_")
    const previous = this.conversation.lastId()
    const item = {
      id,
      object: "realtime.item",
      type: "message",
      status: "completed",
      role: "user",
      content: [{ type: "input_audio", transcript: null }]
    }
    this.conversation.add(id, item, "")
    this.send({ type: "input_audio_buffer.committed", previous_item_id: previous, item_id: id })
    this.announce(previous, item)
  }

  /** A new item's events: v1 `conversation.item.created`, v2 `.added` then `.done`. */
  private announce(previous: string | null, item: Record<string, unknown>): void {
    if (this.version === "v1") this.send({ type: "conversation.item.created", previous_item_id: previous, item })
    else {
      this.send({ type: "conversation.item.added", previous_item_id: previous, item })
      this.send({ type: "conversation.item.done", previous_item_id: previous, item })
    }
  }

  private updateTranscription(e: Record<string, unknown>): void {
    const checked = checkTranscriptionSessionUpdate(e.session)
    if (!checked.ok) return this.error(checked.problem, e.event_id)
    this.transcription = { ...(this.transcription ?? initialTranscriptionSession(newId("sess_"))), ...checked.fields }
    this.send({ type: "transcription_session.updated", session: this.transcription })
  }

  /** `conversation.item.retrieve` and `.delete`: an unknown id is upstream's error, naming the event's verb. */
  private retrieveOrDelete(e: Record<string, unknown>): void {
    const id = readItemId(e)
    if (typeof id !== "string") return this.error(id, e.event_id)
    const retrieve = e.type === "conversation.item.retrieve"
    const item = this.conversation.get(id)
    if (item === undefined)
      return this.error(
        {
          code: retrieve ? "item_retrieve_invalid_item_id" : "item_delete_invalid_item_id",
          message: `Error ${retrieve ? "retrieving" : "deleting"} item: the item with id '${id.slice(0, 100)}' does not exist.`
        },
        e.event_id
      )
    if (retrieve) this.send({ type: "conversation.item.retrieved", item })
    else {
      this.conversation.delete(id)
      this.send({ type: "conversation.item.deleted", item_id: id })
    }
  }

  private createItem(e: Record<string, unknown>): void {
    const item = (typeof e.item === "object" && e.item !== null ? e.item : {}) as Record<string, unknown>
    if (typeof item.type !== "string")
      return this.error(
        { code: "invalid_value", message: "item must be an object with a type", param: "item" },
        e.event_id
      )
    const content: Array<unknown> = Array.isArray(item.content) ? item.content : []
    const text = content
      .map((c) => {
        const part = (typeof c === "object" && c !== null ? c : {}) as { text?: unknown; transcript?: unknown }
        return typeof part.text === "string" ? part.text : typeof part.transcript === "string" ? part.transcript : ""
      })
      .join(" ")
    const id = typeof item.id === "string" && item.id !== "" ? item.id : newId("item_")
    if (this.conversation.has(id))
      return this.error(
        { code: "invalid_value", message: `Item with id '${id.slice(0, 100)}' already exists.`, param: "item.id" },
        e.event_id
      )
    const stored = { object: "realtime.item", status: "completed", ...item, id }
    const previous = this.conversation.lastId()
    this.conversation.add(id, stored, item.role === "user" || item.role === undefined ? text : undefined)
    this.announce(previous, stored)
  }

  /** Streams one response; the modalities come from `response.create`, else from the session. */
  private async respond(e: Record<string, unknown>): Promise<void> {
    if (this.active !== undefined)
      return this.error(
        { code: "conversation_already_has_active_response", message: "a response is already in progress" },
        e.event_id
      )
    const r = (typeof e.response === "object" && e.response !== null ? e.response : {}) as Record<string, unknown>
    const field = this.version === "v1" ? "modalities" : "output_modalities"
    const asked = readModalities(r[field], `response.${field}`, this.version === "v2")
    if (asked !== undefined && !Array.isArray(asked)) return this.error(asked as ClientProblem, e.event_id)
    const modalities = (asked ?? this.session[field] ?? ["text"]) as ReadonlyArray<Modality>
    const audio = modalities.includes("audio")
    const id = newId("resp_")
    const itemId = newId("item_")
    this.active = { id, cancelled: false }
    const base = { response_id: id, item_id: itemId, output_index: 0, content_index: 0 }
    const prompt = this.conversation.userText().join("\n")
    const text = replyWords(
      `realtime|${String(this.session.instructions ?? "")}|${prompt}`,
      this.ctx.options.text.replyWords
    ).join(" ")
    const response = {
      object: "realtime.response",
      id,
      status: "in_progress",
      status_details: null,
      output: [] as Array<unknown>,
      usage: null,
      [field]: modalities
    }
    this.send({ type: "response.created", response })
    const item = {
      id: itemId,
      object: "realtime.item",
      type: "message",
      role: "assistant",
      status: "in_progress",
      content: [] as Array<unknown>
    }
    // The response's item joins the conversation as it starts (unless `conversation: "none"`).
    const kept = r.conversation !== "none"
    const previous = this.conversation.lastId()
    if (kept) this.conversation.add(itemId, item, undefined, audio ? 0 : undefined)
    this.send({ type: "response.output_item.added", response_id: id, output_index: 0, item })
    if (kept)
      this.send({
        type: this.version === "v1" ? "conversation.item.created" : "conversation.item.added",
        previous_item_id: previous,
        item
      })
    const partType = audio ? this.names.audioPart : this.names.textPart
    this.send({
      type: "response.content_part.added",
      ...base,
      part: audio ? { type: partType, transcript: "" } : { type: partType, text: "" }
    })
    let streamed = ""
    for (const piece of tokenPieces(text)) {
      if (!this.out.open || this.active.cancelled) break
      if (audio) {
        this.send({
          type: this.names.audioDelta,
          ...base,
          delta: pcmTone(hash32(piece), AUDIO_MS_PER_WORD).toString("base64")
        })
        this.send({ type: this.names.transcriptDelta, ...base, delta: piece })
        this.conversation.addAudio(itemId, AUDIO_MS_PER_WORD)
      } else this.send({ type: this.names.textDelta, ...base, delta: piece })
      streamed += piece
      await pace(this.ctx)
    }
    if (!this.out.open) return void (this.active = undefined)
    const status = this.active.cancelled ? "cancelled" : "completed"
    if (audio) {
      this.send({ type: this.names.audioDone, ...base })
      this.send({ type: this.names.transcriptDone, ...base, transcript: streamed })
    } else this.send({ type: this.names.textDone, ...base, text: streamed })
    const part = audio ? { type: partType, transcript: streamed } : { type: partType, text: streamed }
    this.send({ type: "response.content_part.done", ...base, part })
    const doneItem = { ...item, status: status === "completed" ? "completed" : "incomplete", content: [part] }
    if (kept) this.conversation.finish(itemId, doneItem)
    this.send({ type: "response.output_item.done", response_id: id, output_index: 0, item: doneItem })
    if (kept && this.version === "v2")
      this.send({ type: "conversation.item.done", previous_item_id: previous, item: doneItem })
    const inputTokens = estimateTokens(prompt) + estimateTokens(String(this.session.instructions ?? ""))
    const outText = tokenPieces(streamed).length
    const outAudio = audio ? Math.ceil((outText * AUDIO_MS_PER_WORD) / 50) : 0
    this.active = undefined
    this.send({
      type: "response.done",
      response: {
        ...response,
        status,
        output: [doneItem],
        usage: {
          total_tokens: inputTokens + outText + outAudio,
          input_tokens: inputTokens,
          output_tokens: outText + outAudio,
          input_token_details: { text_tokens: inputTokens, audio_tokens: 0, cached_tokens: 0 },
          output_token_details: { text_tokens: outText, audio_tokens: outAudio }
        }
      }
    })
  }
}

/** The realtime WebSocket route (`realtime` in counters and faults). */
export const realtimeRoute: WsRoute = {
  name: "realtime",
  path: "/v1/realtime",
  accept: (req, url, ctx) => {
    const key = realtimeKey(req)
    if (key === undefined || !ctx.options.keys.has(key)) {
      const f = authFailure("openai", key === undefined)
      return { ok: false, status: f.status, body: f.body }
    }
    const model = url.searchParams.get("model")
    if (model === null || model === "")
      return badRequest("query parameter model is required", "missing_required_parameter", "model")
    if (!REALTIME_MODELS.has(model))
      return badRequest(`model not found: ${model.slice(0, 100)} is not a realtime model`, "model_not_found", "model")
    return { ok: true }
  },
  handle: (ws: WebSocket, _req, url, ctx) => {
    const model = url.searchParams.get("model") ?? ""
    const out = makeWsSender(ws)
    const session = new RealtimeSession(out, ctx, REALTIME_MODELS.get(model) ?? "v1", model)
    ws.on("message", (data, isBinary) => session.onMessage(data, isBinary))
    ws.on("error", () => ws.terminate())
  }
}
