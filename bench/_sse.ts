import { spawn } from "node:child_process"
import * as http from "node:http"
import { Effect, Stream } from "effect"
import { createParser } from "eventsource-parser"
import { Gateway } from "../src/adapters/Gateway.js"
const server = spawn(process.execPath, ["/tmp/exp/sse-server.mjs"], { stdio: ["ignore", "pipe", "inherit"] })
const port: number = await new Promise((r) => server.stdout.once("data", (d: Buffer) => r(Number(d.toString().trim()))))
const mode = process.argv[3] ?? "big"
const base = `http://127.0.0.1:${port}${mode === "slow" ? "/slow" : ""}`
const N = Number(process.env.N ?? (mode === "slow" ? 3 : 40))
const body = { model: "epsilon-sonnet-4-5-20250929", max_tokens: 64, messages: [{ role: "user" as const, content: "hi" }] }
let sink = 0
const agent = new http.Agent({ keepAlive: true })
const contenders: Record<string, () => Promise<(() => Promise<unknown>)>> = {
  fetch: async () => async () => {
    const r = await fetch(`${base}/v1/messages`, { method: "POST", body: JSON.stringify({ ...body, stream: true }), headers: { "content-type": "application/json" } })
    const p = createParser({ onEvent: (e) => { const j = JSON.parse(e.data); sink += j.delta?.text?.length ?? 1 } })
    const d = new TextDecoder()
    for await (const c of r.body!) p.feed(d.decode(c, { stream: true }))
  },
  nodehttp: async () => () => new Promise<void>((res) => {
    const req = http.request(`${base}/v1/messages`, { method: "POST", agent, headers: { "content-type": "application/json" } }, (r) => {
      const p = createParser({ onEvent: (e) => { const j = JSON.parse(e.data); sink += j.delta?.text?.length ?? 1 } })
      r.setEncoding("utf8"); r.on("data", (c: string) => p.feed(c)); r.on("end", () => res())
    }); req.end(JSON.stringify({ ...body, stream: true }))
  }),
  sdk: async () => { const { default: Anthropic } = await import("@anthropic-ai/sdk"); const c = new Anthropic({ apiKey: "k", baseURL: base, maxRetries: 0 }); return async () => { const s = await c.messages.create({ ...body, stream: true }); for await (const e of s) sink += (e as any).delta?.text?.length ?? 1 } },
  umg: async () => { const g = await Effect.runPromise(Effect.provide(Gateway, Gateway.layer({ baseUrl: base, apiKey: "k", maxRetries: 0 }))); return () => Effect.runPromise(Stream.runForEach(g.messages.stream(body), (e) => Effect.sync(() => { sink += (e as any).delta?.text?.length ?? 1 }))) },
}
const which = process.argv[2]!
const once = await contenders[which]!()
for (let i = 0; i < (mode === "slow" ? 1 : 10); i++) await once()
const inspector = await import("node:inspector/promises")
const session = new inspector.Session(); session.connect()
if (process.env.PROF) { await session.post("Profiler.enable"); await session.post("Profiler.start") }
const c0 = process.cpuUsage()
for (let i = 0; i < N; i++) await once()
const c = process.cpuUsage(c0)
if (process.env.PROF) { const { profile } = await session.post("Profiler.stop"); (await import("node:fs")).writeFileSync(process.env.PROF, JSON.stringify(profile)) }
console.log(which, mode, ((c.user + c.system) / N / 2006).toFixed(2), "µs/event")
server.kill()
