import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { topLevelBoxes } from "../../src/emulator/video/Mp4.js"

// Raw HTTP against the emulator (not umg's client), on a virtual clock so the state machine is exact.
let emu: Emulator
const QUEUED = 2_000
const IN_PROGRESS = 4_000

beforeAll(async () => {
  emu = await startEmulator({ virtualClock: true, video: { queuedMs: QUEUED, inProgressMs: IN_PROGRESS } })
})
afterAll(() => emu.close())

/** `null` sends no Authorization header. */
const headers = (key: string | null) => ({
  "content-type": "application/json",
  ...(key === null ? {} : { authorization: `Bearer ${key}` })
})

/** The fields of a video route's answer the tests read (a task, a download or an error; each has its own). */
interface VideoAnswer {
  readonly task_id?: string
  readonly status?: string
  readonly url?: string
  readonly base64?: string
  readonly size?: number
  readonly data_url?: string
  readonly error?: {
    readonly type: string
    readonly code?: string | number
    readonly message: string
    readonly param?: string
  }
}

const submit = async (body: unknown, key: string | null = emu.apiKey) => {
  const r = await fetch(`${emu.url}/v1/video/generations`, {
    method: "POST",
    headers: headers(key),
    body: JSON.stringify(body)
  })
  return { status: r.status, body: (await r.json()) as VideoAnswer }
}
const query = async (id: string, key = emu.apiKey) => {
  const r = await fetch(`${emu.url}/v1/video/generations/${id}`, { headers: headers(key) })
  return { status: r.status, body: (await r.json()) as VideoAnswer }
}
const download = async (id: string, key = emu.apiKey) => {
  const r = await fetch(`${emu.url}/v1/video/generations/download?id=${encodeURIComponent(id)}`, {
    headers: headers(key)
  })
  return { status: r.status, body: (await r.json()) as VideoAnswer }
}
const submitOk = async (body: unknown): Promise<string> => {
  const r = await submit(body)
  expect(r.status, JSON.stringify(r.body)).toBe(200)
  return r.body.task_id as string
}

const text = (t: string) => ({ type: "text", text: t })
const img = (role?: string) => ({
  type: "image_url",
  image_url: { url: "https://example.com/a.png" },
  ...(role === undefined ? {} : { role })
})
/** A delta body; the pro and 1.5 models repeat the text item as the top-level prompt (the contract's delta body). */
const delta = (model: string, content: Array<unknown>, extra: Record<string, unknown> = {}) => {
  const item = content.find((c): c is { text: string } => (c as { type?: unknown }).type === "text")
  return {
    model,
    ...(model.includes("lite") || item === undefined ? {} : { prompt: item.text }),
    metadata: { content },
    ...extra
  }
}

