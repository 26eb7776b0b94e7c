/**
 * The streamed E3 download: the answer parsed as it arrives, split at every byte, in any key order,
 * with escaped solidi; every check `decodeVideoDownload` makes (success, format, size, strict
 * base64, data_url) made without holding the video, and the same verdict as it on altered answers;
 * and the stream against the emulator, byte for byte the video `video.download` gives whole.
 */
import { Effect, Result, Scope, Stream } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as GatewayConfig from "../../src/adapters/GatewayConfig.js"
import { downloadStream, makeDownloadParser } from "../../src/adapters/groups/VideoDownloadStream.js"
import * as HttpTransport from "../../src/adapters/http/HttpTransport.js"
import * as GroupContext from "../../src/adapters/internal/GroupContext.js"
import { decodeVideoDownload } from "../../src/core/video/VideoTask.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { seeded } from "./Harness.js"

const answerOf = (bytes: Uint8Array, order: "base64-first" | "data-first" = "base64-first") => {
  const base64 = Buffer.from(bytes).toString("base64")
  const head = { success: true, generation_id: "video_1", task_id: "video_1", format: "mp4", size: bytes.length }
  return order === "base64-first"
    ? { ...head, base64, data_url: `data:video/mp4;base64,${base64}` }
    : { data_url: `data:video/mp4;base64,${base64}`, ...head, base64 }
}

/** Parses `text` cut into pieces at `cuts`: the video's bytes, or the first fault. */
const parse = (text: string, cuts: ReadonlyArray<number> = []): Result.Result<Uint8Array, string> => {
  const bytes = new TextEncoder().encode(text)
  const parser = makeDownloadParser()
  const out: Array<Uint8Array> = []
  let at = 0
  for (const cut of [...cuts, bytes.length]) {
    const piece = parser.push(bytes.subarray(at, cut))
    if (typeof piece === "string") return Result.fail(piece)
    out.push(piece)
    at = cut
  }
  const fault = parser.end()
  return fault === undefined ? Result.succeed(Buffer.concat(out)) : Result.fail(fault)
}

const verdictOfWhole = (text: string): boolean =>
  Result.isSuccess(
    Effect.runSync(Effect.result(Effect.suspend(() => decodeVideoDownload(JSON.parse(text) as unknown))))
  )

