import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import {
  buildLiveSetup,
  decodeLiveServerMessage,
  liveAudioChunks,
  liveText,
  validateLiveClientMessage
} from "../../src/core/realtime/Live.js"

const model = "zeta-live-2.5-flash-native-audio"

describe("buildLiveSetup", () => {
  it.effect("builds the minimal setup with the models/ prefix", () =>
    Effect.gen(function* () {
      expect(yield* buildLiveSetup(model)).toEqual({ setup: { model: `models/${model}` } })
      expect(yield* buildLiveSetup(`models/${model}`)).toEqual({ setup: { model: `models/${model}` } })
    })
  )

  it.effect("accepts exactly one response modality and passes the rest through", () =>
    Effect.gen(function* () {
      const msg = yield* buildLiveSetup(model, {
        generationConfig: { responseModalities: ["AUDIO"], temperature: 0.7 },
        systemInstruction: { parts: [{ text: "be brief" }] }
      })
      expect(msg).toEqual({
        setup: {
          model: `models/${model}`,
          generationConfig: { responseModalities: ["AUDIO"], temperature: 0.7 },
          systemInstruction: { parts: [{ text: "be brief" }] }
        }
      })
    })
  )

  it.effect("refuses two modalities, an unknown modality, and a conflicting model", () =>
    Effect.gen(function* () {
      const two = yield* Effect.flip(
        buildLiveSetup(model, { generationConfig: { responseModalities: ["TEXT", "AUDIO"] } })
      )
      expect(two).toMatchObject({ field: "setup.generationConfig.responseModalities", rule: "exactly-one" })
      const other = yield* Effect.flip(buildLiveSetup(model, { generationConfig: { responseModalities: ["IMAGE"] } }))
      expect(other).toMatchObject({ field: "setup.generationConfig.responseModalities[0]", rule: "one-of" })
      expect(other.message).toContain("TEXT, AUDIO")
      expect(yield* Effect.flip(buildLiveSetup(model, { model: "models/other" }))).toMatchObject({
        field: "setup.model",
        rule: "conflict"
      })
      expect(yield* Effect.flip(buildLiveSetup(""))).toMatchObject({ field: "model" })
    })
  )
})

describe("buildLiveSetup: closed setup and the catalog", () => {
  it.effect("refuses an unknown setup or generationConfig field naming the nearest known one", () =>
    Effect.gen(function* () {
      const top = yield* Effect.flip(buildLiveSetup(model, { systemInstructions: { parts: [] } }))
      expect(top).toMatchObject({ field: "setup.systemInstructions", rule: "unknown-field" })
      expect(top.message).toContain("did you mean `systemInstruction`?")
      const nested = yield* Effect.flip(buildLiveSetup(model, { generationConfig: { temprature: 0.2 } }))
      expect(nested).toMatchObject({ field: "setup.generationConfig.temprature", rule: "unknown-field" })
      expect(nested.message).toContain(
        "unknown field `temprature` in setup.generationConfig; did you mean `temperature`?"
      )
      const thinking = yield* Effect.flip(
        buildLiveSetup(model, { generationConfig: { thinkingConfig: { thinkingBudjet: 0 } } })
      )
      expect(thinking).toMatchObject({
        field: "setup.generationConfig.thinkingConfig.thinkingBudjet",
        rule: "unknown-field"
      })
      const far = yield* Effect.flip(buildLiveSetup(model, { qqqqqqqqqq: 1 }))
      expect(far.message).not.toContain("did you mean")
    })
  )

  it.effect("merges extra into the setup and refuses a key that names a known field", () =>
    Effect.gen(function* () {
      const msg = yield* buildLiveSetup(model, { extra: { newKnob: { on: true } } })
      expect(msg).toEqual({ setup: { model: `models/${model}`, newKnob: { on: true } } })
      const clash = yield* Effect.flip(buildLiveSetup(model, { extra: { tools: [] } }))
      expect(clash).toMatchObject({ field: "setup.extra.tools", rule: "extra-known" })
    })
  )

  it.effect(
    "refuses another family's model naming its family and endpoint, and an unlisted one unless allowUnknownModels",
    () =>
      Effect.gen(function* () {
        const native = yield* Effect.flip(buildLiveSetup("zeta-2.5-flash"))
        expect(native).toMatchObject({ field: "model", rule: "route" })
        expect(native.message).toContain("zeta (native-content) model")
        expect(native.message).toContain(":generateContent")
        const unknown = yield* Effect.flip(buildLiveSetup("zeta-live-9"))
        expect(unknown).toMatchObject({ rule: "unknown-model" })
        expect(unknown.message).toContain(model)
        expect(yield* buildLiveSetup("zeta-live-9", {}, { allowUnknownModels: true })).toEqual({
          setup: { model: "models/zeta-live-9" }
        })
      })
  )

  it.effect("refuses an unknown member of a client message kind, and carries its extra", () =>
    Effect.gen(function* () {
      const e = yield* Effect.flip(validateLiveClientMessage({ clientContent: { turns: [], turnComplet: true } }))
      expect(e).toMatchObject({ field: "clientContent.turnComplet", rule: "unknown-field" })
      expect(e.message).toContain("did you mean `turnComplete`?")
      expect(yield* validateLiveClientMessage({ realtimeInput: { audioStreamEnd: true, extra: { x: 1 } } })).toEqual({
        realtimeInput: { audioStreamEnd: true, x: 1 }
      })
    })
  )
})