const accepted: Array<[string, unknown]> = [
  [
    "alpha text-to-video with seconds as a string",
    { model: "alpha-2", prompt: "a cat", seconds: "8", size: "1280x720" }
  ],
  ["alpha with seconds as an integer", { model: "alpha-2", prompt: "a cat", seconds: 12 }],
  ["alpha image-to-video", { model: "alpha-2", prompt: "a cat", input_reference: "https://example.com/a.png" }],
  ["alpha remix", { model: "alpha-2", prompt: "make it night", remix_from_video_id: "video_abc123" }],
  ["beta 3.0 minimal", { model: "beta-3.0-fast-generate-001", prompt: "a cat" }],
  [
    "beta 3.1 with first and last frame",
    { model: "beta-3.1-fast-generate-001", prompt: "a cat", image: "https://e/a.png", lastFrame: "https://e/b.png" }
  ],
  [
    "beta with every documented field",
    {
      model: "beta-3.0-fast-generate-001",
      prompt: "a cat",
      durationSeconds: 6,
      aspectRatio: "9:16",
      resolution: "1080p",
      fps: 24,
      generateAudio: true,
      personGeneration: "dont_allow",
      addWatermark: false,
      seed: 7,
      sampleCount: 4
    }
  ],
  [
    "beta with an fps the contract shows no bound for",
    { model: "beta-3.1-fast-generate-001", prompt: "a cat", fps: 500, generateAudio: false }
  ],
  ["delta flags whose names are written in capitals", delta("delta-1-5-pro-251215", [text("a cat --RS 720p --Dur 5")])],
  [
    "gamma text-to-video with size",
    {
      model: "gamma2.5-t2v-preview",
      prompt: "a cat",
      duration: 10,
      size: "1920*1080",
      seed: 2147483647,
      audio_url: "https://e/a.mp3"
    }
  ],
  [
    "gamma image-to-video with resolution",
    { model: "gamma2.5-i2v-preview", image: "data:image/png;base64,AAAA", resolution: "480p", duration: 5 }
  ],
  [
    "delta lite t2v with flags",
    delta("delta-1-0-lite-t2v-250428", [
      text("a cat --rs 720p --ratio 16:9 --dur 5 --fps 24 --seed -1 --wm false --cf true")
    ])
  ],
  [
    "delta lite i2v first and last frame",
    delta("delta-1-0-lite-i2v-250428", [text("a cat"), img("first_frame"), img("last_frame")])
  ],
  [
    "delta lite i2v reference images",
    delta("delta-1-0-lite-i2v-250428", [
      text("[图1] and [图2] dance --rs 480p"),
      img("reference_image"),
      img("reference_image")
    ])
  ],
  [
    "delta pro image-to-video with no text item",
    { model: "delta-1-0-pro-250528", metadata: { content: [img("first_frame")] } }
  ],
  ["delta pro first frame", delta("delta-1-0-pro-250528", [text("a cat --resolution 1080p --duration 10"), img()])],
  [
    "delta 1.5 pro first/last frame, 4-12 s, with return_last_frame and callback_url",
    {
      model: "delta-1-5-pro-251215",
      prompt: "a cat",
      metadata: {
        content: [text("a cat --dur 11 --rs 480p"), img("first_frame"), img("last_frame")],
        return_last_frame: true,
        callback_url: "https://e/hook"
      }
    }
  ]
]

