import { FetchHttpClient } from "effect/http"
import { Layer } from "effect"
import { filter, firstValueFrom, lastValueFrom, map, switchMap, take, takeWhile, toArray } from "rxjs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AuthenticationError, RateLimited, VideoTaskFailed } from "../../src/core/errors/GatewayError.js"
import { InvalidRequest } from "../../src/core/errors/InvalidRequest.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import {
  accumulateMessage,
  createGateway,
  type RxGateway,
  type SessionState,
  textDeltas
} from "../../src/streams/index.js"

let emu: Emulator
let gw: RxGateway
const signals: Array<AbortSignal> = []

const configFor = (e: Emulator) => ({
  baseUrl: e.url,
  apiKey: e.apiKey,
  platformUrl: e.platformUrl,
  platformUsername: e.platform.username,
  platformPassword: e.platform.password,
  retryBaseDelayMs: 10,
  retryMaxDelayMs: 40,
  timeoutMs: 5_000,
  minPollIntervalMs: 50,
  // A fetch that records each request's AbortSignal, to see the connection closed on unsubscribe.
  httpClient: FetchHttpClient.layer.pipe(
    Layer.provide(
      Layer.succeed(FetchHttpClient.Fetch, ((input, init) => {
        if (init?.signal) signals.push(init.signal)
        return fetch(input, init)
      }) as typeof fetch)
    )
  )
})

beforeAll(async () => {
  emu = await startEmulator({ fast: true })
  gw = createGateway(configFor(emu))
})
afterAll(async () => {
  await gw.dispose()
  await emu.close()
})

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const EPSILON = "epsilon-sonnet-4-5-20250929"
const hello = { model: EPSILON, max_tokens: 64, messages: [{ role: "user" as const, content: "Hello" }] }
const zeta = { model: "zeta-2.5-flash", contents: [{ role: "user" as const, parts: [{ text: "Hi" }] }] }

