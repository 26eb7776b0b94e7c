import { decodeMessagesEventEither } from "../src/core/text/messages/MessagesEvents.js"
import { messagesAccumulator } from "../src/core/text/messages/MessagesAccumulator.js"
import { Either } from "effect"
const rec = { event: "content_block_delta", id: "", data: JSON.stringify({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text: "token " } }) }
const N = 200000
const time = (name: string, f: () => void) => { for (let i = 0; i < 20000; i++) f(); const c0 = process.cpuUsage(); for (let i = 0; i < N; i++) f(); const c = process.cpuUsage(c0); console.log(name, ((c.user + c.system) / N).toFixed(3), "µs") }
time("JSON.parse", () => JSON.parse(rec.data))
time("decode", () => decodeMessagesEventEither(rec))
let snap: any = messagesAccumulator.initial
const start = decodeMessagesEventEither({ event: "message_start", id: "", data: JSON.stringify({ type: "message_start", message: { id: "m", type: "message", role: "assistant", model: "epsilon-sonnet-4-5-20250929", content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } }) })
snap = (messagesAccumulator.step(snap, (start as any).right) as any).right
snap = (messagesAccumulator.step(snap, (decodeMessagesEventEither({ event: "content_block_start", id: "", data: JSON.stringify({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }) }) as any).right) as any).right
const ev = (decodeMessagesEventEither(rec) as any).right
time("accumulate", () => { const r = messagesAccumulator.step(snap, ev); if (Either.isRight(r)) snap = snap })
import { Schema } from "effect"
import { MessagesContentBlockDelta } from "../src/core/text/messages/MessagesEvents.js"
const d = Schema.decodeUnknownEither(MessagesContentBlockDelta)
const is = Schema.is(MessagesContentBlockDelta)
const obj = JSON.parse(rec.data)
time("schema decode", () => d(obj))
time("schema is", () => is(obj))
const dExact = Schema.decodeUnknownEither(MessagesContentBlockDelta, { onExcessProperty: "preserve" })
time("schema decode preserve", () => dExact(obj))