const rejected: Array<[string, unknown, string | null]> = [
  ["a body without model", { prompt: "a cat" }, "model"],
  ["alpha seconds 5", { model: "alpha-2", prompt: "a cat", seconds: "5" }, "seconds"],
  ["alpha size 1920x1080", { model: "alpha-2", prompt: "a cat", size: "1920x1080" }, "size"],
  [
    "alpha remix id not starting with video_",
    { model: "alpha-2", prompt: "x", remix_from_video_id: "abc" },
    "remix_from_video_id"
  ],
  ["alpha text-to-video without prompt", { model: "alpha-2" }, "prompt"],
  [
    "beta durationSeconds 5",
    { model: "beta-3.0-fast-generate-001", prompt: "a cat", durationSeconds: 5 },
    "durationSeconds"
  ],
  ["beta aspectRatio 1:1", { model: "beta-3.0-fast-generate-001", prompt: "a cat", aspectRatio: "1:1" }, "aspectRatio"],
  ["beta resolution 480p", { model: "beta-3.0-fast-generate-001", prompt: "a cat", resolution: "480p" }, "resolution"],
  ["beta sampleCount 5", { model: "beta-3.0-fast-generate-001", prompt: "a cat", sampleCount: 5 }, "sampleCount"],
  [
    "beta personGeneration unknown",
    { model: "beta-3.0-fast-generate-001", prompt: "a cat", personGeneration: "everyone" },
    "personGeneration"
  ],
  [
    "beta lastFrame on 3.0",
    { model: "beta-3.0-fast-generate-001", prompt: "a cat", image: "https://e/a.png", lastFrame: "https://e/b.png" },
    "lastFrame"
  ],
  ["beta fps 0", { model: "beta-3.0-fast-generate-001", prompt: "a cat", fps: 0 }, "fps"],
  ["beta fps 2.5", { model: "beta-3.0-fast-generate-001", prompt: "a cat", fps: 2.5 }, "fps"],
  ["beta fps as a string", { model: "beta-3.0-fast-generate-001", prompt: "a cat", fps: "24" }, "fps"],
  ["gamma duration 8", { model: "gamma2.5-t2v-preview", prompt: "a cat", duration: 8 }, "duration"],
  ["gamma seed above 2147483647", { model: "gamma2.5-t2v-preview", prompt: "a cat", seed: 2147483648 }, "seed"],
  [
    "gamma audio_url over http",
    { model: "gamma2.5-t2v-preview", prompt: "a cat", audio_url: "http://e/a.mp3" },
    "audio_url"
  ],
  ["gamma size with x", { model: "gamma2.5-t2v-preview", prompt: "a cat", size: "1280x720" }, "size"],
  [
    "gamma resolution on text-to-video",
    { model: "gamma2.5-t2v-preview", prompt: "a cat", resolution: "720p" },
    "resolution"
  ],
  ["gamma image-to-video without image", { model: "gamma2.5-i2v-preview", prompt: "a cat" }, "image"],
  [
    "gamma size on image-to-video",
    { model: "gamma2.5-i2v-preview", image: "https://e/a.png", size: "1280*720" },
    "size"
  ],
  ["delta without metadata.content", { model: "delta-1-0-pro-250528", prompt: "a cat" }, "metadata"],
  ["delta unknown flag", delta("delta-1-0-pro-250528", [text("a cat --bogus 1")]), "metadata.content"],
  ["delta 1.5 pro at 1080p", delta("delta-1-5-pro-251215", [text("a cat --rs 1080p")]), "metadata.content"],
  ["delta 1.5 pro at --RS 1080p", delta("delta-1-5-pro-251215", [text("a cat --RS 1080p")]), "metadata.content"],
  [
    "delta --Dur and --dur both given",
    delta("delta-1-5-pro-251215", [text("a cat --Dur 5 --dur 6")]),
    "metadata.content"
  ],
  [
    "delta reference image mode at 1080p",
    delta("delta-1-0-lite-i2v-250428", [text("[图1] dances --rs 1080p"), img("reference_image")]),
    "metadata.content"
  ],
  [
    "delta reference image mode with --cf",
    delta("delta-1-0-lite-i2v-250428", [text("[图1] dances --cf false"), img("reference_image")]),
    "metadata.content"
  ],
  ["delta 1.5 pro for 3 s", delta("delta-1-5-pro-251215-noAudio", [text("a cat --dur 3")]), "metadata.content"],
  ["delta --cf on a pro model", delta("delta-1-0-pro-250528", [text("a cat --cf true")]), "metadata.content"],
  [
    "delta lite t2v with adaptive ratio",
    delta("delta-1-0-lite-t2v-250428", [text("a cat --ratio adaptive")]),
    "metadata.content"
  ],
  ["delta lite t2v with an image", delta("delta-1-0-lite-t2v-250428", [text("a cat"), img()]), "metadata.content"],
  [
    "delta pro with a last frame",
    delta("delta-1-0-pro-250528", [text("a cat"), img("first_frame"), img("last_frame")]),
    "metadata.content"
  ],
  [
    "delta 1.5 pro with reference images",
    delta("delta-1-5-pro-251215", [text("a cat"), img("reference_image")]),
    "metadata.content"
  ],
  [
    "delta reference mixed with frames",
    delta("delta-1-0-lite-i2v-250428", [text("a cat"), img("reference_image"), img("first_frame")]),
    "metadata.content"
  ],
  [
    "delta unknown image role",
    delta("delta-1-0-lite-i2v-250428", [text("a cat"), img("middle_frame")]),
    "metadata.content[1].role"
  ],
  [
    "delta text-to-video with no text item",
    { model: "delta-1-0-lite-t2v-250428", metadata: { content: [] } },
    "metadata.content"
  ],
  ["delta a second text item", delta("delta-1-0-lite-t2v-250428", [text("a"), text("b")]), "metadata.content[1]"],
  [
    "delta pro without top-level prompt",
    { model: "delta-1-0-pro-250528", metadata: { content: [text("a cat")] } },
    "prompt"
  ],
  [
    "generic aspect_ratio 2:1",
    { model: "beta-3.0-fast-generate-001", prompt: "a cat", aspect_ratio: "2:1" },
    "aspect_ratio"
  ]
]

