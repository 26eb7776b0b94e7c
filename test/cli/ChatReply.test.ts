/**
 * `umg chat` against replies a gateway should not send: one past the config's answer bound (refused,
 * in plain mode and with `--json`, as a `TransportError` of reason `too-large` naming the bound, not
 * held until V8's largest string), and one cut mid-line (the partial line is ended before the report).
 * Also which families take `--thinking`, against the emulator.
 */
import { rmSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Effect } from "effect"
import { prepareChat } from "../../src/cli/commands/chat.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { type Loopback, listenLoopback } from "../fixtures/loopback.js"
import { bundleUmg, runUmg } from "./RunUmg.js"

const chunk = (content: string): string =>
  `data: ${JSON.stringify({
    id: "chatcmpl-hostile",
    object: "chat.completion.chunk",
    created: 1,
    model: "gpt-4o-mini",
    choices: [{ index: 0, delta: { content }, logprobs: null, finish_reason: null }]
  })}\n\n`

const finish = `data: ${JSON.stringify({
  id: "chatcmpl-hostile",
  object: "chat.completion.chunk",
  created: 1,
  model: "gpt-4o-mini",
  choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: "stop" }]
})}\n\ndata: [DONE]\n\n`

/** The default `limits.maxResponseBytes` (32 MiB). */
const bound = 32 * 1024 * 1024

/**
 * A chat gateway: `/huge` streams 40 MiB of text (1 MiB a token) and ends properly; `/cut` sends
 * `hello` and resets the connection.
 */
const hostileGateway = (): Promise<Loopback> =>
  listenLoopback((req, res) => {
    req.resume()
    res.writeHead(200, { "content-type": "text/event-stream" })
    if ((req.url ?? "").startsWith("/cut")) {
      res.write(chunk("hello"), () => setTimeout(() => res.destroy(), 50))
      return
    }
    const token = "x".repeat(1024 * 1024)
    let sent = 0
    const more = (): void => {
      while (sent < 40) {
        sent++
        if (!res.write(chunk(token))) return void res.once("drain", more)
      }
      res.end(finish)
    }
    more()
  })

let umg: string
let gateway: Loopback
let emulator: Emulator

beforeAll(async () => {
  ;[umg, gateway, emulator] = await Promise.all([bundleUmg(), hostileGateway(), startEmulator({ fast: true })])
}, 60_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await gateway?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await emulator?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  if (umg !== undefined) rmSync(umg, { force: true })
})

const at = (path: string) => ({ UMG_BASE_URL: `${gateway.url}${path}`, UMG_API_KEY: "sk-hostile-test-key" })

describe("umg chat and a reply past the answer bound", () => {
  it("stops with a TransportError too-large naming the bound, with --json and without, instead of holding it", async () => {
    const [json, plain] = await Promise.all([
      runUmg(umg, ["chat", "-m", "gpt-4o-mini", "--json", "hi"], at("/huge")),
      runUmg(umg, ["chat", "-m", "gpt-4o-mini", "hi"], at("/huge"))
    ])
    expect(json.code).toBe(1)
    expect(json.stdout).toBe("")
    expect(JSON.parse(json.stderr.trim()) as unknown).toMatchObject({
      error: { type: "TransportError", message: expect.stringContaining(`bound of ${bound} bytes`) as unknown }
    })
    expect(plain.code).toBe(1)
    expect(plain.stderr).toContain(`TransportError`)
    expect(plain.stderr).toContain(`bound of ${bound} bytes`)
    // What came within the bound (32 tokens of 1 MiB) was streamed whole to the pipe, and its line ended.
    expect(plain.stdout.length).toBe(bound + 1)
    expect(plain.stdout.endsWith("x\n")).toBe(true)
  }, 60_000)
})

describe("umg chat and a reply cut mid-line", () => {
  it("ends the partial line on stdout, so the report does not follow the text on its line", async () => {
    const run = await runUmg(umg, ["chat", "-m", "gpt-4o-mini", "hi"], at("/cut"))
    expect(run.code).toBe(1)
    expect(run.stdout).toBe("hello\n")
    expect(run.stderr).toContain("IncompleteStream")
  })
})

describe("umg chat --thinking", () => {
  const env = () => ({ UMG_BASE_URL: emulator.url, UMG_API_KEY: emulator.apiKey })
  const total = () => Object.values(emulator.counters.snapshot()).reduce((a, b) => a + b, 0)

  it("sends a 3-class zeta model the budget as its thinkingLevel", async () => {
    const [high, low] = await Promise.all([
      runUmg(umg, ["chat", "-m", "zeta-3-pro-preview", "--thinking", "8192", "--json", "hi"], env()),
      runUmg(umg, ["chat", "-m", "zeta-3-pro-preview", "--thinking", "1024", "--json", "hi"], env())
    ])
    expect(high.code, high.stderr).toBe(0)
    expect(low.code, low.stderr).toBe(0)
    expect(JSON.parse(high.stdout) as unknown).toMatchObject({ family: "native", stop: "STOP" })
  })

  it("maps a budget to LOW below 8192 and HIGH from 8192 on the 3 class, as to the responses effort", () => {
    const level = (thinking: number) => {
      const prepared = Effect.runSync(prepareChat({ model: "zeta-3-pro-preview", prompt: "hi", thinking }))
      return prepared.family === "native" ? prepared.request.generationConfig?.thinkingConfig : undefined
    }
    expect(level(1024)).toMatchObject({ thinkingLevel: "LOW" })
    expect(level(4096)).toMatchObject({ thinkingLevel: "LOW" })
    expect(level(8192)).toMatchObject({ thinkingLevel: "HIGH" })
    expect(level(8192)).not.toHaveProperty("thinkingBudget")
  })

  it("refuses it for a chat-completions model, exit 2 naming --thinking and the models that take it, nothing sent", async () => {
    const before = total()
    const run = await runUmg(umg, ["chat", "-m", "gpt-4o-mini", "--thinking", "2048", "hi"], env())
    expect(run.code).toBe(2)
    expect(run.stdout).toBe("")
    expect(run.stderr).toContain("field --thinking")
    expect(run.stderr).toContain("GPT-5/o-series")
    expect(total()).toBe(before)
  })

  it("says how each family takes the budget in its help", async () => {
    const run = await runUmg(umg, ["chat", "--help"])
    expect(run.stdout.replace(/\s+/g, " ")).toContain("zeta 3 as thinkingLevel LOW, HIGH from 8192")
  })
})
