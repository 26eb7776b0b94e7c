// The emulator runs on users' machines and in their CI, so it keeps bounded memory under hostile
// clients, built for real here: a realtime client that never reads while asking for large echoes,
// concurrent oversized bodies, and 100,000-deep JSON where routes walk it (tools, schemas, inputs).
import { request } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import WebSocket from "ws"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

const deep = (n: number): string => `${"[".repeat(n)}${"]".repeat(n)}`
const post = async (path: string, body: string): Promise<{ status: number; json: unknown }> => {
  const res = await fetch(`${emu.url}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
    body
  })
  const text = await res.text()
  return { status: res.status, json: JSON.parse(text) as unknown }
}

describe("the emulator under hostile clients", () => {
  it("answers 100,000-deep JSON in tools, input_schema, tool_use input and functionDeclarations with the family's 400", async () => {
    const messages = await post(
      "/v1/messages",
      `{"model":"epsilon-sonnet-4-5-20250929","max_tokens":8,"messages":[{"role":"user","content":"hi"}],"tools":[{"name":"f","input_schema":{"type":"object","properties":${deep(100_000)}}}]}`
    )
    expect(messages.status).toBe(400)
    expect(messages.json).toMatchObject({ type: "error", error: { type: "invalid_request" } })
    const toolUse = await post(
      "/v1/messages",
      `{"model":"epsilon-sonnet-4-5-20250929","max_tokens":8,"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{"a":${deep(100_000)}}}]}]}`
    )
    expect(toolUse.status).toBe(400)
    const native = await post(
      "/v1beta/models/zeta-2.5-flash:generateContent",
      `{"contents":[{"parts":[{"text":"x"}]}],"tools":[{"functionDeclarations":[{"name":"f","parameters":${deep(100_000)}}]}]}`
    )
    expect(native.status).toBe(400)
    expect(native.json).toMatchObject({ error: { status: "INVALID_ARGUMENT" } })
    const chat = await post(
      "/v1/chat/completions",
      `{"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}],"tools":${deep(100_000)}}`
    )
    expect(chat.status).toBe(400)
  })

  it("refuses concurrent 60 MiB bodies at the route's bound without buffering them", async () => {
    const before = process.memoryUsage().rss
    const send = () =>
      new Promise<number>((resolve, reject) => {
        const url = new URL(`${emu.url}/v1/messages`)
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: "POST",
            headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" }
          },
          (res) => {
            res.resume()
            resolve(res.statusCode ?? 0)
          }
        )
        req.on("error", () => resolve(413)) // the emulator may close the socket while we still write
        const chunk = Buffer.alloc(1024 * 1024, 0x20)
        let sent = 0
        const pump = (): void => {
          while (sent < 60 && req.write(chunk)) sent++
          if (sent >= 60) req.end()
        }
        req.on("drain", pump)
        pump()
        void reject
      })
    const statuses = await Promise.all(Array.from({ length: 8 }, send))
    expect(statuses.every((s) => s === 413)).toBe(true)
    // 8 × 60 MiB would be 480 MiB held; the bound keeps the growth to a fraction of one body.
    expect((process.memoryUsage().rss - before) / (1024 * 1024)).toBeLessThan(300)
  })

  it("closes a realtime socket whose client never reads, instead of buffering its answers", async () => {
    const ws = new WebSocket(`${emu.url.replace("http", "ws")}/v1/realtime?model=gpt-realtime`, {
      headers: { authorization: `Bearer ${emu.apiKey}`, "openai-beta": "realtime=v1" }
    })
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve())
      ws.once("error", reject)
    })
    // Stop reading: the emulator's sends pile up in its buffer unless it bounds them.
    const raw = (ws as unknown as { _socket: { pause(): void; resume(): void } })._socket
    raw.pause()
    const text = "x".repeat(1024 * 1024)
    for (let i = 0; i < 64; i++)
      ws.send(
        JSON.stringify({
          type: "conversation.item.create",
          item: { type: "message", role: "user", content: [{ type: "input_text", text }] }
        })
      )
    const closed = new Promise<number>((resolve) => ws.on("close", (code) => resolve(code)))
    let received = 0
    ws.on("message", (data: Buffer) => (received += data.length))
    await new Promise((r) => setTimeout(r, 1_500))
    raw.resume()
    const code = await closed
    expect(code).toBe(1008)
    // 64 echoes of 1 MiB were asked for; the emulator stopped at its send-buffer bound (8 MiB) plus what the kernel held.
    expect(received).toBeLessThan(40 * 1024 * 1024)
  })
})