describe("POST /v1/video/generations", () => {
  it.each(accepted)("accepts %s with status submitted and a video_ task id", async (_name, body) => {
    const r = await submit(body)
    expect(r.status, JSON.stringify(r.body)).toBe(200)
    expect(r.body).toEqual({ task_id: expect.stringMatching(/^video_/), status: "submitted", format: "mp4" })
  })

  it.each(rejected)("rejects %s with an OpenAI-style 400 naming the field", async (_name, body, param) => {
    const r = await submit(body)
    expect(r.status).toBe(400)
    expect(r.body.error).toMatchObject({ type: "invalid_request_error", param })
    expect(typeof r.body.error?.message).toBe("string")
  })

  it("names the remix as the mode that needs a prompt", async () => {
    const r = await submit({ model: "alpha-2", remix_from_video_id: "video_abc" })
    expect(r.status).toBe(400)
    expect(r.body.error).toMatchObject({ param: "prompt", message: "prompt is required for a remix (video-to-video)" })
    expect((await submit({ model: "alpha-2" })).body.error?.message).toBe("prompt is required for text-to-video")
  })

  it("answers an unknown model with 400 model not found for every key", async () => {
    for (const key of [emu.apiKey, emu.restrictedKey!]) {
      const r = await submit({ model: "omega-9", prompt: "a cat" }, key)
      expect(r.status).toBe(400)
      expect(r.body.error?.code).toBe("model_not_found")
      expect(r.body.error?.message).toMatch(/model not found/)
    }
  })

  it("refuses the restricted key alpha and the hidden models, and lets it use the others", async () => {
    const k = emu.restrictedKey!
    const alpha = await submit({ model: "alpha-2", prompt: "a cat" }, k)
    expect(alpha.status).toBe(400)
    expect(alpha.body.error?.message).toBe("invalid api platform: 3")
    for (const model of ["delta-1-0-lite-t2v-250428", "delta-1-0-lite-i2v-250428", "beta-3.0-generate-preview"]) {
      const r = await submit({ model, prompt: "a cat", metadata: { content: [text("a cat"), img()] } }, k)
      expect(r.status, model).toBe(404)
      expect(r.body.error?.message).toMatch(/not found or no access/)
    }
    expect((await submit({ model: "beta-3.0-fast-generate-001", prompt: "a cat" }, k)).status).toBe(200)
  })

  it("refuses a missing or wrong key with 401 invalid_api_key", async () => {
    for (const key of [null, "wrong-key"]) {
      const r = await submit({ model: "alpha-2", prompt: "a cat" }, key)
      expect(r.status).toBe(401)
      expect(r.body.error?.code).toBe("invalid_api_key")
    }
  })

  it("answers a body that is not JSON with 400", async () => {
    const r = await fetch(`${emu.url}/v1/video/generations`, {
      method: "POST",
      headers: headers(emu.apiKey),
      body: "{nope"
    })
    expect(r.status).toBe(400)
    expect(((await r.json()) as VideoAnswer).error?.type).toBe("invalid_request_error")
  })

  it("counts one video.submit per accepted submit", async () => {
    const before = emu.counters.get("video.submit")
    await submitOk({ model: "alpha-2", prompt: "count me" })
    expect(emu.counters.get("video.submit")).toBe(before + 1)
  })
})

