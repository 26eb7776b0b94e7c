import { firstValueFrom, from, lastValueFrom, take, toArray } from "rxjs"
import { TestScheduler } from "rxjs/testing"
import { describe, expect, it } from "vitest"
import { textDeltas } from "../../src/streams/textDeltas.js"
import { thinkingDeltas } from "../../src/streams/thinkingDeltas.js"
import type { TokenEvent } from "../../src/streams/TokenEvent.js"
import {
  chatText,
  messagesText,
  messagesThinkingTool,
  native,
  responsesReasoningTool,
  responsesText
} from "./tokenStreams.js"

const texts = (events: ReadonlyArray<TokenEvent>) => lastValueFrom(from(events).pipe(textDeltas(), toArray()))
const thoughts = (events: ReadonlyArray<TokenEvent>) => lastValueFrom(from(events).pipe(thinkingDeltas(), toArray()))

describe("textDeltas", () => {
  it("gives the text of a messages stream, piece by piece", async () => {
    expect((await texts(messagesText)).join("")).toBe("Hello, world")
  })

  it("leaves thinking and tool input out of a messages stream", async () => {
    expect(await texts(messagesThinkingTool)).toEqual([])
  })

  it("gives native text parts that are not thoughts", async () => {
    expect(await texts(native)).toEqual(["It is ", "sunny."])
  })

  it("gives chat delta.content without the empty first piece", async () => {
    expect(await texts(chatText)).toEqual(["Hello", " there"])
  })

  it("gives responses output_text deltas", async () => {
    expect(await texts(responsesText)).toEqual(["Hello", " world"])
  })

  it("passes the source's error through after the text before it", () => {
    new TestScheduler((a, b) => expect(a).toEqual(b)).run(({ cold, expectObservable }) => {
      const error = new Error("cut")
      const hello = messagesText.find((e) => e.type === "content_block_delta")!
      expectObservable(cold("a#", { a: hello }, error).pipe(textDeltas())).toBe("a#", { a: "Hello" }, error)
    })
  })

  it("unsubscribes the source when the consumer has what it needs", () => {
    new TestScheduler((a, b) => expect(a).toEqual(b)).run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold("-a-b-c|", { a: chatText[1]!, b: chatText[2]!, c: chatText[3]! })
      expectObservable(source.pipe(textDeltas(), take(1))).toBe("-(a|)", { a: "Hello" })
      expectSubscriptions(source.subscriptions).toBe("^!")
    })
  })
})

describe("thinkingDeltas", () => {
  it("gives a messages stream's thinking deltas", async () => {
    expect(await thoughts(messagesThinkingTool)).toEqual(["Need weather."])
  })

  it("gives native thought parts", async () => {
    expect(await thoughts(native)).toEqual(["Thinking about ", "weather."])
  })

  it("gives responses reasoning summary deltas", async () => {
    expect(await thoughts(responsesReasoningTool)).toEqual(["Look up ", "the weather."])
  })

  it("gives nothing for a plain text answer", async () => {
    expect(await firstValueFrom(from([...chatText, ...messagesText]).pipe(thinkingDeltas(), toArray()))).toEqual([])
  })
})
