// A fake gateway for bench/streams-many.bench.ts, in its own process: every POST /v1/messages answers a
// messages-style SSE stream that sends its opening events and then a text delta every 500 ms, forever.
// It counts open connections and prints them on request (GET /stats), so the client can see when every
// stream's socket is really closed.
import { createServer } from "node:http"

let open = 0
const server = createServer((req, res) => {
  if (req.method === "GET" && req.url === "/stats") {
    res.writeHead(200, { "content-type": "application/json" })
    return void res.end(JSON.stringify({ open }))
  }
  open++
  res.on("close", () => open--)
  req.resume()
  res.writeHead(200, { "content-type": "text/event-stream", "request-id": "req_bench" })
  const send = (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)
  send("message_start", {
    type: "message_start",
    message: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      content: [],
      model: "epsilon-sonnet-4-5-20250929",
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 3, output_tokens: 1 }
    }
  })
  send("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } })
  const timer = setInterval(
    () =>
      send("content_block_delta", {
        type: "content_block_delta",
        index: 0,
        delta: { type: "text_delta", text: "tick " }
      }),
    500
  )
  res.on("close", () => clearInterval(timer))
})
server.keepAliveTimeout = 60_000
server.maxConnections = 30_000
server.listen(0, "127.0.0.1", () => process.stdout.write(`${server.address().port}\n`))
