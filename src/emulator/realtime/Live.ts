/**
 * The live WebSocket at `/ws/v1beta/models/{model}/liveStream` (native-content auth: `?key=`, Bearer or
 * `x-vendor-api-key`). The first message must be `setup`; each completed turn is answered with
 * `serverContent` parts (text, or PCM16 24 kHz audio as `inlineData`), `generationComplete`, then
 * `turnComplete` with Live-style `usageMetadata`. As upstream, failures close the socket (1007/1008).
 */
import { MAX_JSON_DEPTH, tooDeep } from "../server/JsonDepth.js"
import type { RawData, WebSocket } from "ws"
import { authenticate } from "../server/Auth.js"
import type { EmulatorContext } from "../server/Context.js"
import { pcmTone, PCM_RATE } from "../media/Pcm.js"
import type { WsRoute } from "../server/Route.js"
import { estimateTokens, hash32, pace, replyWords, tokenPieces } from "../text/TextGen.js"
import { makeWsSender, type WsSender } from "../server/WsSender.js"

const isTextPart = (p: unknown): p is { text: string } =>
  typeof p === "object" && p !== null && "text" in p && typeof p.text === "string"

/** Largest client message read; larger ones close the socket with 1009. */
export const MAX_LIVE_MESSAGE_BYTES = 15 * 1024 * 1024

/** Close code and reason for an invalid message (the live WebSocket protocol). */
export const INVALID_ARGUMENT = { code: 1007, reason: "Request contains an invalid argument." } as const

const PATH = /^\/ws\/v1beta\/models\/([^/]+)\/liveStream$/

/** Live models: ids containing `live` (e.g. `zeta-live-2.5-flash-native-audio`). Others close with 1008 at setup. */
export const isLiveModel = (model: string): boolean => model.startsWith("zeta-") && model.includes("live")

/** Milliseconds of audio per reply word, sent as one `inlineData` chunk. */
const AUDIO_MS_PER_WORD = 80
const CLIENT_KEYS = new Set(["setup", "clientContent", "realtimeInput", "toolResponse"])

type Modality = "TEXT" | "AUDIO"

/** One connection's state. */
class LiveSession {
  private modality: Modality | undefined
  private outputTranscription = false
  private systemText = ""
  private readonly turns: Array<string> = []
  private busy = false
  /** Completed turns not answered yet (a turn that arrives mid-reply is answered after it). */
  private pending = 0

  constructor(
    private readonly out: WsSender,
    private readonly ctx: EmulatorContext,
    private readonly model: string
  ) {}

  private invalid(detail: string): void {
    this.out.close(INVALID_ARGUMENT.code, `${INVALID_ARGUMENT.reason} ${detail}`)
  }

