/**
 * What differs between realtime v1 and v2: event names, content-part types and session shapes. V1 has
 * the beta event names and a flat session with `modalities`; v2 the GA names,
 * `session.type: "realtime"` and `output_modalities`.
 */

/** The realtime event style a model speaks. */
export type RealtimeVersion = "v1" | "v2"

/** Realtime models and their event style. */
export const REALTIME_MODELS: ReadonlyMap<string, RealtimeVersion> = new Map([
  ["gpt-realtime", "v1"],
  ["gpt-realtime-mini", "v1"],
  ["gpt-realtime-2", "v2"]
])

/** An output mode of a response. */
export type Modality = "text" | "audio"

/** Server event names that differ by version. */
export interface RealtimeNames {
  readonly textDelta: string
  readonly textDone: string
  readonly audioDelta: string
  readonly audioDone: string
  readonly transcriptDelta: string
  readonly transcriptDone: string
  readonly textPart: string
  readonly audioPart: string
}

/** The event names of `version` (the realtime v1/v2 server events). */
export const namesOf = (version: RealtimeVersion): RealtimeNames =>
  version === "v1"
    ? {
        textDelta: "response.text.delta",
        textDone: "response.text.done",
        audioDelta: "response.audio.delta",
        audioDone: "response.audio.done",
        transcriptDelta: "response.audio_transcript.delta",
        transcriptDone: "response.audio_transcript.done",
        textPart: "text",
        audioPart: "audio"
      }
    : {
        textDelta: "response.output_text.delta",
        textDone: "response.output_text.done",
        audioDelta: "response.output_audio.delta",
        audioDone: "response.output_audio.done",
        transcriptDelta: "response.output_audio_transcript.delta",
        transcriptDone: "response.output_audio_transcript.done",
        textPart: "output_text",
        audioPart: "output_audio"
      }

/** The session a connection starts with. */
export const initialSession = (version: RealtimeVersion, id: string, model: string): Record<string, unknown> =>
  version === "v1"
    ? {
        id,
        object: "realtime.session",
        model,
        modalities: ["text", "audio"],
        instructions: "",
        voice: "alloy",
        input_audio_format: "pcm16",
        output_audio_format: "pcm16",
        input_audio_transcription: null,
        turn_detection: null,
        tools: [],
        tool_choice: "auto",
        temperature: 0.8,
        max_response_output_tokens: "inf"
      }
    : {
        type: "realtime",
        id,
        object: "realtime.session",
        model,
        output_modalities: ["audio"],
        instructions: "",
        audio: {
          input: { format: { type: "audio/pcm", rate: 24000 }, transcription: null, turn_detection: null },
          output: { format: { type: "audio/pcm", rate: 24000 }, voice: "alloy", speed: 1 }
        },
        tools: [],
        tool_choice: "auto",
        max_output_tokens: "inf"
      }

/** A client-side mistake, answered with an `error` event (the session stays open). */
export interface ClientProblem {
  readonly code: string
  readonly message: string
  readonly param?: string
}

const MODALITIES: ReadonlyArray<Modality> = ["text", "audio"]

/** Reads a modalities array; undefined when absent, a problem when malformed. */
export const readModalities = (
  v: unknown,
  param: string,
  single: boolean
): ReadonlyArray<Modality> | ClientProblem | undefined => {
  if (v === undefined) return undefined
  if (
    !Array.isArray(v) ||
    v.length === 0 ||
    v.length > 2 ||
    !v.every((m) => MODALITIES.includes(m as Modality)) ||
    new Set(v).size !== v.length
  )
    return { code: "invalid_value", message: `${param} must be a non-empty array of "text" and/or "audio"`, param }
  // GA takes one output modality: text, or audio (which carries its own transcript).
  if (single && v.length !== 1)
    return { code: "invalid_value", message: `${param} takes exactly one of "text" or "audio"`, param }
  return v as ReadonlyArray<Modality>
}

/** The outcome of checking a `session.update`: the fields to merge, or the problem to report. */
export type SessionUpdateCheck =
  | { readonly ok: true; readonly fields: Record<string, unknown> }
  | { readonly ok: false; readonly problem: ClientProblem }

/** Checks a `session.update` session for `version`. */
export const checkSessionUpdate = (version: RealtimeVersion, s: unknown): SessionUpdateCheck => {
  const problem = sessionProblem(version, s)
  if (problem !== undefined) return { ok: false, problem }
  const { id: _id, object: _object, model: _model, ...fields } = s as Record<string, unknown>
  return { ok: true, fields }
}