describe("createGateway against the emulator", () => {
  it("does nothing until subscribed, then creates a message once per subscription", async () => {
    emu.counters.reset()
    const message$ = gw.messages.create$(hello)
    await sleep(20)
    expect(emu.counters.get("messages")).toBe(0)
    const message = await firstValueFrom(message$)
    await firstValueFrom(message$)
    expect(message.role).toBe("assistant")
    expect(emu.counters.get("messages")).toBe(2)
  })

  it("fails with the typed error instance of the Effect API", async () => {
    const wrong = createGateway({ ...configFor(emu), apiKey: "wrong-key" })
    const error = await firstValueFrom(wrong.messages.create$(hello)).catch((e: unknown) => e)
    await wrong.dispose()
    expect(error).toBeInstanceOf(AuthenticationError)
    expect(String(error)).not.toContain("wrong-key")
  })

  it("refuses an invalid body with InvalidRequest before any request", async () => {
    emu.counters.reset()
    const error = await firstValueFrom(gw.messages.create$({ ...hello, max_tokens: 0 })).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InvalidRequest)
    expect(emu.counters.snapshot()).toEqual({})
  })

  it("streams the four token families into text and a final snapshot", async () => {
    const text = await lastValueFrom(gw.messages.stream$(hello).pipe(textDeltas(), toArray()))
    expect(text.join("").length).toBeGreaterThan(0)
    const last = await lastValueFrom(gw.messages.stream$(hello).pipe(accumulateMessage()))
    expect(last.phase).toBe("stopped")
    const nativeText = await lastValueFrom(gw.native.stream$(zeta).pipe(textDeltas(), toArray()))
    expect(nativeText.length).toBeGreaterThan(0)
    const chat = await lastValueFrom(
      gw.chat.stream$({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Hi" }] }).pipe(accumulateMessage())
    )
    expect(chat.completion?.choices[0]?.message.content).toBeTruthy()
    const responses = await lastValueFrom(
      gw.responses
        .stream$({ model: "gpt-5", max_output_tokens: 64, input: [{ role: "user", content: "Hi" }] })
        .pipe(textDeltas(), toArray())
    )
    expect(responses.length).toBeGreaterThan(0)
  })

  it("aborts the HTTP request when unsubscribed mid-stream", async () => {
    emu.inject("messages", { kind: "stall", afterEvents: 3 })
    signals.length = 0
    const first = await firstValueFrom(gw.messages.stream$(hello))
    expect(first.type).toBe("message_start")
    const signal = signals.at(-1)!
    for (let i = 0; i < 50 && !signal.aborted; i++) await sleep(10)
    expect(signal.aborted).toBe(true)
  })

  it("answers the single calls: count tokens, embeddings, rerank, speech, images, models", async () => {
    expect(
      (await firstValueFrom(gw.messages.countTokens$({ model: EPSILON, messages: hello.messages }))).input_tokens
    ).toBeGreaterThan(0)
    expect((await firstValueFrom(gw.native.generate$(zeta))).candidates?.length).toBeGreaterThan(0)
    expect(
      (await firstValueFrom(gw.embeddings.create$({ model: "text-embedding-3-small", input: "hello" }))).data[0]
        ?.embedding.length
    ).toBe(1536)
    expect(
      (await firstValueFrom(gw.rerank.create$({ model: "rerank-v1", query: "cat", documents: ["a cat", "a car"] })))
        .results
    ).toHaveLength(2)
    const audio = await firstValueFrom(
      gw.speech.create$({ model: "gpt-4o-mini-tts", input: "Hello", voice: "alloy", response_format: "wav" })
    )
    expect(audio.bytes.length).toBeGreaterThan(44)
    const images = await firstValueFrom(
      gw.images.generate$({ model: "zeta-2.5-flash-image", prompt: "a cat", response_format: "b64_json" })
    )
    expect(images.images[0]?.bytes.length).toBeGreaterThan(0)
    // What the answer says of its images, as the openai SDK names it.
    expect(images).toMatchObject({ output_format: "png", size: "128x128" })
    expect((await firstValueFrom(gw.models.list$())).length).toBeGreaterThan(0)
  })

  it("embeds many texts through 429s, each index exactly once, with progress", async () => {
    const inputs = Array.from({ length: 12 }, (_, i) => `text number ${i}`)
    emu.counters.reset()
    emu.inject("embeddings", { kind: "status", status: 429, headers: { "retry-after-ms": "20" } }, 10)
    // No transport retries: every 429 reaches mapConcurrent's own back-off.
    const client = createGateway({ ...configFor(emu), maxRetries: 0 })
    const events = await lastValueFrom(
      client.embeddings.embedMany$(inputs, { model: "text-embedding-3-small", concurrency: 4 }).pipe(toArray())
    )
    await client.dispose()
    expect(events.filter((e) => e.type === "rate-limited")).toHaveLength(10)
    const results = events.filter((e) => e.type === "result")
    expect(results.map((r) => r.index).sort((a, b) => a - b)).toEqual(inputs.map((_, i) => i))
    expect(results.map((r) => r.done)).toEqual(inputs.map((_, i) => i + 1))
    expect(results.every((r) => r.result.length === 1536)).toBe(true)
    expect(emu.counters.get("embeddings")).toBe(12)
    expect(emu.counters.get("embeddings.rejected")).toBe(10)
  })

  it("fails embedMany$ with RateLimited once an item's retries are spent", async () => {
    emu.inject("embeddings", { kind: "status", status: 429, headers: { "retry-after-ms": "5" } }, 30)
    const error = await lastValueFrom(
      gw.embeddings.embedMany$(["a"], { model: "text-embedding-3-small", concurrency: 1, maxRetries: 1 })
    ).catch((e: unknown) => e)
    emu.clearFaults()
    expect(error).toBeInstanceOf(RateLimited)
  })

  it("polls a video task: each status once, ending with succeeded", async () => {
    const submitted = await firstValueFrom(gw.video.submit$({ model: "gamma2.5-t2v-preview", prompt: "a calm sea" }))
    const statuses = await lastValueFrom(
      gw.video.poll$(submitted.task_id, { intervalMs: 50 }).pipe(
        map((t) => t.status),
        toArray()
      )
    )
    expect(statuses.at(-1)).toBe("succeeded")
    expect(new Set(statuses).size).toBe(statuses.length)
    expect((await firstValueFrom(gw.video.get$(submitted.task_id))).status).toBe("succeeded")
  })

  it("generates an alpha video with progress events and the downloaded bytes", async () => {
    const events = await lastValueFrom(
      gw.video.generate$({ model: "alpha-2", prompt: "a calm sea" }, { intervalMs: 50 }).pipe(toArray())
    )
    expect(events[0]?.type).toBe("submitted")
    const progress = events.filter((e) => e.type === "progress")
    expect(progress.at(-1)).toMatchObject({ status: "succeeded", done: true })
    expect(progress.map((p) => p.polls)).toEqual([...progress.map((p) => p.polls)].sort((a, b) => a - b))
    const done = events.at(-1)
    if (done?.type !== "done") throw new Error(`the last event is ${done?.type}, not done`)
    const { download, task } = done.result
    if (download === undefined) throw new Error("an alpha video is downloaded, but the result has no download")
    expect(task).toMatchObject({ task_id: done.taskId, status: "succeeded" })
    expect(events[0]).toEqual({ type: "submitted", taskId: done.taskId })
    expect(download).toMatchObject({ taskId: done.taskId, format: "mp4" })
    expect(download.size).toBeGreaterThan(0)
    expect(download.bytes).toBeInstanceOf(Uint8Array)
    expect(download.bytes.length).toBe(download.size)
    // An MP4 (ISO-BMFF) file opens with its `ftyp` box: bytes 4..8 spell the box type.
    expect(new TextDecoder().decode(download.bytes.subarray(4, 8))).toBe("ftyp")
    expect(download.dataUrl).toBe(`data:video/mp4;base64,${Buffer.from(download.bytes).toString("base64")}`)
  })

  it("streams an alpha video's bytes with downloadStream$, equal to download$'s, and errors for an unknown task", async () => {
    const done = await lastValueFrom(gw.video.generate$({ model: "alpha-2", prompt: "a calm sea" }, { intervalMs: 50 }))
    if (done.type !== "done" || done.result.download === undefined) throw new Error("no downloaded video")
    const chunks = await lastValueFrom(gw.video.downloadStream$(done.taskId).pipe(toArray()))
    expect(chunks.length).toBeGreaterThan(0)
    expect(Buffer.concat(chunks).equals(Buffer.from(done.result.download.bytes))).toBe(true)
    const whole = await firstValueFrom(gw.video.download$(done.taskId))
    expect(Buffer.concat(chunks).equals(Buffer.from(whole.bytes))).toBe(true)
    const missing = await lastValueFrom(gw.video.downloadStream$("video_nope").pipe(toArray())).catch((e: unknown) => e)
    expect(missing).toMatchObject({ _tag: "NotFound" })
  })

  it("errors generate$ with VideoTaskFailed for a rejected task", async () => {
    const error = await lastValueFrom(
      gw.video.generate$({ model: "gamma2.5-t2v-preview", prompt: "something inappropriate" }, { intervalMs: 50 })
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(VideoTaskFailed)
  })

  it("stops polling when unsubscribed mid-poll (the emulator's query counter stops growing)", async () => {
    const slow = await startEmulator({ fast: true, video: { queuedMs: 60_000, inProgressMs: 60_000 } })
    const client = createGateway(configFor(slow))
    try {
      const submitted = await firstValueFrom(
        client.video.submit$({ model: "gamma2.5-t2v-preview", prompt: "a calm sea" })
      )
      const sub = client.video.poll$(submitted.task_id, { intervalMs: 50 }).subscribe()
      for (let i = 0; i < 100 && slow.counters.get("video.get") < 3; i++) await sleep(20)
      sub.unsubscribe()
      const atStop = slow.counters.get("video.get")
      expect(atStop).toBeGreaterThanOrEqual(3)
      await sleep(300)
      expect(slow.counters.get("video.get")).toBe(atStop)
    } finally {
      await client.dispose()
      await slow.close()
    }
  })

  it("runs a realtime session: lifecycle observable, events until response.done, closed by unsubscribing", async () => {
    const states: Array<SessionState> = []
    const types = await lastValueFrom(
      gw.realtime.connect$({ model: "gpt-realtime", session: { modalities: ["text"] } }).pipe(
        switchMap((session) => {
          session.state$.subscribe((s) => states.push(s))
          void session.send({
            type: "conversation.item.create",
            item: { type: "message", role: "user", content: [{ type: "input_text", text: "Hello" }] }
          })
          void session.send({ type: "response.create" })
          return session.events$
        }),
        map((e) => e.type),
        takeWhile((t) => t !== "response.done", true),
        toArray()
      )
    )
    expect(types[0]).toBe("session.created")
    expect(types.at(-1)).toBe("response.done")
    await sleep(20)
    expect(states.map((s) => s.status)).toEqual(["connecting", "open", "closed"])
    expect(states.at(-1)).toMatchObject({ by: "client", code: 1000 })
  })

  it("rejects an invalid realtime client event with InvalidRequest", async () => {
    const error = await firstValueFrom(
      gw.realtime.connect$("gpt-realtime").pipe(switchMap((s) => s.send({ type: "no.such.event" })))
    ).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InvalidRequest)
  })

  it("errors a realtime session closed by the server with the close code", async () => {
    emu.inject("realtime", { kind: "ws-close", code: 1011, reason: "boom", afterMessages: 1 })
    const states: Array<SessionState> = []
    const error = await lastValueFrom(
      gw.realtime.connect$("gpt-realtime").pipe(
        switchMap((s) => {
          s.state$.subscribe((x) => states.push(x))
          return s.events$
        })
      )
    ).catch((e: unknown) => e)
    expect(error).toMatchObject({ _tag: "TransportError", closeCode: 1011 })
    expect(states.at(-1)).toMatchObject({ status: "closed", by: "server", code: 1011 })
  })

  it("runs a live text turn", async () => {
    const messages = await lastValueFrom(
      gw.live.connect$("zeta-live-2.5-flash-native-audio", { generationConfig: { responseModalities: ["TEXT"] } }).pipe(
        switchMap((session) => {
          void session.send({
            clientContent: { turns: [{ role: "user", parts: [{ text: "Hello" }] }], turnComplete: true }
          })
          return session.events$
        }),
        takeWhile((m) => m.serverContent?.turnComplete !== true, true),
        toArray()
      )
    )
    expect(messages.at(-1)?.serverContent?.turnComplete).toBe(true)
  })

  it("runs the platform calls", async () => {
    const t2v = await firstValueFrom(
      gw.platform.textToVideo$({
        model: "delta-1-0-lite-t2v-250428",
        prompt: "a sea",
        duration: "5",
        aspect_ratio: "16:9"
      })
    )
    expect(t2v.task_id).toBeTruthy()
    const easy = await firstValueFrom(
      gw.platform.anyShootEasy$({ size: "512x512", contents: [{ parts: [{ text: "a cat" }] }] })
    )
    expect(easy.url).toBeTruthy()
  })

  it("takes the first values and lets go of the stream", async () => {
    const two = await lastValueFrom(
      gw.chat.stream$({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Hi" }] }).pipe(
        filter((e) => e.type === "chunk"),
        take(2),
        toArray()
      )
    )
    expect(two).toHaveLength(2)
  })
})