describe("GET /v1/video/generations/{task_id}", () => {
  it("moves queued → in_progress → succeeded on the clock and then gives a url to a real MP4", async () => {
    const id = await submitOk({ model: "beta-3.1-fast-generate-001", prompt: "a cat" })
    expect((await query(id)).body).toEqual({ task_id: id, status: "queued", format: "mp4" })
    emu.advanceTime(QUEUED - 1)
    expect((await query(id)).body.status).toBe("queued")
    emu.advanceTime(1)
    expect((await query(id)).body).toEqual({ task_id: id, status: "in_progress", format: "mp4" })
    emu.advanceTime(IN_PROGRESS - 1)
    expect((await query(id)).body.status).toBe("in_progress")
    emu.advanceTime(1)
    const done = (await query(id)).body
    expect(done).toEqual({ task_id: id, status: "succeeded", format: "mp4", url: `${emu.url}/files/videos/${id}.mp4` })
    const file = await fetch(done.url as string)
    expect(file.status).toBe(200)
    expect(file.headers.get("content-type")).toBe("video/mp4")
    const bytes = new Uint8Array(await file.arrayBuffer())
    expect(topLevelBoxes(bytes).map((b) => b.type)).toEqual(expect.arrayContaining(["ftyp", "moov", "mdat"]))
    expect(topLevelBoxes(bytes)[0]!.type).toBe("ftyp")
  })

  it("serves byte ranges of the MP4 as a <video> element asks for them", async () => {
    const id = await submitOk({ model: "gamma2.5-t2v-preview", prompt: "a cat" })
    emu.advanceTime(QUEUED + IN_PROGRESS)
    const url = (await query(id)).body.url as string
    const whole = new Uint8Array(await (await fetch(url)).arrayBuffer())
    const part = await fetch(url, { headers: { range: "bytes=100-199" } })
    expect(part.status).toBe(206)
    expect(part.headers.get("content-range")).toBe(`bytes 100-199/${whole.length}`)
    expect(new Uint8Array(await part.arrayBuffer())).toEqual(whole.subarray(100, 200))
    const tail = await fetch(url, { headers: { range: "bytes=-10" } })
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(whole.subarray(whole.length - 10))
    const beyond = await fetch(url, { headers: { range: `bytes=${whole.length}-` } })
    expect(beyond.status).toBe(416)
    expect(beyond.headers.get("content-range")).toBe(`bytes */${whole.length}`)
  })

  it("does not serve the file of a task that has not succeeded", async () => {
    const id = await submitOk({ model: "gamma2.5-t2v-preview", prompt: "a dog" })
    expect((await fetch(`${emu.url}/files/videos/${id}.mp4`)).status).toBe(404)
  })

  it("fails a task whose prompt is inappropriate with an integer error code", async () => {
    const id = await submitOk(delta("delta-1-0-pro-250528", [text("a scene of violence --dur 5")]))
    emu.advanceTime(QUEUED)
    expect((await query(id)).body.status).toBe("in_progress")
    emu.advanceTime(IN_PROGRESS)
    const failed = (await query(id)).body
    expect(failed.status).toBe("failed")
    expect(Number.isInteger(failed.error?.code)).toBe(true)
    expect(failed.error?.message).toMatch(/inappropriate content/)
    expect(failed.url).toBeUndefined()
  })

  it("gives url on succeeded delta tasks but never on alpha tasks", async () => {
    const d = await submitOk(delta("delta-1-5-pro-251215", [text("a cat")]))
    const a = await submitOk({ model: "alpha-2", prompt: "a cat" })
    emu.advanceTime(QUEUED + IN_PROGRESS)
    expect((await query(d)).body.url).toBe(`${emu.url}/files/videos/${d}.mp4`)
    expect((await query(a)).body).toEqual({ task_id: a, status: "succeeded", format: "mp4" })
  })

  it("counts every query under video.get and every file under video.file", async () => {
    const id = await submitOk({ model: "beta-3.0-fast-generate-001", prompt: "counted" })
    const gets = emu.counters.get("video.get")
    const files = emu.counters.get("video.file")
    await query(id)
    await query(id)
    emu.advanceTime(QUEUED + IN_PROGRESS)
    await fetch((await query(id)).body.url as string).then((r) => r.arrayBuffer())
    expect(emu.counters.get("video.get")).toBe(gets + 3)
    expect(emu.counters.get("video.file")).toBe(files + 1)
  })

  it("shows a task only to the key that created it", async () => {
    const id = await submitOk({ model: "beta-3.0-fast-generate-001", prompt: "mine" })
    expect((await query(id, emu.restrictedKey!)).status).toBe(404)
    expect((await query("video_doesnotexist")).status).toBe(404)
    expect((await query("video_doesnotexist")).body.error?.type).toBe("invalid_request_error")
  })
})

