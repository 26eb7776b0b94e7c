/**
 * The AI SDK chat example (examples/ai-chat) driven in Chromium: the page's `AbstractChat` +
 * `DefaultChatTransport` post to a `node:http` `/api/chat` that streams through umg's AI SDK provider
 * against the emulator, and the reply is rendered as the UI message stream arrives. Checked for a
 * messages-style, a chat, a responses and a native-content model; Stop closes the request down to
 * the gateway connection.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { streamText } from "ai"
import { chromium, type Browser, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildChatPage, startChatServer, type ChatPage, type ChatServer } from "../../examples/ai-chat/server.js"
import { createUmg, type UmgProvider } from "../../src/ai-sdk/index.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { startCountingProxy, type CountingProxy } from "../ai-sdk/CountingProxy.js"
import { findOrInstallChromium } from "../support/chromium.js"

// The same flags as Browser.test.ts: without them Chromium's own connections stall the launch here.
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]
const BROWSER_TEST_MS = 90_000

const FAMILIES = [
  { name: "messages-style", model: "epsilon-sonnet-4-5-20250929", route: "messages" },
  { name: "chat", model: "gpt-4o", route: "chat" },
  { name: "responses", model: "gpt-5", route: "responses" },
  { name: "native content", model: "zeta-2.5-flash", route: "native.stream" }
] as const

describe("the AI SDK chat example in Chromium", () => {
  let dir: string
  let page: ChatPage
  let emulator: Emulator
  let proxy: CountingProxy
  let umg: UmgProvider
  let server: ChatServer
  let browser: Browser | undefined
  const pageErrors: Array<string> = []
  const releases: Array<() => Promise<unknown>> = []

  beforeAll(async () => {
    const executablePath = findOrInstallChromium()
    dir = await mkdtemp(join(tmpdir(), "umg-ai-chat-"))
    releases.push(() => rm(dir, { recursive: true, force: true }))
    page = await buildChatPage(dir)
    // 60 words at 15 ms a token: a reply streams for about a second, long enough to watch and to stop.
    emulator = await startEmulator({ fast: true, text: { tokenDelayMs: 15, replyWords: 60 } })
    releases.push(() => emulator.close())
    // Between umg and the emulator: sees a gateway answer cut by its client (the provider's abort).
    proxy = await startCountingProxy(emulator.url)
    releases.push(() => proxy.close())
    umg = createUmg({ baseURL: proxy.url, apiKey: emulator.apiKey, maxRetries: 0 })
    releases.push(() => umg.dispose())
    server = await startChatServer(umg, page)
    releases.push(() => server.close())
    const launched = await chromium.launch({ executablePath, args: CHROMIUM_ARGS })
    browser = launched
    releases.push(() => launched.close())
  }, 900_000)

  afterAll(async () => {
    for (const release of releases.reverse()) await release()
  })

  const open = async (): Promise<Page> => {
    if (browser === undefined) throw new Error("Chromium did not start")
    const tab = await browser.newPage()
    tab.on("pageerror", (error) => pageErrors.push(error.message))
    await tab.goto(`${server.url}/`)
    await tab.waitForSelector("#chat[data-ready='true']")
    return tab
  }
  const reply = (tab: Page): Promise<string> => tab.locator("#reply").evaluate((el) => el.textContent)
  const lengths = (tab: Page): Promise<Array<number>> =>
    tab.evaluate(() => (window as unknown as { chatLengths: Array<number> }).chatLengths.slice())

  it("bundles the page for the browser, small", () => {
    console.log(`ai-chat page.js: ${page.bytes} B minified, ${page.gzipBytes} B min+gzip`)
    expect(page.gzipBytes).toBeGreaterThan(0)
    // Most of it is `ai`'s client (its UI message chunks are checked with zod): about 56 KB min+gzip.
    expect(page.gzipBytes).toBeLessThan(64_000)
  })

  it.each(FAMILIES)(
    "streams a $name reply into the page, the same text as streamText gives on the server",
    async ({ model, route }) => {
      const tab = await open()
      const exchanges = server.exchanges.length
      const before = emulator.counters.get(route)
      await tab.selectOption("#model", model)
      await tab.fill("#prompt", `Tell me about paper boats (${model}).`)
      await tab.click("#send")
      await tab.waitForSelector("#chat[data-state='done']", { timeout: 20_000 })

      const text = await reply(tab)
      const seen = await lengths(tab)
      const exchange = server.exchanges[exchanges]
      console.log(`${model}: rendered lengths ${seen.join(", ")}`)
      expect(server.exchanges.length).toBe(exchanges + 1)
      expect(exchange?.model).toBe(model)
      expect(emulator.counters.get(route)).toBe(before + 1)
      // Rendered as it streamed: several updates, each longer than the one before, ending at the whole text.
      expect(seen.length).toBeGreaterThanOrEqual(5)
      expect(seen).toEqual([...seen].sort((a, b) => a - b))
      expect(new Set(seen).size).toBe(seen.length)
      expect(seen.at(-1)).toBe(text.length)
      // The UI message stream protocol carried it in many text deltas, and finished.
      const chunks = exchange?.chunks ?? []
      expect(chunks.filter((c) => c === "text-delta").length).toBeGreaterThanOrEqual(10)
      expect(chunks.slice(0, 1)).toEqual(["start"])
      expect(chunks.at(-1)).toBe("finish")
      expect(exchange?.closedEarly).toBe(false)
      // The same request straight through the provider gives the same text (the emulator is deterministic).
      const direct = streamText({ model: umg(model), messages: exchange?.messages ?? [] })
      expect(text).toMatch(/^\S+( \S+){9,}$/)
      expect(text).toBe(await direct.text)
      expect(pageErrors).toEqual([])
      await tab.close()
    },
    BROWSER_TEST_MS
  )

  it(
    "Stop mid-stream closes the page's request and the gateway connection behind it",
    async () => {
      const tab = await open()
      const exchanges = server.exchanges.length
      const cut = proxy.nextCut()
      await tab.selectOption("#model", "epsilon-sonnet-4-5-20250929")
      await tab.fill("#prompt", "Tell me a long story about paper boats.")
      await tab.click("#send")
      // Several pieces have arrived and the reply is still streaming.
      await tab.waitForFunction(() => (window as unknown as { chatLengths: Array<number> }).chatLengths.length >= 3)
      expect(await tab.getAttribute("#chat", "data-state")).toBe("streaming")
      await tab.click("#stop")
      await tab.waitForSelector("#chat[data-state='stopped']")

      const exchange = server.exchanges[exchanges]
      // The page's request was closed before its end, and umg closed its gateway request in turn.
      await exchange?.done
      expect(exchange?.closedEarly).toBe(true)
      await cut
      expect(proxy.cut()).toBeGreaterThanOrEqual(1)
      expect(exchange?.chunks).not.toContain("finish")
      // Nothing more is rendered after Stop, and what was rendered is a part of the whole reply.
      const stopped = await reply(tab)
      await tab.waitForTimeout(300)
      expect(await reply(tab)).toBe(stopped)
      const whole = await streamText({ model: umg("epsilon-sonnet-4-5-20250929"), messages: exchange?.messages ?? [] })
        .text
      expect(stopped.length).toBeGreaterThan(0)
      expect(stopped.length).toBeLessThan(whole.length)
      expect(whole.startsWith(stopped)).toBe(true)
      expect(pageErrors).toEqual([])
      await tab.close()
    },
    BROWSER_TEST_MS
  )
})
