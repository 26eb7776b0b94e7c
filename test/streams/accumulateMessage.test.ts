import { Result } from "effect"
import { from, lastValueFrom, toArray } from "rxjs"
import { TestScheduler } from "rxjs/testing"
import { describe, expect, it } from "vitest"
import { chatAccumulator } from "../../src/core/text/chat/ChatAccumulator.js"
import { IncompleteStream } from "../../src/core/errors/GatewayError.js"
import { decodeMessagesEventEither } from "../../src/core/text/messages/MessagesEvents.js"
import { accumulateMessage } from "../../src/streams/accumulateMessage.js"
import { record } from "../fixtures/TextStreams.js"
import { chatText, messagesText, messagesThinkingTool, native, responsesText } from "./tokenStreams.js"

const failure = (p: Promise<unknown>) =>
  p.then(
    () => expect.fail("expected an error"),
    (e: unknown) => e as IncompleteStream
  )

describe("accumulateMessage", () => {
  it("emits one messages snapshot per event, ending with the whole message", async () => {
    const snapshots = await lastValueFrom(from(messagesThinkingTool).pipe(accumulateMessage(), toArray()))
    expect(snapshots).toHaveLength(messagesThinkingTool.length)
    const last = snapshots.at(-1)!
    expect(last.phase).toBe("stopped")
    expect(last.message?.content).toEqual([
      { type: "thinking", thinking: "Need weather.", signature: "c2ln" },
      { type: "tool_use", id: "toolu_01", name: "get_weather", input: { city: "Paris" } }
    ])
    expect(last.message?.stop_reason).toBe("tool_use")
  })

  it("shows the text growing in successive messages snapshots", async () => {
    const snapshots = await lastValueFrom(from(messagesText).pipe(accumulateMessage(), toArray()))
    const texts = snapshots.map((s) => {
      const block = s.message?.content[0]
      return block?.type === "text" ? block.text : undefined
    })
    expect(texts.filter((t) => t !== undefined).at(-1)).toBe("Hello, world")
    expect(new Set(texts).size).toBeGreaterThan(2)
  })

  it("folds native chunks, chat chunks and responses events with their own accumulators", async () => {
    const n = await lastValueFrom(from(native).pipe(accumulateMessage(), toArray()))
    expect(n.at(-1)?.candidates?.[0]?.finishReason).toBe("STOP")
    const c = await lastValueFrom(from(chatText).pipe(accumulateMessage(), toArray()))
    expect(c.at(-1)?.completion?.choices[0]?.message.content).toBe("Hello there")
    const r = await lastValueFrom(from(responsesText).pipe(accumulateMessage(), toArray()))
    expect(r.at(-1)?.phase).toBe("completed")
  })

  it("takes the accumulator given rather than guessing the family", async () => {
    const c = await lastValueFrom(from(chatText).pipe(accumulateMessage(chatAccumulator), toArray()))
    expect(c.at(-1)?.phase).toBe("done")
  })

  it("errors with IncompleteStream (ended-early) carrying the partial snapshot when the stream completes before message_stop", async () => {
    const error = await failure(lastValueFrom(from(messagesText.slice(0, -1)).pipe(accumulateMessage())))
    expect(error).toBeInstanceOf(IncompleteStream)
    expect(error.reason).toBe("ended-early")
    expect((error.partial as { phase: string }).phase).toBe("streaming")
  })

  it("errors with the fold's IncompleteStream at an error event, after the snapshots before it", () => {
    const overloaded = Result.getOrThrow(
      decodeMessagesEventEither(record({ type: "error", error: { type: "overloaded_error", message: "busy" } }))
    )
    new TestScheduler((a, b) => expect(a).toEqual(b)).run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold("abc|", { a: messagesText[0]!, b: messagesText[1]!, c: overloaded })
      const phases: Array<string> = []
      const observed = source.pipe(accumulateMessage())
      observed.subscribe({ next: (s) => phases.push(s.phase), error: () => undefined })
      expectObservable(observed).toBe(
        "ab#",
        { a: expect.objectContaining({ phase: "streaming" }), b: expect.objectContaining({ phase: "streaming" }) },
        expect.objectContaining({ _tag: "IncompleteStream", reason: "error-event", errorType: "overloaded_error" })
      )
      // The fold error unsubscribes the source at once.
      expectSubscriptions(source.subscriptions).toBe(["^-!", "^-!"])
    })
  })

  it("passes a source error through as it is", () => {
    new TestScheduler((a, b) => expect(a).toEqual(b)).run(({ cold, expectObservable }) => {
      const error = new Error("transport")
      expectObservable(cold("a#", { a: chatText[0]! }, error).pipe(accumulateMessage())).toBe(
        "a#",
        { a: expect.anything() },
        error
      )
    })
  })

  it("errors with ended-early on an empty stream", async () => {
    const error = await failure(lastValueFrom(from([]).pipe(accumulateMessage())))
    expect(error.reason).toBe("ended-early")
  })
})
