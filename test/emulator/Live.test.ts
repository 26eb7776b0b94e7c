import { afterAll, beforeAll, describe, expect, it } from "vitest"
import WebSocket from "ws"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

// Raw `ws` clients against the live endpoint (not umg's client).
let emu: Emulator
const MODEL = "zeta-live-2.5-flash-native-audio"
beforeAll(async () => {
  emu = await startEmulator({ fast: true, text: { replyWords: 5, tokenDelayMs: 0 } })
})
afterAll(() => emu.close())

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw wire JSON read field by field: the assertions check the shape
type Msg = Record<string, any>

const liveUrl = (model = MODEL, query = `?key=${emu.apiKey}`) =>
  `${emu.url.replace(/^http/, "ws")}/ws/v1beta/models/${model}/liveStream${query}`

const connect = async (url = liveUrl(), headers: Record<string, string> = {}) => {
  const ws = new WebSocket(url, { headers })
  const messages: Array<Msg> = []
  const waiters: Array<() => void> = []
  ws.on("message", (d) => {
    messages.push(JSON.parse(d.toString()) as Msg)
    for (const w of waiters.splice(0)) w()
  })
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() }))
  )
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve())
    ws.once("unexpected-response", (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)))
    ws.once("error", reject)
  })
  /** Waits (bounded) until a message satisfies `done`; returns every message through it. */
  const until = async (done: (m: Msg) => boolean): Promise<Array<Msg>> => {
    const deadline = Date.now() + 5_000
    for (;;) {
      const i = messages.findIndex(done)
      if (i >= 0) return messages.splice(0, i + 1)
      if (Date.now() > deadline) throw new Error(`timed out; got ${JSON.stringify(messages).slice(0, 300)}`)
      await new Promise<void>((r) => {
        waiters.push(r)
        setTimeout(r, 100)
      })
    }
  }
  const send = (m: unknown) => ws.send(typeof m === "string" ? m : JSON.stringify(m))
  return { ws, messages, until, send, closed }
}

const turn = (text: string) => ({ clientContent: { turns: [{ role: "user", parts: [{ text }] }], turnComplete: true } })
const turnComplete = (m: Msg) => m.serverContent?.turnComplete === true

describe("live upgrade", () => {
  it("accepts ?key=, Bearer and x-vendor-api-key and refuses a wrong key with 401", async () => {
    for (const [url, headers] of [
      [liveUrl(), {}],
      [liveUrl(MODEL, ""), { authorization: `Bearer ${emu.apiKey}` }],
      [liveUrl(MODEL, ""), { "x-vendor-api-key": emu.apiKey }]
    ] as const) {
      const c = await connect(url, headers)
      c.ws.close()
    }
    await expect(connect(liveUrl(MODEL, "?key=wrong"))).rejects.toThrow("HTTP 401")
    await expect(connect(liveUrl(MODEL, ""))).rejects.toThrow("HTTP 401")
  })
})

