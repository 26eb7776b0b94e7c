/**
 * `umg` stopped from outside: its output fails — the reader of a pipe goes away (`umg chat … | head`) or
 * the write itself fails (stdout on a full disk) — or a signal comes. The command must stop its work
 * (the stream's connection closed), print no stack trace, and exit 141 (EPIPE, as shells report
 * SIGPIPE), 1 (any other failed write, said on stderr), 130 (SIGINT) or 143 (SIGTERM).
 */
import { spawn } from "node:child_process"
import { closeSync, openSync, rmSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { bundleUmg } from "./RunUmg.js"

/** A gateway whose chat stream never ends by itself: a token every 10 ms, for a minute at most. */
interface EndlessGateway {
  readonly url: string
  /** Requests whose connection the client closed before the stream ended. */
  readonly abandoned: () => number
  readonly close: () => Promise<void>
}

const endlessGateway = (): Promise<EndlessGateway> =>
  new Promise((resolve) => {
    let abandoned = 0
    const server: Server = createServer((req, res) => {
      req.resume()
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
      let n = 0
      const chunk = (content: string): string =>
        `data: ${JSON.stringify({
          id: "chatcmpl-endless",
          object: "chat.completion.chunk",
          created: 1,
          model: "gpt-4o-mini",
          choices: [{ index: 0, delta: { content }, logprobs: null, finish_reason: null }]
        })}\n\n`
      const timer = setInterval(() => {
        // Enough text per token that a closed pipe is noticed within a few writes.
        res.write(chunk(`token ${n++} `.repeat(64)))
        if (n === 6_000) {
          clearInterval(timer)
          res.end()
        }
      }, 10)
      res.on("close", () => {
        if (!res.writableEnded) abandoned++
        clearInterval(timer)
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `http://127.0.0.1:${port}`,
        abandoned: () => abandoned,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })

let umg: string
let gateway: EndlessGateway

beforeAll(async () => {
  ;[umg, gateway] = await Promise.all([bundleUmg(), endlessGateway()])
}, 60_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await gateway?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  if (umg !== undefined) rmSync(umg, { force: true })
})

/** The environment of a run: no UMG_* from the caller, the endless gateway. */
const envOf = (): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("UMG_"))),
  NO_COLOR: "1",
  UMG_BASE_URL: gateway.url,
  UMG_API_KEY: "sk-endless-test-key"
})

const waitFor = async (condition: () => boolean, ms: number): Promise<boolean> => {
  const until = Date.now() + ms
  while (!condition() && Date.now() < until) await new Promise((r) => setTimeout(r, 20))
  return condition()
}

/**
 * A streaming `umg chat` against the endless gateway, stopped by `stop` once its first text is out:
 * its exit code (`SIGKILL`ed and `"running"` if it was still running 15 s later) and its stderr.
 */
const stoppedChat = async (
  stop: (child: ReturnType<typeof spawn>) => void
): Promise<{ readonly code: number | null | "running"; readonly stderr: string }> => {
  const child = spawn(process.execPath, [umg, "chat", "-m", "gpt-4o-mini", "Tell me everything"], {
    env: envOf(),
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stderr = ""
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d))
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
  await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()))
  stop(child)
  const code = await Promise.race([exited, new Promise<"running">((r) => setTimeout(() => r("running"), 15_000))])
  if (code === "running") child.kill("SIGKILL")
  return { code, stderr }
}

describe("umg whose output fails", () => {
  it("stops a streaming chat when the reader of its stdout goes away: the connection closed, no stack trace, exit 141", async () => {
    const before = gateway.abandoned()
    // The reader takes the first text, then goes away, as `head` does.
    const { code, stderr } = await stoppedChat((child) => child.stdout?.destroy())
    expect(code).toBe(141)
    expect(stderr).not.toMatch(/EPIPE|Unhandled|\n\s+at /)
    // The stream's connection was closed by the client, long before the server would have ended it.
    expect(await waitFor(() => gateway.abandoned() > before, 5_000)).toBe(true)
  }, 30_000)

  it("stops and says so, exit 1, when a write to stdout fails (a full disk: /dev/full)", async () => {
    const before = gateway.abandoned()
    const full = openSync("/dev/full", "w")
    try {
      const child = spawn(process.execPath, [umg, "chat", "-m", "gpt-4o-mini", "Tell me everything"], {
        env: envOf(),
        stdio: ["ignore", full, "pipe"]
      })
      let stderr = ""
      // With a file descriptor for stdout, the type no longer knows that stderr is a pipe.
      const stderrPipe = child.stderr
      if (stderrPipe === null) throw new Error("stderr is not a pipe")
      stderrPipe.setEncoding("utf8").on("data", (d: string) => (stderr += d))
      const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)))
      expect(code).toBe(1)
      expect(stderr).toContain("umg: cannot write to stdout (ENOSPC")
      expect(stderr).not.toMatch(/Unhandled|\n\s+at /)
      expect(stderr).not.toContain("sk-endless-test-key")
      expect(await waitFor(() => gateway.abandoned() > before, 5_000)).toBe(true)
    } finally {
      closeSync(full)
    }
  }, 30_000)
})

describe("umg stopped by a signal", () => {
  it.each([
    ["SIGINT", 130],
    ["SIGTERM", 143]
  ] as const)(
    "%s stops a streaming chat: the connection closed, no stack trace, exit %i",
    async (signal, expected) => {
      const before = gateway.abandoned()
      // Once the stream has started, as a user or a supervisor stops it.
      const { code, stderr } = await stoppedChat((child) => {
        child.stdout?.resume()
        child.kill(signal)
      })
      expect(code).toBe(expected)
      expect(stderr).not.toMatch(/Unhandled|\n\s+at /)
      expect(await waitFor(() => gateway.abandoned() > before, 5_000)).toBe(true)
    },
    30_000
  )
})
