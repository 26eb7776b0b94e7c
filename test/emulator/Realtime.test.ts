import { afterAll, beforeAll, describe, expect, it } from "vitest"
import WebSocket from "ws"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

// Raw `ws` clients against /v1/realtime (not umg's client).
let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true, text: { replyWords: 6, tokenDelayMs: 0 } })
})
afterAll(() => emu.close())

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw wire JSON read field by field: the assertions check the shape
type Ev = Record<string, any>

/** A connected socket with a queue of received events. */
const connect = async (model: string, opts: { key?: string | null; protocols?: Array<string> } = {}) => {
  const wsUrl = `${emu.url.replace(/^http/, "ws")}/v1/realtime?model=${encodeURIComponent(model)}`
  const key = opts.key === undefined ? emu.apiKey : opts.key
  const ws = new WebSocket(
    wsUrl,
    opts.protocols ?? [],
    key === null ? {} : { headers: { authorization: `Bearer ${key}` } }
  )
  const events: Array<Ev> = []
  const waiters: Array<() => void> = []
  ws.on("message", (d) => {
    events.push(JSON.parse(d.toString()) as Ev)
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
  /** Waits until an event of `type` arrives (bounded) and removes it and everything before it. */
  const through = async (type: string): Promise<Array<Ev>> => {
    const deadline = Date.now() + 5_000
    for (;;) {
      const i = events.findIndex((e) => e.type === type)
      if (i >= 0) return events.splice(0, i + 1)
      if (Date.now() > deadline) throw new Error(`no ${type}; got ${events.map((e) => e.type).join(",")}`)
      await new Promise<void>((r) => {
        waiters.push(r)
        setTimeout(r, 100)
      })
    }
  }
  /** The next event of `type`, dropping the ones before it. */
  const next = async (type: string): Promise<Ev> => (await through(type)).pop()!
  const send = (e: unknown) => ws.send(typeof e === "string" ? e : JSON.stringify(e))
  return { ws, events, next, through, send, closed }
}

/** Collects every event up to and including `response.done`. */
const untilDone = (c: Awaited<ReturnType<typeof connect>>): Promise<Array<Ev>> => c.through("response.done")

const upgradeStatus = (model: string, headers: Record<string, string>) =>
  new Promise<number>((resolve) => {
    const ws = new WebSocket(`${emu.url.replace(/^http/, "ws")}/v1/realtime?model=${model}`, { headers })
    ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0))
    ws.on("open", () => {
      ws.close()
      resolve(101)
    })
    ws.on("error", () => undefined)
  })

describe("realtime upgrade", () => {
  it("refuses a missing or wrong key with 401 and an unknown model with 400", async () => {
    expect(await upgradeStatus("gpt-realtime", {})).toBe(401)
    expect(await upgradeStatus("gpt-realtime", { authorization: "Bearer wrong" })).toBe(401)
    expect(await upgradeStatus("gpt-4o", { authorization: `Bearer ${emu.apiKey}` })).toBe(400)
    expect(await upgradeStatus("gpt-realtime-mini", { authorization: `Bearer ${emu.apiKey}` })).toBe(101)
  })

  it("accepts the browser subprotocol carrying the key and counts the connection", async () => {
    const before = emu.counters.get("realtime")
    const c = await connect("gpt-realtime", {
      key: null,
      protocols: ["realtime", `openai-insecure-api-key.${emu.apiKey}`]
    })
    expect((await c.next("session.created")).session.model).toBe("gpt-realtime")
    expect(emu.counters.get("realtime")).toBe(before + 1)
    c.ws.close()
  })
})