describe("GET /v1/video/generations/download", () => {
  it("returns the alpha video as base64 and data_url whose size matches the decoded bytes", async () => {
    const id = await submitOk({ model: "alpha-2", prompt: "a cat", seconds: 4 })
    const early = await download(id)
    expect(early.status).toBe(400)
    expect(early.body.error?.code).toBe("video_not_ready")
    emu.advanceTime(QUEUED + IN_PROGRESS)
    const r = await download(id)
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ success: true, generation_id: id, task_id: id, format: "mp4" })
    const bytes = Buffer.from(r.body.base64 as string, "base64")
    expect(r.body.size).toBe(bytes.length)
    expect(r.body.data_url).toBe(`data:video/mp4;base64,${r.body.base64}`)
    expect(topLevelBoxes(bytes)[0]!.type).toBe("ftyp")
  })

  it("wins over the {task_id} route and asks for id when it is missing", async () => {
    const r = await fetch(`${emu.url}/v1/video/generations/download`, { headers: headers(emu.apiKey) })
    expect(r.status).toBe(400)
    expect(((await r.json()) as VideoAnswer).error?.param).toBe("id")
    expect(emu.counters.get("video.download")).toBeGreaterThan(0)
  })

  it("answers unknown, foreign, failed and non-alpha tasks with errors", async () => {
    expect((await download("video_nope")).status).toBe(404)
    const mine = await submitOk({ model: "alpha-2", prompt: "a cat" })
    const bad = await submitOk({ model: "alpha-2", prompt: "something inappropriate" })
    const beta = await submitOk({ model: "beta-3.0-fast-generate-001", prompt: "a cat" })
    emu.advanceTime(QUEUED + IN_PROGRESS)
    expect((await download(mine, emu.restrictedKey!)).status).toBe(404)
    expect((await download(bad)).status).toBe(400)
    expect((await download(beta)).status).toBe(400)
  })
})

describe("video tasks on the real clock with fast timings", () => {
  it("finish on their own (polled every 50 ms, bounded)", async () => {
    const fast = await startEmulator({ fast: true })
    try {
      const r = await fetch(`${fast.url}/v1/video/generations`, {
        method: "POST",
        headers: { authorization: `Bearer ${fast.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "gamma2.5-t2v-preview", prompt: "a cat" })
      })
      const { task_id } = (await r.json()) as { task_id: string }
      const seen = new Set<string>()
      for (let i = 0; i < 200 && !seen.has("succeeded"); i++) {
        const q = await fetch(`${fast.url}/v1/video/generations/${task_id}`, {
          headers: { authorization: `Bearer ${fast.apiKey}` }
        })
        seen.add(((await q.json()) as { status: string }).status)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      expect(seen.has("succeeded")).toBe(true)
    } finally {
      await fast.close()
    }
  })
})
