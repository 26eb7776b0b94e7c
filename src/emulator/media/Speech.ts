/**
 * E14 `POST /v1/audio/speech`: raw audio bytes of the requested format with its content type — a
 * deterministic tone for `wav`, `pcm` and `flac`, valid silent streams for `mp3`, `opus` and `aac`.
 */
import { aacSilence, flac, mp3Silence, opusSilence, pcm, tone, wav } from "./Audio.js"
import { errorBody } from "../server/Family.js"
import { findModel } from "../gateway/Models.js"
import type { Reply, Route } from "../server/Route.js"

/** Voices the emulator accepts (the contract's six plus the newer upstream ones). */
// E14 lists exactly six voices; upstream's newer ones are not part of the contract.
export const VOICES = ["alloy", "echo", "fable", "onyx", "nova", "shimmer"]

/** Content type of each `response_format`. */
export const CONTENT_TYPES: Readonly<Record<string, string>> = {
  mp3: "audio/mpeg",
  opus: "audio/opus",
  aac: "audio/aac",
  flac: "audio/flac",
  wav: "audio/wav",
  pcm: "audio/pcm"
}

/** Audio length for an input: 0.3 s plus 30 ms a character, at most 4 s, divided by `speed`. */
export const speechSeconds = (input: string, speed: number): number => Math.min(4, 0.3 + input.length * 0.03) / speed

/** The bytes of `format` for `seconds` at `frequency`. */
export const renderSpeech = (format: string, seconds: number, frequency: number): Buffer => {
  switch (format) {
    case "wav":
      return wav(tone(seconds, frequency))
    case "pcm":
      return pcm(tone(seconds, frequency))
    case "flac":
      return flac(tone(seconds, frequency))
    case "opus":
      return opusSilence(seconds)
    case "aac":
      return aacSilence(seconds)
    default:
      return mp3Silence(seconds)
  }
}

/** Size of each `speech.audio.delta` chunk before base64. */
const SSE_CHUNK = 8192

/** `stream_format: "sse"`: data-only events `speech.audio.delta` with base64 chunks, then `speech.audio.done`. */
const streamSpeech = async (reply: Reply, audio: Buffer, inputChars: number): Promise<void> => {
  const w = reply.sse()
  for (let at = 0; at < audio.length && !w.closed; at += SSE_CHUNK)
    await w.event(
      undefined,
      JSON.stringify({ type: "speech.audio.delta", audio: audio.subarray(at, at + SSE_CHUNK).toString("base64") })
    )
  const input = Math.max(1, Math.ceil(inputChars / 4))
  const output = Math.ceil(audio.length / 64)
  w.final()
  await w.event(
    undefined,
    JSON.stringify({
      type: "speech.audio.done",
      usage: { input_tokens: input, output_tokens: output, total_tokens: input + output }
    })
  )
  w.end()
}

/** Upstream's limit on `input`, in characters (code points: an emoji is one). */
const MAX_INPUT_CHARACTERS = 4096

/** The characters of a string as upstream counts them: code points, not UTF-16 code units. */
export const characters = (s: string): number => {
  let n = 0
  for (const _ of s) n++
  return n
}

const bad = (reply: Reply, message: string, param: string): void =>
  reply.json(400, errorBody("openai", 400, message, { param }))

/** `POST /v1/audio/speech`. */
export const speechRoute: Route = {
  name: "speech",
  streams: true,
  method: "POST",
  path: "/v1/audio/speech",
  handle: (req, reply) => {
    const body = req.json
    if (typeof body !== "object" || body === null || Array.isArray(body))
      return bad(reply, "We could not parse the JSON body of your request.", "body")
    const b = body as Record<string, unknown>
    if (typeof b.model !== "string" || b.model.length === 0)
      return bad(reply, "you must provide a model parameter", "model")
    if (findModel(b.model)?.kind !== "speech") {
      const message = `The model \`${b.model}\` does not exist or is not a speech model.`
      return reply.json(404, errorBody("openai", 404, message, { param: "model", code: "model_not_found" }))
    }
    if (typeof b.input !== "string" || b.input.trim().length === 0)
      return bad(reply, "Missing required parameter: 'input'.", "input")
    const inputChars = characters(b.input)
    if (inputChars > MAX_INPUT_CHARACTERS)
      return bad(
        reply,
        `Invalid 'input': string too long. Expected a string with maximum length ${MAX_INPUT_CHARACTERS}, but got a string with length ${inputChars} instead.`,
        "input"
      )
    if (b.instructions !== undefined && typeof b.instructions !== "string")
      return bad(reply, "Invalid type for 'instructions': expected a string.", "instructions")
    if (b.voice === undefined) return bad(reply, "Missing required parameter: 'voice'.", "voice")
    if (typeof b.voice !== "string" || !VOICES.includes(b.voice))
      return bad(reply, `Invalid 'voice': expected one of ${VOICES.join(", ")}.`, "voice")
    const format = b.response_format ?? "mp3"
    if (typeof format !== "string" || CONTENT_TYPES[format] === undefined)
      return bad(
        reply,
        `Invalid 'response_format': expected one of ${Object.keys(CONTENT_TYPES).join(", ")}.`,
        "response_format"
      )
    const speed = b.speed ?? 1
    if (typeof speed !== "number" || !(speed >= 0.25 && speed <= 4))
      return bad(reply, "Invalid 'speed': must be between 0.25 and 4.0.", "speed")
    const streamFormat = b.stream_format ?? "audio"
    if (streamFormat !== "audio" && streamFormat !== "sse")
      return bad(reply, "Invalid 'stream_format': expected 'audio' or 'sse'.", "stream_format")
    if (streamFormat === "sse" && b.model.startsWith("tts-1"))
      return bad(reply, "stream_format 'sse' is not supported for this model.", "stream_format")
    const frequency = 220 + VOICES.indexOf(b.voice) * 40
    const audio = renderSpeech(format, speechSeconds(b.input, speed), frequency)
    if (streamFormat === "audio") return reply.bytes(200, CONTENT_TYPES[format]!, audio)
    return streamSpeech(reply, audio, inputChars)
  }
}