describe("validateLiveClientMessage", () => {
  it.effect("accepts each kind of client message", () =>
    Effect.gen(function* () {
      const messages = [
        { setup: { model: `models/${model}` } },
        { clientContent: { turns: [{ role: "user", parts: [{ text: "Hello" }] }], turnComplete: true } },
        { realtimeInput: { audio: { data: "AAAA", mimeType: "audio/pcm;rate=16000" } } },
        { realtimeInput: { audioStreamEnd: true } },
        { toolResponse: { functionResponses: [{ id: "f1", name: "get_weather", response: { temp: 20 } }] } }
      ]
      for (const m of messages) expect(yield* validateLiveClientMessage(m)).toEqual(m)
    })
  )

  it.effect("refuses a message with no key, two keys, or an unknown key", () =>
    Effect.gen(function* () {
      expect(yield* Effect.flip(validateLiveClientMessage({}))).toMatchObject({ rule: "exactly-one" })
      const two = yield* Effect.flip(validateLiveClientMessage({ setup: { model: "models/x" }, clientContent: {} }))
      expect(two).toMatchObject({ rule: "exactly-one" })
      expect(two.message).toContain("setup, clientContent, realtimeInput, toolResponse")
      expect(yield* Effect.flip(validateLiveClientMessage({ input: {} }))).toMatchObject({ rule: "one-of" })
    })
  )

  it.effect("checks the shape of each kind", () =>
    Effect.gen(function* () {
      expect(yield* Effect.flip(validateLiveClientMessage({ setup: { model: "x" } }))).toMatchObject({
        field: "setup.model"
      })
      expect(yield* Effect.flip(validateLiveClientMessage({ realtimeInput: {} }))).toMatchObject({
        field: "realtimeInput",
        rule: "required"
      })
      expect(
        yield* Effect.flip(validateLiveClientMessage({ realtimeInput: { audio: { data: "AAAA" } } }))
      ).toMatchObject({ field: "realtimeInput.audio.mimeType" })
      expect(yield* Effect.flip(validateLiveClientMessage({ toolResponse: { functionResponses: [] } }))).toMatchObject({
        rule: "non-empty"
      })
      expect(yield* Effect.flip(validateLiveClientMessage({ clientContent: { turnComplete: "yes" } }))).toMatchObject({
        field: "clientContent.turnComplete"
      })
    })
  )
})

describe("decodeLiveServerMessage", () => {
  it.effect("decodes the recorded text turn and reads its text", () =>
    Effect.gen(function* () {
      expect(yield* decodeLiveServerMessage('{"setupComplete":{}}')).toEqual({ setupComplete: {} })
      const chunk = yield* decodeLiveServerMessage({
        serverContent: { modelTurn: { parts: [{ text: "Hi" }, { text: " there" }, { text: "hmm", thought: true }] } }
      })
      expect(liveText(chunk)).toBe("Hi there")
      const last = yield* decodeLiveServerMessage(
        new TextEncoder().encode(
          '{"serverContent":{"turnComplete":true},"usageMetadata":{"promptTokenCount":515,"responseTokenCount":38,"totalTokenCount":553}}'
        )
      )
      expect(last.serverContent?.turnComplete).toBe(true)
      expect(last.usageMetadata?.totalTokenCount).toBe(553)
      expect(liveText(last)).toBeUndefined()
    })
  )

  it.effect("reads audio chunks, tool calls and goAway, and keeps unknown fields", () =>
    Effect.gen(function* () {
      const audio = yield* decodeLiveServerMessage({
        serverContent: { modelTurn: { parts: [{ inlineData: { mimeType: "audio/pcm;rate=24000", data: "AAAA" } }] } }
      })
      expect(liveAudioChunks(audio)).toEqual([{ mimeType: "audio/pcm;rate=24000", data: "AAAA" }])
      const tool = yield* decodeLiveServerMessage({
        toolCall: { functionCalls: [{ id: "f1", name: "get_weather", args: { city: "Oslo" } }] }
      })
      expect(tool.toolCall?.functionCalls[0]?.name).toBe("get_weather")
      const away = yield* decodeLiveServerMessage({ goAway: { timeLeft: "10s" }, turnToken: "t" })
      expect(away).toEqual({ goAway: { timeLeft: "10s" }, turnToken: "t" })
    })
  )

  it.effect("fails on frames that are not JSON objects or have wrong member types", () =>
    Effect.gen(function* () {
      expect(yield* Effect.flip(decodeLiveServerMessage("{"))).toMatchObject({ _tag: "DecodeError", family: "live" })
      expect(yield* Effect.flip(decodeLiveServerMessage(new Uint8Array([0xff, 0xfe])))).toMatchObject({
        _tag: "DecodeError"
      })
      expect(yield* Effect.flip(decodeLiveServerMessage([1]))).toMatchObject({ _tag: "DecodeError" })
      expect(yield* Effect.flip(decodeLiveServerMessage({ serverContent: { turnComplete: "yes" } }))).toMatchObject({
        _tag: "DecodeError"
      })
    })
  )
})

describe("buildLiveSetup: generationConfig rules shared with native content", () => {
  it.effect("refuses a temperature outside 0 to 2 and a fractional maxOutputTokens, naming the path", () =>
    Effect.gen(function* () {
      const hot = yield* Effect.flip(buildLiveSetup(model, { generationConfig: { temperature: 3 } }))
      expect(hot).toMatchObject({ field: "setup.generationConfig.temperature", rule: "range" })
      expect(hot.message).toBe("setup.generationConfig.temperature: 3 is out of range; allowed: 0 to 2")
      const tokens = yield* Effect.flip(buildLiveSetup(model, { generationConfig: { maxOutputTokens: 1.5 } }))
      expect(tokens).toMatchObject({ field: "setup.generationConfig.maxOutputTokens", rule: "type" })
    })
  )
})