const sessionProblem = (version: RealtimeVersion, s: unknown): ClientProblem | undefined => {
  if (typeof s !== "object" || s === null || Array.isArray(s))
    return { code: "missing_required_parameter", message: "session must be an object", param: "session" }
  const session = s as Record<string, unknown>
  if (version === "v2") {
    if (session.type !== "realtime")
      return {
        code: session.type === undefined ? "missing_required_parameter" : "invalid_value",
        message: "session.type must be 'realtime'",
        param: "session.type"
      }
    if (session.modalities !== undefined)
      return {
        code: "unknown_parameter",
        message: "Unknown parameter: 'session.modalities'. Use 'session.output_modalities'.",
        param: "session.modalities"
      }
    const m = readModalities(session.output_modalities, "session.output_modalities", true)
    if (m !== undefined && !Array.isArray(m)) return m as ClientProblem
  } else {
    if (session.output_modalities !== undefined)
      return {
        code: "unknown_parameter",
        message: "Unknown parameter: 'session.output_modalities'. Use 'session.modalities'.",
        param: "session.output_modalities"
      }
    const m = readModalities(session.modalities, "session.modalities", false)
    if (m !== undefined && !Array.isArray(m)) return m as ClientProblem
  }
  if (
    session.instructions !== undefined &&
    (typeof session.instructions !== "string" || session.instructions.length > 100_000)
  )
    return { code: "invalid_value", message: "session.instructions must be a string", param: "session.instructions" }
  return undefined
}

/** The `item_id` of a retrieve, truncate or delete event, or the problem with it. */
export const readItemId = (e: Record<string, unknown>): string | ClientProblem => {
  if (e.item_id === undefined || e.item_id === null || e.item_id === "")
    return { code: "missing_required_parameter", message: "Missing required parameter: 'item_id'.", param: "item_id" }
  if (typeof e.item_id !== "string")
    return { code: "invalid_type", message: "Invalid type for 'item_id': expected a string.", param: "item_id" }
  return e.item_id
}

/** A `conversation.item.truncate` event's fields. */
export interface TruncateRequest {
  readonly itemId: string
  readonly contentIndex: number
  readonly audioEndMs: number
}

/** Reads a `conversation.item.truncate` event: `item_id`, and `content_index` and `audio_end_ms` as non-negative integers. */
export const readTruncate = (e: Record<string, unknown>): TruncateRequest | ClientProblem => {
  const itemId = readItemId(e)
  if (typeof itemId !== "string") return itemId
  for (const param of ["content_index", "audio_end_ms"] as const) {
    const v = e[param]
    if (v === undefined || v === null)
      return { code: "missing_required_parameter", message: `Missing required parameter: '${param}'.`, param }
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0)
      return { code: "invalid_value", message: `'${param}' must be a non-negative integer.`, param }
  }
  return { itemId, contentIndex: e.content_index as number, audioEndMs: e.audio_end_ms as number }
}

/** The transcription session a v1 connection starts with (what `transcription_session.update` changes). */
export const initialTranscriptionSession = (id: string): Record<string, unknown> => ({
  id,
  object: "realtime.transcription_session",
  modalities: ["text"],
  input_audio_format: "pcm16",
  input_audio_transcription: null,
  turn_detection: null,
  input_audio_noise_reduction: null,
  include: null
})

const TRANSCRIPTION_FIELDS: ReadonlySet<string> = new Set([
  "modalities",
  "input_audio_format",
  "input_audio_transcription",
  "turn_detection",
  "input_audio_noise_reduction",
  "include",
  "client_secret"
])
const AUDIO_FORMATS: ReadonlyArray<unknown> = ["pcm16", "g711_ulaw", "g711_alaw"]

/** Checks a v1 `transcription_session.update` session: an object of the beta transcription session's fields. */
export const checkTranscriptionSessionUpdate = (s: unknown): SessionUpdateCheck => {
  if (typeof s !== "object" || s === null || Array.isArray(s))
    return {
      ok: false,
      problem: { code: "missing_required_parameter", message: "session must be an object", param: "session" }
    }
  const { id: _id, object: _object, ...fields } = s as Record<string, unknown>
  const unknown = Object.keys(fields).find((k) => !TRANSCRIPTION_FIELDS.has(k))
  if (unknown !== undefined)
    return {
      ok: false,
      problem: {
        code: "unknown_parameter",
        message: `Unknown parameter: 'session.${unknown.slice(0, 80)}'.`,
        param: `session.${unknown.slice(0, 80)}`
      }
    }
  if (fields.input_audio_format !== undefined && !AUDIO_FORMATS.includes(fields.input_audio_format))
    return {
      ok: false,
      problem: {
        code: "invalid_value",
        message: "session.input_audio_format must be one of pcm16, g711_ulaw, g711_alaw",
        param: "session.input_audio_format"
      }
    }
  return { ok: true, fields }
}