  onMessage(data: RawData): void {
    const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data)
    if (bytes.byteLength > MAX_LIVE_MESSAGE_BYTES) return this.out.close(1009, "Message too big.")
    let msg: unknown
    try {
      msg = JSON.parse(bytes.toString("utf8"))
    } catch {
      return this.invalid("Invalid JSON payload.")
    }
    if (tooDeep(msg, MAX_JSON_DEPTH)) return this.invalid(`A message may nest at most ${MAX_JSON_DEPTH} levels.`)
    if (typeof msg !== "object" || msg === null || Array.isArray(msg))
      return this.invalid("A message must be a JSON object.")
    const keys = Object.keys(msg)
    if (keys.length !== 1 || !CLIENT_KEYS.has(keys[0]!))
      return this.invalid(
        `A message has exactly one of setup, clientContent, realtimeInput, toolResponse; got ${keys.join(", ").slice(0, 80)}.`
      )
    const key = keys[0]!
    const body = (msg as Record<string, unknown>)[key]
    if (this.modality === undefined) {
      if (key !== "setup") return this.invalid("The first message must be setup.")
      return this.setup(body)
    }
    if (key === "setup") return this.invalid("setup may be sent only once.")
    if (typeof body !== "object" || body === null) return this.invalid(`${key} must be an object.`)
    const b = body as Record<string, unknown>
    if (key === "clientContent") return this.clientContent(b)
    if (key === "realtimeInput" && typeof b.text === "string") return this.turn(b.text)
    // Other realtimeInput (audio, video, activity signals) and toolResponse are accepted silently.
  }

  private setup(body: unknown): void {
    if (typeof body !== "object" || body === null) return this.invalid("setup must be an object.")
    const s = body as Record<string, unknown>
    if (s.model !== undefined && typeof s.model !== "string") return this.invalid("setup.model must be a string.")
    if (!isLiveModel(this.model))
      return this.out.close(1008, `Requested entity was not found: ${this.model.slice(0, 60)}`)
    if (typeof s.model === "string" && s.model.replace(/^models\//, "") !== this.model)
      return this.invalid("setup.model does not match the path's model.")
    const gc = (s.generationConfig ?? {}) as Record<string, unknown>
    const mods = gc.responseModalities
    if (mods !== undefined) {
      if (!Array.isArray(mods) || mods.length !== 1 || !["TEXT", "AUDIO"].includes(String(mods[0]).toUpperCase()))
        return this.invalid("generationConfig.responseModalities takes exactly one of TEXT or AUDIO.")
      this.modality = String(mods[0]).toUpperCase() as Modality
    } else this.modality = "AUDIO"
    this.outputTranscription = typeof s.outputAudioTranscription === "object" && s.outputAudioTranscription !== null
    const si = s.systemInstruction as { parts?: unknown } | undefined
    this.systemText = Array.isArray(si?.parts)
      ? si.parts.map((p: unknown) => (isTextPart(p) ? p.text : "")).join(" ")
      : ""
    this.out.send({ setupComplete: {} })
  }

  private clientContent(b: Record<string, unknown>): void {
    if (b.turns !== undefined && !Array.isArray(b.turns)) return this.invalid("clientContent.turns must be an array.")
    const turns = (b.turns ?? []) as Array<unknown>
    const texts: Array<string> = []
    for (const t of turns) {
      const parts = typeof t === "object" && t !== null ? (t as { parts?: unknown }).parts : undefined
      if (!Array.isArray(parts)) return this.invalid("Each turn needs a parts array.")
      for (const p of parts)
        if (typeof p === "object" && p !== null && typeof (p as { text?: unknown }).text === "string")
          texts.push((p as { text: string }).text)
    }
    if (b.turnComplete === true) this.turn(texts.join("\n"))
    else if (texts.length > 0) this.remember(texts.join("\n"))
  }

  private remember(text: string): void {
    this.turns.push(text)
    if (this.turns.length > 32) this.turns.shift()
  }

  /** Answers a completed user turn; replies never interleave. */
  private turn(text: string): void {
    this.remember(text)
    this.pending++
    if (this.busy) return
    this.busy = true
    void (async () => {
      while (this.pending > 0 && this.out.open) {
        this.pending--
        await this.reply()
      }
      this.busy = false
    })().catch(() => this.out.close(1011, "Internal error."))
  }

  private async reply(): Promise<void> {
    const prompt = this.turns.join("\n")
    const reply = replyWords(`live|${this.model}|${this.systemText}|${prompt}`, this.ctx.options.text.replyWords).join(
      " "
    )
    const audio = this.modality === "AUDIO"
    let sent = 0
    for (const piece of tokenPieces(reply)) {
      if (!this.out.open) return
      const part = audio
        ? {
            inlineData: {
              mimeType: `audio/pcm;rate=${PCM_RATE}`,
              data: pcmTone(hash32(piece), AUDIO_MS_PER_WORD).toString("base64")
            }
          }
        : { text: piece }
      this.out.send({
        serverContent: {
          modelTurn: { parts: [part] },
          ...(audio && this.outputTranscription ? { outputTranscription: { text: piece } } : {})
        }
      })
      sent++
      await pace(this.ctx)
    }
    this.out.send({ serverContent: { generationComplete: true } })
    const promptTokens = estimateTokens(prompt) + estimateTokens(this.systemText)
    const responseTokens = audio ? Math.ceil((sent * AUDIO_MS_PER_WORD) / 40) : sent
    const modality = audio ? "AUDIO" : "TEXT"
    this.out.send({
      serverContent: { turnComplete: true },
      usageMetadata: {
        promptTokenCount: promptTokens,
        responseTokenCount: responseTokens,
        totalTokenCount: promptTokens + responseTokens,
        promptTokensDetails: [{ modality: "TEXT", tokenCount: promptTokens }],
        responseTokensDetails: [{ modality, tokenCount: responseTokens }]
      }
    })
    this.remember(reply)
  }
}

/** The live WebSocket route (`live` in counters and faults). */
export const liveRoute: WsRoute = {
  name: "live",
  path: "/ws/v1beta/models/{model}/liveStream",
  accept: (req, url, ctx) => {
    const auth = authenticate(ctx, req.headers, url, "native")
    if (!auth.ok) return { ok: false, status: auth.status, body: auth.body }
    if (!PATH.test(url.pathname))
      return { ok: false, status: 404, body: { error: { code: 404, message: "Not found.", status: "NOT_FOUND" } } }
    return { ok: true }
  },
  handle: (ws: WebSocket, _req, url, ctx, params) => {
    const model = params.model ?? PATH.exec(url.pathname)?.[1] ?? ""
    const session = new LiveSession(makeWsSender(ws), ctx, model)
    ws.on("message", (data) => session.onMessage(data))
    ws.on("error", () => ws.terminate())
  }
}
