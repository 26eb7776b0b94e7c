// A loopback native-content (zeta) server for the provider tests of thought signatures: it answers
// every `:generateContent` with one JSON answer and every `:streamGenerateContent` with SSE chunks,
// a thinking model's turn whose reasoning and text parts carry a `thoughtSignature` (the emulator
// signs only function calls), and keeps each request's body to check what the next turn sends back.
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, beforeEach } from "vitest"

/** The model the fixture answers as (any zeta id routes to the native family). */
export const signedModel = "zeta-3-pro-preview"

/** The signature of the answer's reasoning part. */
export const reasoningSignature = "c2lnLXJlYXNvbmluZw=="
/** The signature of the answer's text part. */
export const textSignature = "c2lnLXRleHQ="

/** The answer's reasoning and text, whole. */
export const reasoningText = "Let me think."
export const answerText = "The sea is blue."

/** The model turn the next request must send back: each part with its signature. */
export const signedTurn = {
  role: "model",
  parts: [
    { text: reasoningText, thought: true, thoughtSignature: reasoningSignature },
    { text: answerText, thoughtSignature: textSignature }
  ]
}

const usageMetadata = { promptTokenCount: 5, candidatesTokenCount: 4, thoughtsTokenCount: 3, totalTokenCount: 12 }

const answer = (parts: ReadonlyArray<object>, finishReason?: string) => ({
  candidates: [
    { index: 0, content: { role: "model", parts }, ...(finishReason === undefined ? {} : { finishReason }) }
  ],
  usageMetadata,
  modelVersion: signedModel,
  responseId: "resp-signed"
})

/**
 * The streamed turn: the reasoning's signature on its second chunk, the text's on its first chunk (a
 * chunk of one text part, which a reader may take as text only), then text without one and an empty
 * last part that only ends the turn.
 */
const streamChunks = [
  answer([{ text: "Let me ", thought: true }]),
  answer([{ text: "think.", thought: true, thoughtSignature: reasoningSignature }]),
  answer([{ text: "The sea ", thoughtSignature: textSignature }]),
  answer([{ text: "is blue." }]),
  answer([{ text: "" }], "STOP")
]

/** A running server: its URL and the bodies of the requests it answered, in order. */
export interface SignedNative {
  url: string
  bodies: Array<Record<string, unknown>>
}

/**
 * Registers the fixture's hooks in the calling test file: the server is started once for the file,
 * its bodies cleared before each test, and closed after the last.
 */
export const signedNative = (): SignedNative => {
  const env = { url: "", bodies: [] } as SignedNative
  let server: Server
  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = ""
      req.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")))
      req.on("end", () => {
        env.bodies.push(JSON.parse(body) as Record<string, unknown>)
        if ((req.url ?? "").includes(":streamGenerateContent")) {
          res.writeHead(200, { "content-type": "text/event-stream" })
          res.end(streamChunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join(""))
          return
        }
        res.writeHead(200, { "content-type": "application/json" })
        res.end(
          JSON.stringify(
            answer(
              [
                { text: reasoningText, thought: true, thoughtSignature: reasoningSignature },
                { text: answerText, thoughtSignature: textSignature }
              ],
              "STOP"
            )
          )
        )
      })
    })
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
    env.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise<void>((r) => server.close(() => r()))
  })
  beforeEach(() => {
    env.bodies.splice(0)
  })
  return env
}
