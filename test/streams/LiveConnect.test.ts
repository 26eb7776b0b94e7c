// `live.connect$`'s `setup`: given as the second argument it is sent whether the first is a model id or
// an options object; given both ways it is refused (nothing sent) rather than one of them dropped.
import type { AddressInfo } from "node:net"
import { lastValueFrom } from "rxjs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { WebSocketServer } from "ws"
import { createGateway, type RxGateway } from "../../src/streams/index.js"

const MODEL = "zeta-live-2.5-flash-native-audio"
let server: WebSocketServer
let gw: RxGateway
/** The `setup` message of each connection, in order. */
const setups: Array<Record<string, unknown>> = []
let connections = 0

beforeAll(async () => {
  server = new WebSocketServer({ port: 0, host: "127.0.0.1" })
  server.on("connection", (ws) => {
    connections++
    ws.once("message", (data) => {
      setups.push((JSON.parse(String(data)) as { setup: Record<string, unknown> }).setup)
      ws.send(JSON.stringify({ setupComplete: {} }))
    })
  })
  await new Promise<void>((r) => server.once("listening", () => r()))
  gw = createGateway({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, apiKey: "k-live-test" })
})

afterAll(async () => {
  await gw.dispose()
  for (const c of server.clients) c.terminate()
  await new Promise<void>((r) => server.close(() => r()))
})

/** Subscribes, waits until the session is open (the server confirmed its setup), then unsubscribes. */
const openOnce = (session$: ReturnType<RxGateway["live"]["connect$"]>): Promise<void> =>
  new Promise((resolve, reject) => {
    const subscription = session$.subscribe({
      next: (session) =>
        session.state$.subscribe((state) => {
          if (state.status !== "open") return
          resolve()
          setTimeout(() => subscription.unsubscribe(), 0)
        }),
      error: reject
    })
  })

describe("live.connect$ setup", () => {
  it.each([
    ["a model id", MODEL],
    ["an options object", { model: MODEL }]
  ] as const)("sends the second argument's setup with %s", async (_, options) => {
    const generationConfig = { responseModalities: ["TEXT"] as const }
    const before = setups.length
    await openOnce(gw.live.connect$(options, { generationConfig }))
    expect(setups).toHaveLength(before + 1)
    expect(setups.at(-1)).toMatchObject({ generationConfig })
  })

  it("sends options.setup when no second argument is given", async () => {
    const before = setups.length
    await openOnce(gw.live.connect$({ model: MODEL, setup: { systemInstruction: { parts: [{ text: "Be brief." }] } } }))
    expect(setups).toHaveLength(before + 1)
    expect(setups.at(-1)).toMatchObject({ systemInstruction: { parts: [{ text: "Be brief." }] } })
  })

  it("refuses setup given both as options.setup and as the second argument, naming both, and connects nothing", async () => {
    const before = connections
    const error = await lastValueFrom(
      gw.live.connect$(
        { model: MODEL, setup: { generationConfig: { responseModalities: ["TEXT"] } } },
        { generationConfig: { responseModalities: ["AUDIO"] } }
      )
    ).catch((e: unknown) => e)
    expect(error).toMatchObject({ _tag: "InvalidRequest", field: "setup", rule: "conflict" })
    expect((error as Error).message).toContain("options.setup")
    expect((error as Error).message).toContain("second argument")
    expect(connections).toBe(before)
  })
})
