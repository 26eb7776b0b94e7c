import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  buildSessionUpdate,
  decodeRealtimeServerEvent,
  realtimeAudioDelta,
  realtimeModels,
  realtimeTextDelta,
  realtimeTranscriptDelta,
  realtimeVersion,
  validateRealtimeClientEvent
} from "../../src/core/realtime/Realtime.js"
import { extendRouteCatalog } from "../../src/core/gateway/Catalog.js"

describe("realtimeVersion", () => {
  it.effect("reads the event style of each model from the one catalog, which a user may extend", () =>
    Effect.gen(function* () {
      expect(yield* realtimeVersion("gpt-realtime")).toBe("v1")
      expect(yield* realtimeVersion("gpt-realtime-mini")).toBe("v1")
      expect(yield* realtimeVersion("gpt-realtime-2")).toBe("v2")
      expect(realtimeModels).toEqual({ "gpt-realtime-2": "v2", "gpt-realtime": "v1", "gpt-realtime-mini": "v1" })
      const catalog = extendRouteCatalog([
        { match: { exact: "gpt-realtime-3" }, capabilities: ["realtime"], realtime: "v2" }
      ])
      expect(yield* realtimeVersion("gpt-realtime-3", { catalog })).toBe("v2")
    })
  )

  it.effect(
    "refuses another family's model naming its family and endpoint, and an unlisted one unless allowUnknownModels",
    () =>
      Effect.gen(function* () {
        const chat = yield* Effect.flip(realtimeVersion("gpt-4o"))
        expect(chat).toMatchObject({ field: "model", rule: "route" })
        expect(chat.message).toContain("is a chat model")
        expect(chat.message).toContain("POST /v1/chat/completions")
        const live = yield* Effect.flip(buildSessionUpdate("zeta-live-2.5-flash-native-audio", {}))
        expect(live.message).toContain("GET /ws/v1beta/models/zeta-live-2.5-flash-native-audio/liveStream")
        const unknown = yield* Effect.flip(realtimeVersion("gpt-realtime-9"))
        expect(unknown).toMatchObject({ field: "model", rule: "unknown-model" })
        for (const id of ["gpt-realtime", "gpt-realtime-mini", "gpt-realtime-2"]) expect(unknown.message).toContain(id)
        expect(yield* realtimeVersion("gpt-realtime-9", { allowUnknownModels: true })).toBe("v1")
        expect(yield* Effect.flip(realtimeVersion("gpt-9"))).toMatchObject({ rule: "unknown-model" })
      })
  )
})

describe("buildSessionUpdate", () => {
  it.effect("builds a flat v1 session with modalities", () =>
    Effect.gen(function* () {
      const event = yield* buildSessionUpdate("gpt-realtime", {
        modalities: ["text", "audio"],
        voice: "alloy",
        instructions: "be brief"
      })
      expect(event).toEqual({
        type: "session.update",
        session: { modalities: ["text", "audio"], voice: "alloy", instructions: "be brief" }
      })
    })
  )

  it.effect("builds a v2 session with type realtime and never modalities", () =>
    Effect.gen(function* () {
      const event = yield* buildSessionUpdate("gpt-realtime-2", {
        output_modalities: ["audio"],
        instructions: "be brief"
      })
      expect(event).toEqual({
        type: "session.update",
        session: { type: "realtime", output_modalities: ["audio"], instructions: "be brief" }
      })
      const empty = yield* buildSessionUpdate("gpt-realtime-2", {})
      expect(empty.session).toEqual({ type: "realtime" })
    })
  )

  it.effect("translates a single v1 modality to v2 output_modalities", () =>
    Effect.gen(function* () {
      const event = yield* buildSessionUpdate("gpt-realtime-2", { modalities: ["text"] })
      expect(event.session).toEqual({ type: "realtime", output_modalities: ["text"] })
      expect("modalities" in event.session).toBe(false)
    })
  )

  it.effect("refuses two v1 modalities for v2 as ambiguous", () =>
    Effect.gen(function* () {
      const e = yield* Effect.flip(buildSessionUpdate("gpt-realtime-2", { modalities: ["text", "audio"] }))
      expect(e).toMatchObject({ field: "session.modalities", rule: "wrong-version" })
      expect(e.message).toContain("output_modalities")
    })
  )

  it.effect("refuses fields of the other style, naming the right field", () =>
    Effect.gen(function* () {
      const v2voice = yield* Effect.flip(buildSessionUpdate("gpt-realtime-2", { voice: "alloy" }))
      expect(v2voice).toMatchObject({ field: "session.voice", rule: "wrong-version" })
      expect(v2voice.message).toContain("audio.output.voice")
      const v1out = yield* Effect.flip(buildSessionUpdate("gpt-realtime", { output_modalities: ["text"] }))
      expect(v1out).toMatchObject({ field: "session.output_modalities", rule: "wrong-version" })
      expect(v1out.message).toContain("modalities")
      expect(yield* Effect.flip(buildSessionUpdate("gpt-realtime", { type: "realtime" }))).toMatchObject({
        field: "session.type"
      })
      expect(yield* Effect.flip(buildSessionUpdate("gpt-realtime-2", { type: "transcription" }))).toMatchObject({
        field: "session.type",
        rule: "one-of"
      })
    })
  )

  it.effect("checks modality values", () =>
    Effect.gen(function* () {
      expect(yield* Effect.flip(buildSessionUpdate("gpt-realtime", { modalities: ["video"] }))).toMatchObject({
        field: "session.modalities[0]",
        rule: "one-of"
      })
      expect(yield* Effect.flip(buildSessionUpdate("gpt-realtime", { modalities: [] }))).toMatchObject({
        field: "session.modalities",
        rule: "non-empty"
      })
      expect(
        yield* Effect.flip(buildSessionUpdate("gpt-realtime-2", { output_modalities: ["text", "audio"] }))
      ).toMatchObject({ rule: "max-items" })
    })
  )
})