describe("realtime v1 (gpt-realtime)", () => {
  it("updates the session with modalities and streams text deltas that add up to the done text", async () => {
    const c = await connect("gpt-realtime")
    await c.next("session.created")
    c.send({ type: "session.update", session: { modalities: ["text"], instructions: "be brief" } })
    expect((await c.next("session.updated")).session.modalities).toEqual(["text"])
    c.send({
      type: "conversation.item.create",
      item: { type: "message", role: "user", content: [{ type: "input_text", text: "Hello" }] }
    })
    await c.next("conversation.item.created")
    c.send({ type: "response.create" })
    const events = await untilDone(c)
    const types = events.map((e) => e.type)
    expect(types[0]).toBe("response.created")
    expect(types).toContain("response.text.delta")
    expect(types).not.toContain("response.output_text.delta")
    const text = events
      .filter((e) => e.type === "response.text.delta")
      .map((e) => e.delta)
      .join("")
    expect(events.find((e) => e.type === "response.text.done")!.text).toBe(text)
    const done = events[events.length - 1]!
    expect(done.response.status).toBe("completed")
    expect(done.response.usage.output_tokens).toBeGreaterThan(0)
    expect(done.response.usage.total_tokens).toBe(done.response.usage.input_tokens + done.response.usage.output_tokens)
    c.ws.close()
  })

  it("streams audio deltas as base64 pcm16 with a matching transcript when audio is asked", async () => {
    const c = await connect("gpt-realtime-mini")
    await c.next("session.created")
    c.send({ type: "response.create", response: { modalities: ["audio", "text"] } })
    const events = await untilDone(c)
    const audio = events.filter((e) => e.type === "response.audio.delta")
    expect(audio.length).toBeGreaterThan(0)
    const pcm = Buffer.from(audio[0]!.delta as string, "base64")
    expect(pcm.length % 2).toBe(0)
    expect(pcm.length).toBeGreaterThan(0)
    const transcript = events
      .filter((e) => e.type === "response.audio_transcript.delta")
      .map((e) => e.delta)
      .join("")
    expect(events.find((e) => e.type === "response.audio_transcript.done")!.transcript).toBe(transcript)
    expect(events.some((e) => e.type === "response.audio.done")).toBe(true)
    c.ws.close()
  })

  it("gives the same reply text to the same conversation", async () => {
    const run = async () => {
      const c = await connect("gpt-realtime")
      c.send({ type: "session.update", session: { modalities: ["text"] } })
      c.send({
        type: "conversation.item.create",
        item: { type: "message", role: "user", content: [{ type: "input_text", text: "same" }] }
      })
      c.send({ type: "response.create" })
      const events = await untilDone(c)
      c.ws.close()
      return events.find((e) => e.type === "response.text.done")!.text as string
    }
    expect(await run()).toBe(await run())
  })

  it("answers malformed and unknown client events with error events and stays open", async () => {
    const c = await connect("gpt-realtime")
    await c.next("session.created")
    c.send("{not json")
    expect((await c.next("error")).error.code).toBe("invalid_json")
    c.send({ type: "no.such.event", event_id: "evt_1" })
    const unknown = await c.next("error")
    expect(unknown.error).toMatchObject({ type: "invalid_request_error", event_id: "evt_1" })
    c.send({ nope: true })
    await c.next("error")
    c.send({ type: "session.update", session: { modalities: ["video"] } })
    expect((await c.next("error")).error.param).toBe("session.modalities")
    c.send({ type: "session.update", session: { modalities: ["text"] } })
    await c.next("session.updated")
    c.ws.close()
  })
})

describe("realtime v2 (gpt-realtime-2)", () => {
  it("requires session.type realtime and answers a v1 modalities field with an error event", async () => {
    const c = await connect("gpt-realtime-2")
    await c.next("session.created")
    c.send({ type: "session.update", session: { modalities: ["text"] } })
    expect((await c.next("error")).error.param).toBe("session.type")
    c.send({ type: "session.update", session: { type: "realtime", modalities: ["text"] } })
    expect((await c.next("error")).error.param).toBe("session.modalities")
    c.send({ type: "session.update", session: { type: "realtime", output_modalities: ["text"] } })
    expect((await c.next("session.updated")).session.output_modalities).toEqual(["text"])
    c.ws.close()
  })

  it("uses the GA event names for text and audio", async () => {
    const c = await connect("gpt-realtime-2")
    await c.next("session.created")
    c.send({
      type: "conversation.item.create",
      item: { type: "message", role: "user", content: [{ type: "input_text", text: "Hi" }] }
    })
    await c.next("conversation.item.added")
    await c.next("conversation.item.done")
    c.send({ type: "response.create", response: { output_modalities: ["text"] } })
    const text = (await untilDone(c)).map((e) => e.type)
    expect(text).toContain("response.output_text.delta")
    expect(text).toContain("response.output_text.done")
    expect(text).not.toContain("response.text.delta")
    c.send({ type: "response.create" })
    const audio = (await untilDone(c)).map((e) => e.type)
    expect(audio).toContain("response.output_audio.delta")
    expect(audio).toContain("response.output_audio_transcript.delta")
    expect(audio).toContain("response.output_audio.done")
    c.ws.close()
  })
})

describe("realtime faults", () => {
  it("closes the socket with the injected code after the given number of messages", async () => {
    emu.inject("realtime", { kind: "ws-close", code: 1011, reason: "boom", afterMessages: 1 })
    const c = await connect("gpt-realtime")
    await c.next("session.created")
    c.send({ type: "response.create" })
    const closed = await c.closed
    expect(closed).toEqual({ code: 1011, reason: "boom" })
    expect(c.events.length).toBe(0)
  })
})
