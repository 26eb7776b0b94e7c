// The cases property-tests/AgreementEdges.prop.test.ts found where the client's builder and the emulator
// disagreed, pinned one by one: each body is built by the client and posted to the emulator, and both
// take it or both refuse it. Beside each, the rule and where it comes from.
import { Effect, Result } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildChatBody } from "../../src/core/text/chat/ChatBody.js"
import { buildMessagesBody } from "../../src/core/text/messages/Messages.js"
import { buildNativeBody } from "../../src/core/text/native/Native.js"
import { buildResponsesBody } from "../../src/core/text/responses/ResponsesBody.js"
import { buildVideoBody } from "../../src/core/video/VideoBody.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { postStatus } from "../support/emulatorStatus.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

type Body = Record<string, unknown>

/** What the client does with `input` and what the emulator answers the body it would send (else the input). */
const outcome = async (path: string, input: Body, build: Effect.Effect<unknown, unknown>) => {
  const built = Effect.runSync(Effect.result(build))
  const status = await postStatus(emu, path, Result.isSuccess(built) ? built.success : input)
  return {
    client: Result.isSuccess(built) ? "takes" : "refuses",
    emulator: status >= 200 && status < 300 ? "takes" : status >= 400 && status < 500 ? "refuses" : status
  }
}
const both = (verdict: "takes" | "refuses") => ({ client: verdict, emulator: verdict })

const user = [{ role: "user", content: "hi" }]
const chat = (more: Body) => {
  const b = { model: "gpt-4o-mini", messages: user, ...more }
  return outcome("/v1/chat/completions", b, buildChatBody(b))
}
const responses = (more: Body) => {
  const b = { model: "gpt-5", input: "hi", ...more }
  return outcome("/v1/responses", b, buildResponsesBody(b))
}
const native = (more: Body, model = "zeta-2.5-flash") => {
  const b = { contents: [{ role: "user", parts: [{ text: "hi" }] }], ...more }
  return outcome(`/v1beta/models/${model}:generateContent`, b, buildNativeBody(model, b))
}
const messages = (more: Body) => {
  const b = { model: "epsilon-sonnet-4-5-20250929", max_tokens: 4096, messages: user, ...more }
  return outcome("/v1/messages", b, buildMessagesBody(b))
}
const video = (b: Body) => outcome("/v1/video/generations", b, buildVideoBody(b))

describe("structured output formats (upstream: json_schema needs a name of ^[a-zA-Z0-9_-]{1,64}$; responses also a schema)", () => {
  it("chat json_schema without a name, with a name of spaces, or a schema that is no object: both refuse", async () => {
    for (const json_schema of [{ schema: { type: "object" } }, { name: "a b" }, { name: "a", schema: "object" }])
      expect(await chat({ response_format: { type: "json_schema", json_schema } })).toEqual(both("refuses"))
    expect(await chat({ response_format: { type: "json_schema" } })).toEqual(both("refuses"))
  })

  it("chat json_schema with a name, its schema left out: both take it", async () => {
    expect(await chat({ response_format: { type: "json_schema", json_schema: { name: "a-1_b" } } })).toEqual(
      both("takes")
    )
  })

  it("responses text.format json_schema without a name or without a schema: both refuse", async () => {
    for (const format of [
      { type: "json_schema", schema: { type: "object" } },
      { type: "json_schema", name: "a" },
      { type: "json_schema", name: "a b", schema: { type: "object" } }
    ])
      expect(await responses({ text: { format } })).toEqual(both("refuses"))
    expect(await responses({ text: { format: { type: "json_schema", name: "a", schema: {} } } })).toEqual(both("takes"))
  })
})