describe("closed realtime sessions and events", () => {
  it.effect("refuses an unknown session field naming the nearest known one, per style", () =>
    Effect.gen(function* () {
      const v1 = yield* Effect.flip(buildSessionUpdate("gpt-realtime", { modalites: ["text"] }))
      expect(v1).toMatchObject({ field: "session.modalites", rule: "unknown-field" })
      expect(v1.message).toContain("unknown field `modalites` in session; did you mean `modalities`?")
      const v2 = yield* Effect.flip(buildSessionUpdate("gpt-realtime-2", { instrucions: "hi" }))
      expect(v2.message).toContain("did you mean `instructions`?")
      const none = yield* Effect.flip(buildSessionUpdate("gpt-realtime-2", { zzzzzzzz: 1 }))
      expect(none.message).not.toContain("did you mean")
      const audio = yield* Effect.flip(buildSessionUpdate("gpt-realtime-2", { audio: { output: { voise: "marin" } } }))
      expect(audio).toMatchObject({ field: "session.audio.output.voise", rule: "unknown-field" })
      expect(audio.message).toContain("did you mean `voice`?")
      const typed = yield* Effect.flip(buildSessionUpdate("gpt-realtime", { instructions: 5 }))
      expect(typed).toMatchObject({
        field: "session.instructions",
        rule: "type",
        message: "session.instructions: expected a string, got 5"
      })
    })
  )

  it.effect("merges session.extra into the session and refuses a key that names a known field", () =>
    Effect.gen(function* () {
      const ok = yield* buildSessionUpdate("gpt-realtime-2", { output_modalities: ["text"], extra: { new_knob: true } })
      expect(ok.session).toEqual({ type: "realtime", output_modalities: ["text"], new_knob: true })
      const clash = yield* Effect.flip(buildSessionUpdate("gpt-realtime", { extra: { voice: "alloy" } }))
      expect(clash).toMatchObject({ field: "session.extra.voice", rule: "extra-known" })
    })
  )

  it.effect("refuses an unknown top-level event field or response field, and merges an event's extra", () =>
    Effect.gen(function* () {
      const e = yield* Effect.flip(
        validateRealtimeClientEvent("gpt-realtime", { type: "input_audio_buffer.append", audio: "AAAA", audoi: "x" })
      )
      expect(e).toMatchObject({ field: "audoi", rule: "unknown-field" })
      expect(e.message).toContain("did you mean `audio`?")
      const r = yield* Effect.flip(
        validateRealtimeClientEvent("gpt-realtime-2", { type: "response.create", response: { instruction: "x" } })
      )
      expect(r).toMatchObject({ field: "response.instruction", rule: "unknown-field" })
      const extra = yield* validateRealtimeClientEvent("gpt-realtime", {
        type: "input_audio_buffer.commit",
        extra: { trace: "t1" }
      })
      expect(extra).toEqual({ type: "input_audio_buffer.commit", trace: "t1" })
    })
  )

  it.effect("refuses values that cannot be sent as JSON, naming the path", () =>
    Effect.gen(function* () {
      const e = yield* Effect.flip(buildSessionUpdate("gpt-realtime", { instructions: 1n }))
      expect(e).toMatchObject({ field: "session.instructions", rule: "json" })
    })
  )
})

