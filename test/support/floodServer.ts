// A hostile streaming peer built for real, shared by the stream bound and backpressure tests: a
// node:http server that answers with an SSE opening, then the same event again and again as fast as
// its socket takes it, forever; the two HTTP clients umg ships; and the two streaming calls flooded.
import type { IncomingMessage, ServerResponse } from "node:http"
import type { Socket } from "node:net"
import type { Layer } from "effect"
import { FetchHttpClient, type HttpClient } from "effect/http"
import type { GatewayService } from "../../src/adapters/Gateway.js"
import * as NodeHttpClient from "../../src/adapters/http/NodeHttpClient.js"
import type { ResultStream } from "../../src/adapters/sse/Consume.js"
import { blockStart, messageStart, textDelta } from "../fixtures/messagesFrames.js"
import { countingServer } from "./countingServer.js"

/**
 * Starts the flooding server (closed by `closeCountingServers`): its URL and port, the bytes its
 * sockets wrote, the requests it took, and a promise of every one of their connections closed.
 */
export const floodServer = async (opening: string, event: string) => {
  const sockets: Array<Socket> = []
  const closed: Array<Promise<void>> = []
  const server = await countingServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume()
    closed.push(new Promise((resolve) => req.socket.once("close", () => resolve())))
    req.on("end", () => {
      sockets.push(req.socket)
      res.writeHead(200, { "content-type": "text/event-stream" })
      res.write(opening)
      const pump = (): void => {
        while (!res.destroyed && res.write(event));
        if (!res.destroyed) res.once("drain", pump)
      }
      pump()
    })
  })
  return {
    url: server.url,
    port: Number(new URL(server.url).port),
    written: () => sockets.reduce((n, s) => n + s.bytesWritten, 0),
    requests: () => closed.length,
    closed: () => Promise.all(closed)
  }
}

/** The HTTP clients umg ships, each a layer a gateway is given. */
export const httpClients: ReadonlyArray<{ readonly name: string; readonly layer: Layer.Layer<HttpClient.HttpClient> }> =
  [
    { name: "umg's Node client", layer: NodeHttpClient.layer },
    { name: "FetchHttpClient", layer: FetchHttpClient.layer }
  ]

/** A streaming call flooded: the answer's opening, the event repeated (carrying `text`), the call. */
export interface FloodedCall {
  readonly name: string
  readonly opening: string
  readonly event: string
  readonly stream: (g: GatewayService) => ResultStream<unknown, unknown, unknown>
}

/** `messages.stream` and `chat.stream`, each flooded with events of `text`. */
export const floodedCalls = (text: string): ReadonlyArray<FloodedCall> => [
  {
    name: "messages.stream",
    opening: messageStart + blockStart,
    event: textDelta(text),
    stream: (g) =>
      g.messages.stream({
        model: "epsilon-sonnet-4-5-20250929",
        max_tokens: 64,
        messages: [{ role: "user", content: "Hi" }]
      })
  },
  {
    name: "chat.stream",
    opening: "",
    event: `data: ${JSON.stringify({
      id: "c",
      object: "chat.completion.chunk",
      created: 1,
      model: "gpt-4o",
      choices: [{ index: 0, delta: { content: text }, finish_reason: null }]
    })}\n\n`,
    stream: (g) => g.chat.stream({ model: "gpt-4o", messages: [{ role: "user", content: "Hi" }] })
  }
]
