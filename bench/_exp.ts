import { spawn } from "node:child_process"
import http from "node:http"
import { Effect } from "effect"
import { Gateway } from "../src/adapters/Gateway.js"
import { FetchHttpClient } from "@effect/platform"
const server = spawn(process.execPath, ["/tmp/exp/server.mjs"], { stdio: ["ignore", "pipe", "inherit"] })
const port: number = await new Promise((r) => server.stdout.once("data", (d: Buffer) => r(Number(d.toString().trim()))))
const base = `http://127.0.0.1:${port}`
const N = Number(process.env.N ?? 2000)
const agent = new http.Agent({ keepAlive: true })
const contenders: Record<string, () => Promise<(() => Promise<unknown>)>> = {
  fetch: async () => async () => (await fetch(`${base}/v1/models`, { headers: { authorization: "Bearer k" } })).json(),
  nodehttp: async () => () => new Promise((res, rej) => { http.get(`${base}/v1/models`, { agent, headers: { authorization: "Bearer k" } }, (r) => { const parts: Buffer[] = []; r.on("data", (c) => parts.push(c)); r.on("end", () => res(JSON.parse(Buffer.concat(parts).toString()))) }).on("error", rej) }),
  umgFetch: async () => { const rt = await Effect.runPromise(Effect.provide(Gateway, Gateway.layer({ baseUrl: base, apiKey: "k", httpClient: FetchHttpClient.layer }))); return () => Effect.runPromise(rt.models.list({ refresh: true })) },
  umg: async () => { const rt = await Effect.runPromise(Effect.provide(Gateway, Gateway.layer({ baseUrl: base, apiKey: "k" }))); return () => Effect.runPromise(rt.models.list({ refresh: true })) },
}
const which = process.argv[2]!
const once = await contenders[which]!()
for (let i = 0; i < 300; i++) await once()
const inspector = await import("node:inspector/promises")
const session = new inspector.Session(); session.connect()
if (process.env.PROF) { await session.post("Profiler.enable"); await session.post("Profiler.start") }
const c0 = process.cpuUsage()
for (let i = 0; i < N; i++) await once()
const c = process.cpuUsage(c0)
if (process.env.PROF) { const { profile } = await session.post("Profiler.stop"); (await import("node:fs")).writeFileSync(process.env.PROF, JSON.stringify(profile)) }
console.log(which, ((c.user + c.system) / N).toFixed(1), "µs/req", "connections", await (await fetch(`${base}/stats`)).text())
server.kill()