describe("validateRealtimeClientEvent", () => {
  it.effect("accepts the client events of each style with their required fields", () =>
    Effect.gen(function* () {
      const ok = [
        { type: "input_audio_buffer.append", audio: "AAAA" },
        { type: "input_audio_buffer.commit" },
        { type: "conversation.item.create", item: { type: "message", role: "user", content: [] } },
        { type: "conversation.item.truncate", item_id: "i1", content_index: 0, audio_end_ms: 1500 },
        { type: "response.create" },
        { type: "response.cancel", response_id: "r1" }
      ]
      for (const event of ok) {
        expect(yield* validateRealtimeClientEvent("gpt-realtime", event)).toEqual(event)
        expect(yield* validateRealtimeClientEvent("gpt-realtime-2", event)).toEqual(event)
      }
    })
  )

  it.effect("refuses unknown types, and v1-only types on v2", () =>
    Effect.gen(function* () {
      expect(yield* Effect.flip(validateRealtimeClientEvent("gpt-realtime", { type: "session.create" }))).toMatchObject(
        { field: "type", rule: "one-of" }
      )
      expect(
        yield* validateRealtimeClientEvent("gpt-realtime", { type: "transcription_session.update", session: {} })
      ).toBeDefined()
      expect(
        yield* Effect.flip(
          validateRealtimeClientEvent("gpt-realtime-2", { type: "transcription_session.update", session: {} })
        )
      ).toMatchObject({ field: "type" })
    })
  )

  it.effect("refuses events missing their required fields", () =>
    Effect.gen(function* () {
      expect(
        yield* Effect.flip(validateRealtimeClientEvent("gpt-realtime", { type: "input_audio_buffer.append" }))
      ).toMatchObject({ field: "audio", rule: "required" })
      expect(
        yield* Effect.flip(validateRealtimeClientEvent("gpt-realtime", { type: "conversation.item.delete" }))
      ).toMatchObject({ field: "item_id" })
      expect(
        yield* Effect.flip(
          validateRealtimeClientEvent("gpt-realtime", {
            type: "conversation.item.truncate",
            item_id: "i",
            content_index: 0,
            audio_end_ms: -1
          })
        )
      ).toMatchObject({ field: "audio_end_ms", rule: "range" })
      expect(
        yield* Effect.flip(validateRealtimeClientEvent("gpt-realtime", { type: "conversation.item.create", item: "x" }))
      ).toMatchObject({ field: "item" })
    })
  )

  it.effect("checks session.update and response.create field names per style", () =>
    Effect.gen(function* () {
      const v2 = yield* validateRealtimeClientEvent("gpt-realtime-2", {
        type: "session.update",
        session: { modalities: ["audio"] }
      })
      expect(v2).toEqual({ type: "session.update", session: { type: "realtime", output_modalities: ["audio"] } })
      const v2resp = yield* Effect.flip(
        validateRealtimeClientEvent("gpt-realtime-2", {
          type: "response.create",
          response: { max_response_output_tokens: 100 }
        })
      )
      expect(v2resp).toMatchObject({ field: "response.max_response_output_tokens", rule: "wrong-version" })
      const v1resp = yield* Effect.flip(
        validateRealtimeClientEvent("gpt-realtime", {
          type: "response.create",
          response: { output_modalities: ["text"] }
        })
      )
      expect(v1resp).toMatchObject({ field: "response.output_modalities", rule: "wrong-version" })
      const v1ok = yield* validateRealtimeClientEvent("gpt-realtime", {
        type: "response.create",
        response: { modalities: ["text"], instructions: "hi" }
      })
      expect(v1ok).toEqual({ type: "response.create", response: { modalities: ["text"], instructions: "hi" } })
    })
  )
})

