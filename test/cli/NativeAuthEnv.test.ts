/**
 * `UMG_NATIVE_AUTH` in the CLI: how `umg chat` with a native-content model carries the key, as a
 * recording server sees the request, and a wrong value refused with exit 2 before anything is sent.
 */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { rmSync } from "node:fs"
import { afterAll, beforeAll, expect, it } from "vitest"
import { bundleUmg, runUmg } from "./RunUmg.js"

const key = "sk-native-auth-env-key"
const seen: Array<{ readonly url: string; readonly headers: IncomingHttpHeaders }> = []
let server: Server
let umg: string
let env: Record<string, string>

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? "", headers: req.headers })
    req.resume()
    // Refused, not retried: one request per run is enough to see how the key was sent.
    res.writeHead(400, { "content-type": "application/json" })
    res.end(JSON.stringify({ error: { type: "invalid_request_error", message: "recorded" } }))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  umg = await bundleUmg()
  env = {
    UMG_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    UMG_API_KEY: key,
    UMG_MAX_RETRIES: "0"
  }
}, 60_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  if (umg !== undefined) rmSync(umg, { force: true })
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await new Promise((resolve) => (server === undefined ? resolve(undefined) : server.close(resolve)))
})

/** The native-content request of one `umg chat` run with `UMG_NATIVE_AUTH` set to `value` (absent: unset). */
const nativeRequest = async (value: string | undefined) => {
  seen.length = 0
  const run = await runUmg(
    umg,
    ["chat", "-m", "zeta-2.5-pro", "hi"],
    value === undefined ? env : { ...env, UMG_NATIVE_AUTH: value }
  )
  expect(run.code, run.stderr).toBe(1)
  const request = seen.find((r) => r.url.includes("zeta-2.5-pro"))
  expect(request, JSON.stringify(seen.map((r) => r.url))).toBeDefined()
  return request!
}

it("sends the native-content key as UMG_NATIVE_AUTH says: bearer (the default), x-vendor-api-key or ?key=", async () => {
  const unset = await nativeRequest(undefined)
  expect(unset.headers.authorization).toBe(`Bearer ${key}`)
  const bearer = await nativeRequest("bearer")
  expect(bearer.headers.authorization).toBe(`Bearer ${key}`)
  const header = await nativeRequest("x-vendor-api-key")
  expect(header.headers["x-vendor-api-key"]).toBe(key)
  expect(header.headers.authorization).toBeUndefined()
  const query = await nativeRequest("query")
  expect(new URL(query.url, "http://h").searchParams.get("key")).toBe(key)
  expect(query.headers.authorization).toBeUndefined()
  expect(query.headers["x-vendor-api-key"]).toBeUndefined()
})

it("refuses a UMG_NATIVE_AUTH it does not know with exit 2, naming it and the allowed values, and sends nothing", async () => {
  seen.length = 0
  const run = await runUmg(umg, ["chat", "-m", "zeta-2.5-pro", "hi"], { ...env, UMG_NATIVE_AUTH: "basic" })
  expect(run.code).toBe(2)
  expect(run.stderr).toContain('UMG_NATIVE_AUTH: "basic" is not allowed; allowed: bearer, x-vendor-api-key, query')
  expect(run.stdout).toBe("")
  expect(seen).toEqual([])
})