describe("the streamed E3 download parser", () => {
  const random = seeded(20261128)
  const video = Uint8Array.from({ length: 1_000 }, () => Math.floor(random() * 256))

  it("gives the video's bytes whatever the chunks: every split point, both key orders, escaped solidi", () => {
    for (const order of ["base64-first", "data-first"] as const) {
      const text = JSON.stringify(answerOf(video, order))
      for (let cut = 0; cut <= text.length; cut += 7)
        expect(parse(text, [cut])).toEqual(Result.succeed(Buffer.from(video)))
      const escaped = text.replaceAll("/", "\\/")
      expect(escaped).not.toBe(text)
      expect(parse(escaped, [3, 100, 101, 1_500])).toEqual(Result.succeed(Buffer.from(video)))
    }
    // One byte at a time, with whitespace and an unknown nested field skipped.
    const spaced = JSON.stringify({ extra: { a: [1, '}"]'] }, ...answerOf(video) }, null, 2)
    expect(
      parse(
        spaced,
        Array.from({ length: spaced.length }, (_, i) => i)
      )
    ).toEqual(Result.succeed(Buffer.from(video)))
    // An empty video.
    expect(parse(JSON.stringify(answerOf(new Uint8Array(0))))).toEqual(Result.succeed(Buffer.alloc(0)))
  })

  it("refuses what decodeVideoDownload refuses, naming the fault", () => {
    const good = answerOf(video.subarray(0, 100))
    const cases: ReadonlyArray<readonly [string, string, RegExp]> = [
      ["size off by one", JSON.stringify({ ...good, size: 101 }), /size says 101 bytes but base64 holds 100/],
      ["success false", JSON.stringify({ ...good, success: false }), /success/],
      ["another format", JSON.stringify({ ...good, format: "webm" }), /format/],
      ["no task id", JSON.stringify({ ...good, task_id: undefined }), /task_id/],
      [
        "data_url with other data",
        JSON.stringify({ ...good, data_url: good.data_url.replace(/.$/, good.data_url.endsWith("A") ? "B" : "A") }),
        /data_url|base64/
      ],
      [
        "data_url of another type",
        JSON.stringify({ ...good, data_url: good.data_url.replace("mp4", "mov") }),
        /data_url/
      ],
      [
        "a character outside the alphabet",
        JSON.stringify({ ...good, base64: `-${good.base64.slice(1)}` }),
        /invalid base64/
      ],
      [
        "length not a multiple of 4",
        JSON.stringify({ ...good, base64: good.base64.slice(1) }),
        /multiple of 4|padding|size|data_url/
      ],
      ["cut short", JSON.stringify(good).slice(0, 80), /ended before its end/],
      ["bytes after the object", `${JSON.stringify(good)} {}`, /after the end/],
      ["not an object", "[]", /not a JSON object/],
      ["a key twice", JSON.stringify(good).replace('"format":"mp4"', '"format":"mp4","format":"mp4"'), /twice/]
    ]
    for (const [name, text, fault] of cases) {
      const parsed = parse(text, [17, 64])
      expect(Result.isFailure(parsed), name).toBe(true)
      if (Result.isFailure(parsed)) expect(parsed.failure, name).toMatch(fault)
      if (name !== "a key twice" && name !== "bytes after the object" && name !== "cut short")
        expect(verdictOfWhole(text), name).toBe(false)
    }
  })

  it("agrees with decodeVideoDownload on answers altered at random (one character each)", () => {
    const text = JSON.stringify(answerOf(video.subarray(0, 60)))
    const alphabet = 'A/+=9"\\:,{}x '
    for (let i = 0; i < 400; i++) {
      const at = Math.floor(random() * text.length)
      const altered = text.slice(0, at) + alphabet[Math.floor(random() * alphabet.length)] + text.slice(at + 1)
      let whole: boolean
      try {
        whole = verdictOfWhole(altered)
      } catch {
        whole = false
      }
      expect(Result.isSuccess(parse(altered, [at])), altered).toBe(whole)
    }
  })
})

describe("downloadStream against the emulator", () => {
  let emulator: Emulator
  beforeAll(async () => {
    emulator = await startEmulator({ fast: true, video: { queuedMs: 10, inProgressMs: 20 } })
  })
  afterAll(() => emulator.close())

  it("streams the video E3 answers, byte for byte what the whole download decodes", async () => {
    const config = GatewayConfig.make({ baseUrl: emulator.url, apiKey: emulator.apiKey, minPollIntervalMs: 10 })
    const transport = Effect.runSync(Scope.provide(Scope.makeUnsafe())(HttpTransport.fromConfig(config)))
    const ctx = GroupContext.make(config, transport)
    const { Gateway } = await import("../../src/adapters/Gateway.js")
    const program = Effect.gen(function* () {
      const gateway = yield* Gateway
      const task = yield* gateway.video.submit({ model: "alpha-2", prompt: "streamed download" })
      yield* gateway.video.wait(task.task_id, { intervalMs: 10 })
      const whole = yield* gateway.video.download(task.task_id)
      const chunks = yield* Stream.runCollect(downloadStream(ctx, task.task_id))
      const missing = yield* Effect.flip(Stream.runCollect(downloadStream(ctx, "video_nope")))
      return { whole, streamed: Buffer.concat(chunks), missing }
    })
    const { whole, streamed, missing } = await Effect.runPromise(
      Effect.provide(program, Gateway.layer({ baseUrl: emulator.url, apiKey: emulator.apiKey, minPollIntervalMs: 10 }))
    )
    expect(streamed.length).toBe(whole.size)
    expect(Buffer.compare(streamed, Buffer.from(whole.bytes))).toBe(0)
    expect(missing._tag).toBe("NotFound")
  }, 30_000)
})