describe("native content", () => {
  it("a safety threshold that is no HarmBlockThreshold: both refuse", async () => {
    const safetySettings = [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_SOME" }]
    expect(await native({ safetySettings })).toEqual(both("refuses"))
    expect(await native({ safetySettings: [{ ...safetySettings[0], threshold: "OFF" }] })).toEqual(both("takes"))
  })

  it("an empty cachedContent (the contract's cache id is one the API returned): both refuse", async () => {
    expect(await native({ cachedContent: "" })).toEqual(both("refuses"))
  })

  it("toolConfig mode VALIDATED (the contract's modes are AUTO, ANY, NONE): both refuse", async () => {
    expect(await native({ toolConfig: { functionCallingConfig: { mode: "VALIDATED" } } })).toEqual(both("refuses"))
  })

  it("allowedFunctionNames outside mode ANY, or naming an undeclared function: both refuse", async () => {
    const tools = [{ functionDeclarations: [{ name: "f" }] }]
    const config = (mode: string, names: Array<string>) => ({
      tools,
      toolConfig: { functionCallingConfig: { mode, allowedFunctionNames: names } }
    })
    expect(await native(config("AUTO", ["f"]))).toEqual(both("refuses"))
    expect(await native(config("ANY", ["g"]))).toEqual(both("refuses"))
    expect(await native(config("ANY", ["f"]))).toEqual(both("takes"))
  })

  it("responseSchema and responseJsonSchema together (upstream: one or the other): both refuse", async () => {
    const generationConfig = {
      responseMimeType: "application/json",
      responseSchema: { type: "OBJECT" },
      responseJsonSchema: { type: "object" }
    }
    expect(await native({ generationConfig })).toEqual(both("refuses"))
  })

  it("an empty responseModalities (proto3 JSON: the default, as if left out): both take it", async () => {
    expect(await native({ generationConfig: { responseModalities: [] } })).toEqual(both("takes"))
  })
})

describe("messages thinking.display (protocol notes §1.2: summarized or omitted, on enabled or adaptive thinking)", () => {
  it("a display of another value, or on disabled thinking: both refuse", async () => {
    expect(await messages({ thinking: { type: "enabled", budget_tokens: 2048, display: "full" } })).toEqual(
      both("refuses")
    )
    expect(await messages({ thinking: { type: "disabled", display: "omitted" } })).toEqual(both("refuses"))
    expect(await messages({ thinking: { type: "adaptive", display: "summarized" } })).toEqual(both("takes"))
  })
})

describe("video", () => {
  it('alpha seconds "04" (upstream seconds are the strings "4", "8", "12"): both refuse', async () => {
    expect(await video({ model: "alpha-2", prompt: "a cat", seconds: "04" })).toEqual(both("refuses"))
    expect(await video({ model: "alpha-2", prompt: "a cat", seconds: "8" })).toEqual(both("takes"))
  })

  it("alpha remix_from_video_id that is the video_ prefix alone: both refuse", async () => {
    expect(await video({ model: "alpha-2", prompt: "a cat", remix_from_video_id: "video_" })).toEqual(both("refuses"))
    expect(await video({ model: "alpha-2", prompt: "a cat", remix_from_video_id: "video_a.b" })).toEqual(both("takes"))
  })

  it("gamma size outside upstream's sizes (protocol notes §6.3): both refuse", async () => {
    expect(await video({ model: "gamma2.5-t2v-preview", prompt: "a cat", size: "1000*1000" })).toEqual(both("refuses"))
    expect(await video({ model: "gamma2.5-t2v-preview", prompt: "a cat", size: "1088*832" })).toEqual(both("takes"))
  })

  const delta = (model: string, prompt: string | undefined, text: string, meta: Body = {}) => ({
    model,
    ...(prompt === undefined ? {} : { prompt }),
    metadata: { content: [{ type: "text", text }], ...meta }
  })

  it("a delta top-level prompt that does not repeat the text item (the contract's delta body): both refuse", async () => {
    expect(await video(delta("delta-1-5-pro-251215", "a dog", "a cat"))).toEqual(both("refuses"))
    // Flags aside, the same text.
    expect(await video(delta("delta-1-5-pro-251215", "a cat", "a cat --dur 5"))).toEqual(both("takes"))
  })

  it("metadata.return_last_frame outside the 1.5 pro series (the contract's metadata table): both refuse", async () => {
    const image = { type: "image_url", image_url: { url: "https://example.com/a.png" } }
    const lite = { model: "delta-1-0-lite-i2v-250428", metadata: { content: [image], return_last_frame: true } }
    expect(await video(lite)).toEqual(both("refuses"))
    expect(await video(delta("delta-1-0-pro-250528", "a cat", "a cat", { return_last_frame: false }))).toEqual(
      both("refuses")
    )
    expect(await video(delta("delta-1-5-pro-251215", "a cat", "a cat", { return_last_frame: true }))).toEqual(
      both("takes")
    )
  })
})
