/**
 * The AI SDK chat example's server: a `node:http` handler for `POST /api/chat` that turns the page's
 * UI messages into model messages, streams them through umg's AI SDK provider with `streamText`, and
 * pipes the AI SDK's UI message stream protocol back; it also serves the page, bundled by esbuild.
 *
 * Run: `npx tsx examples/ai-chat/server.ts` with an emulator running (`npm run emulator -- --port 8787`),
 * or with `UMG_BASE_URL` / `UMG_API_KEY` set, and open the printed address.
 */
import {
  convertToModelMessages,
  pipeUIMessageStreamToResponse,
  streamText,
  toUIMessageStream,
  type ModelMessage,
  type UIMessage
} from "ai"
import { build } from "esbuild"
import { mkdir, readFile, writeFile } from "node:fs/promises"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"
import { createUmg, type UmgProvider } from "../../src/ai-sdk/index.js"

const here = fileURLToPath(new URL(".", import.meta.url))

/** The models the page offers: a messages-style, a chat, a responses and a native-content one. */
export const CHAT_MODELS = ["epsilon-sonnet-4-5-20250929", "gpt-4o", "gpt-5", "zeta-2.5-flash"] as const

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>umg · AI SDK chat</title>
    <script type="module" src="page.js"></script>
  </head>
  <body>
    <section id="chat" data-state="idle">
      <select id="model">${CHAT_MODELS.map((m) => `<option value="${m}">${m}</option>`).join("")}</select>
      <textarea id="prompt" rows="2">Tell me about paper boats.</textarea>
      <button id="send" type="button">Send</button>
      <button id="stop" type="button" disabled>Stop</button>
      <output id="reply" aria-live="polite"></output>
    </section>
  </body>
</html>
`

/** The bundled page: its folder, and the script's size minified and gzipped. */
export interface ChatPage {
  readonly dir: string
  readonly bytes: number
  readonly gzipBytes: number
}

/** Bundles `page.ts` for the browser (minified ESM) into `dir`, beside `index.html`. */
export const buildChatPage = async (dir: string): Promise<ChatPage> => {
  await mkdir(dir, { recursive: true })
  await build({
    entryPoints: [`${here}page.ts`],
    outfile: `${dir}/page.js`,
    bundle: true,
    format: "esm",
    platform: "browser",
    target: ["chrome120", "firefox120", "safari17"],
    minify: true,
    legalComments: "none",
    logLevel: "silent"
  })
  const script = await readFile(`${dir}/page.js`)
  await writeFile(`${dir}/index.html`, PAGE)
  return { dir, bytes: script.length, gzipBytes: gzipSync(script, { level: 9 }).length }
}

/** One `POST /api/chat` the server answered. */
export interface ChatExchange {
  readonly model: string
  /** The model messages `streamText` was given. */
  readonly messages: Array<ModelMessage>
  /** The type of every UI message chunk sent, in order. */
  readonly chunks: Array<string>
  /** Whether the page closed the response before its end (Stop). */
  closedEarly: boolean
  /** Settles when the response has ended or been closed. */
  readonly done: Promise<void>
}

const readBody = async (req: IncomingMessage): Promise<string> => {
  let text = ""
  for await (const chunk of req) text += (chunk as Buffer).toString("utf8")
  return text
}

/** Answers `POST /api/chat`: the AI SDK's UI message stream of a `streamText` through `umg`. */
const chat = async (umg: UmgProvider, req: IncomingMessage, res: ServerResponse, exchanges: Array<ChatExchange>) => {
  const body = JSON.parse(await readBody(req)) as { messages: Array<UIMessage>; model?: string }
  const model = body.model ?? CHAT_MODELS[0]
  // The page's Stop aborts its fetch, which closes this response: the model call is aborted with it.
  const abort = new AbortController()
  let ended: () => void = () => undefined
  const exchange: ChatExchange = {
    model,
    messages: await convertToModelMessages(body.messages),
    chunks: [],
    closedEarly: false,
    done: new Promise((resolve) => (ended = resolve))
  }
  exchanges.push(exchange)
  res.on("close", () => {
    if (!res.writableFinished) {
      exchange.closedEarly = true
      abort.abort()
    }
    ended()
  })
  const result = streamText({ model: umg(model), messages: exchange.messages, abortSignal: abort.signal })
  const chunks = toUIMessageStream({ stream: result.stream }).pipeThrough(
    new TransformStream({
      transform: (chunk, controller) => {
        exchange.chunks.push(chunk.type)
        controller.enqueue(chunk)
      }
    })
  )
  await pipeUIMessageStreamToResponse({ response: res, stream: chunks })
}

/** A running chat server: its address and every chat exchange it answered. */
export interface ChatServer {
  readonly url: string
  readonly server: Server
  readonly exchanges: Array<ChatExchange>
  readonly close: () => Promise<void>
}

/** Serves the page of `page.dir` and `POST /api/chat` on loopback (`port` 0 picks a free one). */
export const startChatServer = async (umg: UmgProvider, page: ChatPage, port = 0): Promise<ChatServer> => {
  const exchanges: Array<ChatExchange> = []
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://page.local").pathname
    const fail = (error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" })
      res.end(String(error))
    }
    if (req.method === "POST" && path === "/api/chat") return void chat(umg, req, res, exchanges).catch(fail)
    const file = path === "/" ? "index.html" : path === "/page.js" ? "page.js" : undefined
    if (file === undefined) return void res.writeHead(404).end()
    const type = file.endsWith(".js") ? "text/javascript" : "text/html"
    readFile(`${page.dir}/${file}`).then(
      (b) => res.writeHead(200, { "content-type": `${type}; charset=utf-8` }).end(b),
      fail
    )
  })
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    exchanges,
    close: () => {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    }
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const page = await buildChatPage(`${here}dist`)
  const umg = createUmg({
    baseURL: process.env.UMG_BASE_URL ?? "http://127.0.0.1:8787",
    apiKey: process.env.UMG_API_KEY ?? "umg-emulator-key"
  })
  const { url } = await startChatServer(umg, page, Number(process.env.PORT ?? "5174"))
  console.log(`page.js: ${page.bytes} B minified, ${page.gzipBytes} B gzipped; open ${url}/ (Ctrl-C stops)`)
}
