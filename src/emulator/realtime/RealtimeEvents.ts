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
