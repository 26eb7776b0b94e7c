import { afterAll, beforeAll, describe, expect, it } from "vitest"
import WebSocket from "ws"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { MAX_REALTIME_ITEMS } from "../../src/emulator/realtime/RealtimeConversation.js"

// Raw `ws` clients against /v1/realtime (not umg's client).
let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true, text: { replyWords: 6, tokenDelayMs: 0 } })
})
afterAll(() => emu.close())

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw wire JSON read field by field: the assertions check the shape
type Ev = Record<string, any>

/** A connected socket with a queue of received events. */
const connect = async (model: string, opts: { key?: string | null; protocols?: Array<string>; on?: Emulator } = {}) => {
  const target = opts.on ?? emu
  const wsUrl = `${target.url.replace(/^http/, "ws")}/v1/realtime?model=${encodeURIComponent(model)}`
  const key = opts.key === undefined ? target.apiKey : opts.key
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

/** A user text item, with its id when given. */
const userItem = (text: string, id?: string) => ({
  type: "conversation.item.create",
  item: { ...(id === undefined ? {} : { id }), type: "message", role: "user", content: [{ type: "input_text", text }] }
})

/** Milliseconds of PCM16 24 kHz mono audio in a response's audio deltas. */
const audioMs = (events: Array<Ev>, type: string): number =>
  events.filter((e) => e.type === type).reduce((ms, e) => ms + Buffer.from(e.delta as string, "base64").length / 48, 0)

describe("realtime conversation items", () => {
  it("retrieves a created item, deletes it, and then answers both with upstream's item errors", async () => {
    const c = await connect("gpt-realtime")
    await c.next("session.created")
    c.send(userItem("keep me", "msg_keep"))
    const created = (await c.next("conversation.item.created")).item
    c.send({ type: "conversation.item.retrieve", item_id: "msg_keep", event_id: "evt_get" })
    expect((await c.next("conversation.item.retrieved")).item).toEqual(created)
    c.send({ type: "conversation.item.delete", item_id: "msg_keep" })
    expect(await c.next("conversation.item.deleted")).toMatchObject({ item_id: "msg_keep" })
    c.send({ type: "conversation.item.retrieve", item_id: "msg_keep", event_id: "evt_get2" })
    expect((await c.next("error")).error).toEqual({
      type: "invalid_request_error",
      code: "item_retrieve_invalid_item_id",
      message: "Error retrieving item: the item with id 'msg_keep' does not exist.",
      param: null,
      event_id: "evt_get2"
    })
    c.send({ type: "conversation.item.delete", item_id: "msg_keep", event_id: "evt_del" })
    expect((await c.next("error")).error).toMatchObject({
      code: "item_delete_invalid_item_id",
      message: "Error deleting item: the item with id 'msg_keep' does not exist.",
      event_id: "evt_del"
    })
    c.send({ type: "conversation.item.retrieve", event_id: "evt_noid" })
    expect((await c.next("error")).error).toMatchObject({
      code: "missing_required_parameter",
      param: "item_id",
      event_id: "evt_noid"
    })
    c.ws.close()
  })

  it("commits appended audio as a retrievable user item, chains previous_item_id and refuses under 100 ms", async () => {
    for (const [model, added] of [
      ["gpt-realtime", "conversation.item.created"],
      ["gpt-realtime-2", "conversation.item.added"]
    ] as const) {
      const c = await connect(model)
      await c.next("session.created")
      c.send({ type: "input_audio_buffer.commit", event_id: "evt_empty" })
      expect((await c.next("error")).error).toMatchObject({
        code: "input_audio_buffer_commit_empty",
        message:
          "Error committing input audio buffer: buffer too small. Expected at least 100ms of audio, but buffer only has 0.00ms of audio.",
        event_id: "evt_empty"
      })
      c.send(userItem("first", "msg_first"))
      expect((await c.next(added)).previous_item_id).toBeNull()
      // 200 ms of PCM16 24 kHz mono, in two appends.
      const half = Buffer.alloc(4800).toString("base64")
      c.send({ type: "input_audio_buffer.append", audio: half })
      c.send({ type: "input_audio_buffer.append", audio: half })
      c.send({ type: "input_audio_buffer.commit" })
      const committed = await c.next("input_audio_buffer.committed")
      expect(committed.previous_item_id).toBe("msg_first")
      const item = await c.next(added)
      expect(item).toMatchObject({
        previous_item_id: "msg_first",
        item: { id: committed.item_id, type: "message", role: "user", content: [{ type: "input_audio" }] }
      })
      c.send({ type: "conversation.item.retrieve", item_id: committed.item_id })
      expect((await c.next("conversation.item.retrieved")).item).toEqual(item.item)
      // The buffer was emptied by the commit.
      c.send({ type: "input_audio_buffer.commit" })
      expect((await c.next("error")).error.code).toBe("input_audio_buffer_commit_empty")
      // The reply's item joins the conversation after the audio item.
      c.send({ type: "response.create" })
      const events = await untilDone(c)
      const reply = events.find((e) => e.type === added)!
      expect(reply).toMatchObject({ previous_item_id: committed.item_id, item: { role: "assistant" } })
      c.ws.close()
    }
  })

  it("leaves a deleted user item out of the next reply", async () => {
    const reply = async (texts: Array<string>, deleteFirst: boolean): Promise<string> => {
      const c = await connect("gpt-realtime")
      c.send({ type: "session.update", session: { modalities: ["text"] } })
      texts.forEach((text, i) => c.send(userItem(text, `msg_${i}`)))
      if (deleteFirst) {
        c.send({ type: "conversation.item.delete", item_id: "msg_0" })
        await c.next("conversation.item.deleted")
      }
      c.send({ type: "response.create" })
      const events = await untilDone(c)
      c.ws.close()
      return events.find((e) => e.type === "response.text.done")!.text as string
    }
    expect(await reply(["alpha", "beta"], true)).toBe(await reply(["zeta", "beta"], true))
  })

  it("truncates a streamed assistant audio item, clears its transcript and refuses audio past its end", async () => {
    const c = await connect("gpt-realtime")
    await c.next("session.created")
    c.send({ type: "response.create", response: { modalities: ["audio", "text"] } })
    const events = await untilDone(c)
    const itemId = events.find((e) => e.type === "response.output_item.done")!.item.id as string
    const ms = audioMs(events, "response.audio.delta")
    expect(ms).toBeGreaterThan(100)
    c.send({
      type: "conversation.item.truncate",
      item_id: itemId,
      content_index: 0,
      audio_end_ms: ms + 1,
      event_id: "evt_long"
    })
    expect((await c.next("error")).error).toEqual({
      type: "invalid_request_error",
      code: "invalid_value",
      message: `Audio content of ${ms}ms is already shorter than ${ms + 1}ms`,
      param: "audio_end_ms",
      event_id: "evt_long"
    })
    c.send({ type: "conversation.item.truncate", item_id: itemId, content_index: 0, audio_end_ms: 100 })
    const truncated = await c.next("conversation.item.truncated")
    expect(truncated).toMatchObject({ item_id: itemId, content_index: 0, audio_end_ms: 100 })
    expect(typeof truncated.event_id).toBe("string")
    c.send({ type: "conversation.item.retrieve", item_id: itemId })
    const item = (await c.next("conversation.item.retrieved")).item
    expect(item).toMatchObject({ id: itemId, role: "assistant", content: [{ type: "audio", transcript: "" }] })
    // What was cut stays cut: the audio now ends at 100 ms.
    c.send({ type: "conversation.item.truncate", item_id: itemId, content_index: 0, audio_end_ms: 101 })
    expect((await c.next("error")).error.message).toBe("Audio content of 100ms is already shorter than 101ms")
    c.ws.close()
  })

  it("refuses to truncate an unknown item, a user item or a text reply with upstream's errors", async () => {
    const c = await connect("gpt-realtime")
    await c.next("session.created")
    const truncate = (item_id: string, event_id: string) =>
      c.send({ type: "conversation.item.truncate", item_id, content_index: 0, audio_end_ms: 0, event_id })
    truncate("item_nope", "evt_1")
    expect((await c.next("error")).error).toMatchObject({
      code: "item_truncate_invalid_item_id",
      message: "Item with item_id not found: item_nope",
      event_id: "evt_1"
    })
    c.send(userItem("hi", "msg_user"))
    await c.next("conversation.item.created")
    truncate("msg_user", "evt_2")
    expect((await c.next("error")).error).toEqual({
      type: "invalid_request_error",
      code: "unsupported_content_type",
      message: "Only model output audio messages can be truncated",
      param: null,
      event_id: "evt_2"
    })
    c.send({ type: "response.create", response: { modalities: ["text"] } })
    const textItem = (await untilDone(c)).find((e) => e.type === "response.output_item.done")!.item.id as string
    truncate(textItem, "evt_3")
    expect((await c.next("error")).error).toMatchObject({ code: "unsupported_content_type", event_id: "evt_3" })
    c.send({ type: "conversation.item.truncate", item_id: textItem, content_index: 0, event_id: "evt_4" })
    expect((await c.next("error")).error).toMatchObject({ param: "audio_end_ms", event_id: "evt_4" })
    // A reply outside the conversation is not among its items.
    c.send({ type: "response.create", response: { conversation: "none" } })
    const outside = (await untilDone(c)).find((e) => e.type === "response.output_item.done")!.item.id as string
    truncate(outside, "evt_5")
    expect((await c.next("error")).error).toMatchObject({ code: "item_truncate_invalid_item_id", event_id: "evt_5" })
    c.ws.close()
  })

  it("keeps a barge-in truncation made while the reply still streams", async () => {
    const slow = await startEmulator({ fast: true, text: { replyWords: 40, tokenDelayMs: 20 } })
    try {
      const c = await connect("gpt-realtime-2", { on: slow })
      await c.next("session.created")
      c.send({ type: "response.create" })
      const first = await c.next("response.output_audio.delta")
      c.send({ type: "conversation.item.truncate", item_id: first.item_id, content_index: 0, audio_end_ms: 80 })
      expect(await c.next("conversation.item.truncated")).toMatchObject({ item_id: first.item_id, audio_end_ms: 80 })
      c.send({ type: "response.cancel" })
      expect((await c.next("response.done")).response.status).toBe("cancelled")
      c.send({ type: "conversation.item.retrieve", item_id: first.item_id })
      expect((await c.next("conversation.item.retrieved")).item).toMatchObject({
        id: first.item_id,
        status: "incomplete",
        content: [{ type: "output_audio", transcript: "" }]
      })
      c.ws.close()
    } finally {
      await slow.close()
    }
  })

  it("uses the GA names and part types on v2 and refuses transcription_session.update there", async () => {
    const c = await connect("gpt-realtime-2")
    await c.next("session.created")
    c.send({ type: "response.create" })
    const events = await untilDone(c)
    const itemId = events.find((e) => e.type === "response.output_item.done")!.item.id as string
    const ms = audioMs(events, "response.output_audio.delta")
    c.send({ type: "conversation.item.truncate", item_id: itemId, content_index: 0, audio_end_ms: ms })
    expect(await c.next("conversation.item.truncated")).toMatchObject({ item_id: itemId, audio_end_ms: ms })
    c.send({ type: "conversation.item.retrieve", item_id: itemId })
    expect((await c.next("conversation.item.retrieved")).item.content).toEqual([
      { type: "output_audio", transcript: "" }
    ])
    c.send({ type: "conversation.item.delete", item_id: itemId })
    expect(await c.next("conversation.item.deleted")).toMatchObject({ item_id: itemId })
    c.send({ type: "transcription_session.update", session: {}, event_id: "evt_ts" })
    expect((await c.next("error")).error).toMatchObject({ code: "invalid_event", event_id: "evt_ts" })
    c.ws.close()
  })

  it("keeps only the last items of a long conversation", async () => {
    const c = await connect("gpt-realtime")
    await c.next("session.created")
    for (let i = 0; i <= MAX_REALTIME_ITEMS; i++) c.send(userItem(`n${i}`, `msg_${i}`))
    c.send({ type: "conversation.item.retrieve", item_id: `msg_${MAX_REALTIME_ITEMS}` })
    expect((await c.next("conversation.item.retrieved")).item.id).toBe(`msg_${MAX_REALTIME_ITEMS}`)
    c.send({ type: "conversation.item.retrieve", item_id: "msg_0" })
    expect((await c.next("error")).error.code).toBe("item_retrieve_invalid_item_id")
    c.send(userItem("again", `msg_${MAX_REALTIME_ITEMS}`))
    expect((await c.next("error")).error).toMatchObject({ code: "invalid_value", param: "item.id" })
    c.ws.close()
  })
})

describe("realtime session and output buffer events", () => {
  it("answers transcription_session.update on v1 with the updated transcription session", async () => {
    const c = await connect("gpt-realtime")
    await c.next("session.created")
    const transcription = { model: "gpt-4o-transcribe", language: "en" }
    c.send({ type: "transcription_session.update", session: { input_audio_transcription: transcription } })
    const updated = await c.next("transcription_session.updated")
    expect(updated.session).toMatchObject({
      object: "realtime.transcription_session",
      input_audio_format: "pcm16",
      input_audio_transcription: transcription
    })
    c.send({ type: "transcription_session.update", session: { input_audio_format: "g711_ulaw" } })
    const again = await c.next("transcription_session.updated")
    expect(again.session).toMatchObject({ id: updated.session.id, input_audio_format: "g711_ulaw" })
    expect(again.session.input_audio_transcription).toEqual(transcription)
    c.send({ type: "transcription_session.update", session: { voice: "alloy" }, event_id: "evt_bad" })
    expect((await c.next("error")).error).toMatchObject({
      code: "unknown_parameter",
      param: "session.voice",
      event_id: "evt_bad"
    })
    c.ws.close()
  })

  for (const model of ["gpt-realtime", "gpt-realtime-2"]) {
    it(`refuses output_audio_buffer.clear over a WebSocket as upstream does, WebRTC and SIP only (${model})`, async () => {
      const c = await connect(model)
      await c.next("session.created")
      c.send({ type: "output_audio_buffer.clear", event_id: "evt_clear" })
      expect((await c.next("error")).error).toEqual({
        type: "invalid_request_error",
        code: "invalid_value",
        message: "output_audio_buffer.clear is only supported for WebRTC and SIP connections.",
        param: "type",
        event_id: "evt_clear"
      })
      c.send(userItem("still open"))
      await c.next(model === "gpt-realtime" ? "conversation.item.created" : "conversation.item.done")
      c.ws.close()
    })
  }
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
