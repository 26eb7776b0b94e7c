/**
 * `umg video`, `umg video download` and `umg demo` against a fake gateway (`node:http`): the task's
 * `url` is streamed to the file with the download bound and no credential, the file is written whole
 * or not at all, and an unwritable `-o` (or `--out`) is refused before anything is paid for.
 */
import { spawn } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { bundleUmg, runUmg, type UmgRun } from "./RunUmg.js"

const MIB = 1024 * 1024
/** What the task's url serves: 64 KiB, or a video just past the 512 MiB download bound. */
type Served = "small" | "huge"

interface FakeGateway {
  readonly url: string
  /** Every request, by method and path. */
  readonly requests: Array<string>
  /** The headers of the requests for the video file. */
  readonly fileHeaders: Array<IncomingHttpHeaders>
  served: Served
  readonly close: () => Promise<void>
}

const fakeGateway = (): Promise<FakeGateway> =>
  new Promise((resolve) => {
    const chunk = Buffer.alloc(MIB, 0x76)
    const state = { served: "small" as Served }
    const requests: Array<string> = []
    const fileHeaders: Array<IncomingHttpHeaders> = []
    let base = ""
    const json = (res: import("node:http").ServerResponse, body: unknown) => {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify(body))
    }
    const server: Server = createServer((req, res) => {
      req.resume()
      const path = (req.url ?? "").split("?")[0] ?? ""
      requests.push(`${req.method} ${path}`)
      if (req.method === "POST" && path === "/v1/video/generations")
        return json(res, { task_id: "video_1", status: "submitted", format: "mp4" })
      if (path === "/v1/video/generations/video_1")
        return json(res, { task_id: "video_1", status: "succeeded", format: "mp4", url: `${base}/files/v.mp4` })
      if (path === "/files/v.mp4") {
        fileHeaders.push(req.headers)
        if (state.served === "small") {
          res.writeHead(200, { "content-type": "video/mp4" })
          return res.end(Buffer.alloc(64 * 1024, 0x76))
        }
        // 513 MiB, written as the client reads it; a client that stops closes the connection.
        let left = 513
        res.writeHead(200, { "content-type": "video/mp4", "content-length": String(left * MIB) })
        const pump = (): void => {
          while (left > 0) {
            left--
            if (!res.write(chunk)) return void res.once("drain", pump)
          }
          res.end()
        }
        res.on("close", () => (left = 0))
        return pump()
      }
      res.writeHead(404, { "content-type": "application/json" })
      res.end(JSON.stringify({ error: { message: "not found", type: "not_found_error" } }))
    })
    server.listen(0, "127.0.0.1", () => {
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const gateway: FakeGateway = {
        url: base,
        requests,
        fileHeaders,
        get served() {
          return state.served
        },
        set served(value: Served) {
          state.served = value
        },
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      }
      resolve(gateway)
    })
  })

let umg: string
let gateway: FakeGateway
let env: Record<string, string>
const dir = mkdtempSync(join(tmpdir(), "umg-video-files-"))

beforeAll(async () => {
  ;[umg, gateway] = await Promise.all([bundleUmg(), fakeGateway()])
  env = { UMG_BASE_URL: gateway.url, UMG_API_KEY: "sk-video-files-secret", UMG_POLL_INTERVAL_MS: "100" }
}, 60_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await gateway?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  if (umg !== undefined) rmSync(umg, { force: true })
  rmSync(dir, { recursive: true, force: true })
})

beforeEach(() => {
  gateway.requests.length = 0
  gateway.fileHeaders.length = 0
  gateway.served = "small"
})

const video = (output: string): Array<string> => [
  "video",
  "-m",
  "beta-3.1-fast-generate-001",
  "--prompt",
  "a fox",
  "-o",
  output
]

/** A folder holding `v.mp4` with earlier content. */
const withEarlierVideo = (name: string): string => {
  const folder = join(dir, name)
  mkdirSync(folder, { recursive: true })
  writeFileSync(join(folder, "v.mp4"), "the earlier video")
  return folder
}

/**
 * Runs umg in `cwd` (default: this folder) with a file-size limit (`ulimit -f`, in 512-byte blocks:
 * a larger write fails with EFBIG).
 */