describe("live session", () => {
  it("answers setup with setupComplete, then a text turn with parts, generationComplete and turnComplete with usage", async () => {
    const c = await connect()
    c.send({ setup: { model: `models/${MODEL}`, generationConfig: { responseModalities: ["TEXT"] } } })
    expect(await c.until((m) => "setupComplete" in m)).toEqual([{ setupComplete: {} }])
    c.send(turn("Hello"))
    const msgs = await c.until(turnComplete)
    const parts = msgs.filter((m) => m.serverContent?.modelTurn).flatMap((m) => m.serverContent.modelTurn.parts)
    expect(parts.length).toBeGreaterThan(0)
    expect(parts.every((p: Msg) => typeof p.text === "string")).toBe(true)
    const genIndex = msgs.findIndex((m) => m.serverContent?.generationComplete === true)
    expect(genIndex).toBe(msgs.length - 2)
    const usage = msgs[msgs.length - 1]!.usageMetadata
    expect(usage.responseTokenCount).toBe(parts.length)
    expect(usage.totalTokenCount).toBe(usage.promptTokenCount + usage.responseTokenCount)
    expect(usage.responseTokensDetails).toEqual([{ modality: "TEXT", tokenCount: parts.length }])
    c.ws.close()
  })

  it("streams audio as inlineData pcm at 24 kHz when the setup asks for AUDIO (the default)", async () => {
    const c = await connect()
    c.send({ setup: { model: `models/${MODEL}`, outputAudioTranscription: {} } })
    await c.until((m) => "setupComplete" in m)
    c.send({ realtimeInput: { audio: { data: "AAAA", mimeType: "audio/pcm;rate=16000" } } })
    c.send(turn("Speak"))
    const msgs = await c.until(turnComplete)
    const parts = msgs.filter((m) => m.serverContent?.modelTurn).flatMap((m) => m.serverContent.modelTurn.parts)
    expect(parts.length).toBeGreaterThan(0)
    expect(parts[0].inlineData.mimeType).toBe("audio/pcm;rate=24000")
    const pcm = Buffer.from(parts[0].inlineData.data as string, "base64")
    expect(pcm.length).toBeGreaterThan(0)
    expect(pcm.length % 2).toBe(0)
    expect(msgs.some((m) => typeof m.serverContent?.outputTranscription?.text === "string")).toBe(true)
    expect(msgs[msgs.length - 1]!.usageMetadata.responseTokensDetails[0].modality).toBe("AUDIO")
    c.ws.close()
  })

  it("answers two turns sent back to back, one after the other", async () => {
    const c = await connect()
    c.send({ setup: { generationConfig: { responseModalities: ["TEXT"] } } })
    c.send(turn("one"))
    c.send(turn("two"))
    const text = (ms: Array<Msg>): string =>
      ms
        .flatMap((m) => m.serverContent?.modelTurn?.parts ?? [])
        .map((p: { text?: string }) => p.text ?? "")
        .join("")
    const first = await c.until(turnComplete)
    const second = await c.until(turnComplete)
    // Each turn is answered whole before the next: its own reply, then its own turnComplete.
    expect(first.filter(turnComplete)).toHaveLength(1)
    expect(second.filter(turnComplete)).toHaveLength(1)
    expect(text(first)).toMatch(/\S/)
    expect(text(second)).toMatch(/\S/)
    expect(text(first)).not.toBe(text(second))
    c.ws.close()
  })

  it.each([
    ["a first message that is not setup", [turn("hi")]],
    ["invalid JSON", ["{nope"]],
    ["a second setup", [{ setup: {} }, { setup: {} }]],
    ["two responseModalities", [{ setup: { generationConfig: { responseModalities: ["TEXT", "AUDIO"] } } }]],
    ["an unknown message kind", [{ setup: {} }, { hello: {} }]],
    ["a setup.model naming another model", [{ setup: { model: "models/zeta-live-other" } }]]
  ])("closes with 1007 and a reason on %s", async (_name, sends) => {
    const c = await connect()
    for (const m of sends) c.send(m)
    const closed = await c.closed
    expect(closed.code).toBe(1007)
    expect(closed.reason).toMatch(/invalid argument/i)
  })

  it("closes with 1008 at setup when the model is not a live model", async () => {
    const c = await connect(liveUrl("zeta-2.5-pro"))
    c.send({ setup: {} })
    expect((await c.closed).code).toBe(1008)
  })

  it("applies an injected ws-close fault and counts the connection", async () => {
    const before = emu.counters.get("live")
    emu.inject("live", { kind: "ws-close", code: 1011, reason: "quota", afterMessages: 1 })
    const c = await connect()
    c.send({ setup: {} })
    await c.until((m) => "setupComplete" in m)
    c.send(turn("hi"))
    expect(await c.closed).toEqual({ code: 1011, reason: "quota" })
    expect(emu.counters.get("live")).toBe(before + 1)
  })
})