describe("realtime server events", () => {
  it.effect("decodes text deltas of both styles and reads them with one accessor", () =>
    Effect.gen(function* () {
      const v1 = yield* decodeRealtimeServerEvent({
        type: "response.text.delta",
        event_id: "e1",
        response_id: "r",
        item_id: "i",
        output_index: 0,
        content_index: 0,
        delta: "Hel"
      })
      const v2 = yield* decodeRealtimeServerEvent(
        JSON.stringify({ type: "response.output_text.delta", event_id: "e2", delta: "lo" })
      )
      expect([v1, v2].map(realtimeTextDelta)).toEqual(["Hel", "lo"])
      const audio = yield* decodeRealtimeServerEvent({
        type: "response.output_audio.delta",
        event_id: "e3",
        delta: "AAAA"
      })
      expect(realtimeTextDelta(audio)).toBeUndefined()
      expect(realtimeAudioDelta(audio)).toBe("AAAA")
      const transcript = yield* decodeRealtimeServerEvent({
        type: "response.audio_transcript.delta",
        event_id: "e4",
        delta: "hi"
      })
      expect(realtimeTranscriptDelta(transcript)).toBe("hi")
    })
  )

  it.effect("decodes session, error, response and done events", () =>
    Effect.gen(function* () {
      const created = yield* decodeRealtimeServerEvent({
        type: "session.created",
        event_id: "e",
        session: { id: "s1", modalities: ["text"] }
      })
      expect(created).toMatchObject({ type: "session.created", session: { id: "s1" } })
      const error = yield* decodeRealtimeServerEvent({
        type: "error",
        event_id: "e",
        error: { type: "invalid_request_error", code: null, message: "bad", param: null, event_id: "c1" }
      })
      expect(error).toMatchObject({ type: "error", error: { message: "bad", event_id: "c1" } })
      const done = yield* decodeRealtimeServerEvent({
        type: "response.done",
        event_id: "e",
        response: { id: "r1", status: "completed", output: [] }
      })
      expect(done).toMatchObject({ response: { id: "r1", status: "completed", output: [] } })
      const textDone = yield* decodeRealtimeServerEvent({
        type: "response.output_text.done",
        event_id: "e",
        text: "Hello"
      })
      expect(textDone).toMatchObject({ text: "Hello" })
    })
  )

  it.effect("keeps an unknown event whole, and fails a known event with the wrong fields", () =>
    Effect.gen(function* () {
      const other = yield* decodeRealtimeServerEvent({
        type: "rate_limits.updated",
        event_id: "e",
        rate_limits: [{ name: "requests" }]
      })
      expect(other).toEqual({ type: "rate_limits.updated", event_id: "e", rate_limits: [{ name: "requests" }] })
      const wrong = yield* Effect.flip(decodeRealtimeServerEvent({ type: "response.text.delta", event_id: "e" }))
      expect(wrong).toMatchObject({ _tag: "DecodeError", family: "realtime" })
      expect(yield* Effect.flip(decodeRealtimeServerEvent("not json"))).toMatchObject({ _tag: "DecodeError" })
      expect(yield* Effect.flip(decodeRealtimeServerEvent({ no: "type" }))).toMatchObject({ _tag: "DecodeError" })
    })
  )

  it.effect("refuses a frame that is no object with a string type by its shape, before the Schema walks it", () =>
    Effect.gen(function* () {
      // A hostile frame of about 5.6 MB: an array of 100 000 small event-like objects.
      const items = Array.from({ length: 100_000 }, (_, i) => ({ type: "response.output_text.delta", delta: `${i}` }))
      const text = JSON.stringify(items)
      expect(text.length).toBeGreaterThan(5_000_000)
      for (const frame of [text, items]) {
        const e = yield* Effect.flip(decodeRealtimeServerEvent(frame))
        expect(e).toMatchObject({ _tag: "DecodeError", family: "realtime", what: "realtime server event" })
        expect(e.message).toBe("realtime server event: expected a JSON object, got an array")
      }
      for (const frame of [JSON.stringify(42), null, { type: 5, delta: "x" }]) {
        expect(yield* Effect.flip(decodeRealtimeServerEvent(frame))).toMatchObject({
          _tag: "DecodeError",
          family: "realtime"
        })
      }
      expect((yield* Effect.flip(decodeRealtimeServerEvent({ type: 5 }))).message).toBe(
        "realtime server event: expected an event with a string type"
      )
    })
  )
})