const runLimited = (args: ReadonlyArray<string>, blocks: number | "unlimited", cwd = dir): Promise<UmgRun> =>
  new Promise((resolve, reject) => {
    const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("UMG_")))
    const child = spawn("sh", ["-c", `ulimit -f ${blocks} && exec "$0" "$@"`, process.execPath, umg, ...args], {
      cwd,
      env: { ...base, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d))
    child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

describe("umg video and the task's url", () => {
  it("streams the url to the file, without the credential", async () => {
    const folder = join(dir, "ok")
    const run = await runUmg(umg, video(join(folder, "v.mp4")), env)
    expect(run.code, run.stderr).toBe(0)
    expect(readFileSync(join(folder, "v.mp4")).length).toBe(64 * 1024)
    expect(gateway.fileHeaders).toHaveLength(1)
    expect(gateway.fileHeaders[0]?.authorization).toBeUndefined()
    expect(JSON.stringify(gateway.fileHeaders[0])).not.toContain("sk-video-files-secret")
  })

  it("stops a video past the download bound (512 MiB): exit 1, the earlier file kept, no file left behind", async () => {
    gateway.served = "huge"
    const folder = withEarlierVideo("huge")
    const run = await runUmg(umg, video(join(folder, "v.mp4")), env)
    expect(run.code, run.stderr).toBe(1)
    expect(run.stderr).toContain("larger than its bound")
    expect(readFileSync(join(folder, "v.mp4"), "utf8")).toBe("the earlier video")
    expect(readdirSync(folder)).toEqual(["v.mp4"])
  }, 60_000)

  it("umg video download stops a video past the bound the same way", async () => {
    gateway.served = "huge"
    const folder = withEarlierVideo("huge-download")
    const run = await runUmg(umg, ["video", "download", "video_1", "-o", join(folder, "v.mp4")], env)
    expect(run.code, run.stderr).toBe(1)
    expect(run.stderr).toContain("larger than its bound")
    expect(readFileSync(join(folder, "v.mp4"), "utf8")).toBe("the earlier video")
  }, 60_000)
})

describe("video files are written whole or not at all", () => {
  for (const [name, args] of [
    ["umg video", (path: string) => video(path)],
    ["umg video download", (path: string) => ["video", "download", "video_1", "-o", path]]
  ] as const) {
    it(`${name}: a failed write (file-size limit) keeps the earlier file, and fails as FileWriteFailed`, async () => {
      const folder = withEarlierVideo(name.replaceAll(" ", "-"))
      const run = await runLimited(args(join(folder, "v.mp4")), 16)
      expect(run.code, run.stderr).toBe(1)
      expect(run.stderr).toContain("cannot write")
      expect(run.stderr).toContain("FileWriteFailed")
      expect(readFileSync(join(folder, "v.mp4"), "utf8")).toBe("the earlier video")
      expect(readdirSync(folder)).toEqual(["v.mp4"])
    })
  }
})

describe("an unwritable output is refused before the paid submit", () => {
  it("umg video -o FOLDER: exit 2, nothing sent", async () => {
    const folder = join(dir, "adir")
    mkdirSync(folder, { recursive: true })
    const run = await runUmg(umg, video(folder), env)
    expect(run.code, run.stderr).toBe(2)
    expect(run.stderr).toContain("cannot write")
    expect(run.stderr).toContain("nothing was sent")
    expect(gateway.requests).toEqual([])
  })

  it("umg video without -o: the default path (TASK_ID.mp4) is checked after the submit, before polling", async () => {
    const cwd = join(dir, "default-path")
    mkdirSync(join(cwd, "video_1.mp4"), { recursive: true })
    const run = await runLimited(["video", "-m", "beta-3.1-fast-generate-001", "--prompt", "a fox"], "unlimited", cwd)
    // Past the paid submit: a failed write (exit 1) naming the task, not "nothing was sent".
    expect(run.code, run.stderr).toBe(1)
    expect(run.stderr).not.toContain("nothing was sent")
    expect(run.stderr).toContain("cannot write")
    expect(run.stderr).toContain("umg video download video_1 -o FILE")
    expect(gateway.requests).toEqual(["POST /v1/video/generations"])
  })

  it("umg demo --out FILE: exit 2, nothing sent", async () => {
    const file = join(dir, "a-file")
    writeFileSync(file, "not a folder")
    const run = await runUmg(umg, ["demo", "--out", file], env)
    expect(run.code, run.stderr).toBe(2)
    expect(run.stderr).toContain("cannot write")
    expect(gateway.requests).toEqual([])
    expect(readFileSync(file, "utf8")).toBe("not a folder")
  })
})
