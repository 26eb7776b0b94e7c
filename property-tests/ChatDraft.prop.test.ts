// The chat fold is a draft changed in place (ChatDraft). This checks it against the pure fold it
// replaced, kept here as the reference model: on generated streams (several choices, tool calls
// opened and continued, fragments of one choice twice in a chunk, finish reasons, usage, [DONE],
// error payloads, in valid and in any order) every event gives the same verdict, the same failure
// message and partial snapshot, and the same snapshot; no snapshot handed out ever changes.
import { Result } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { chatFolder, type ChatSnapshot, initialChatSnapshot, stepChat } from "../src/core/text/chat/ChatAccumulator.js"
import type {
  ChatChoice,
  ChatCompletion,
  ChatCompletionChunk,
  ChatStreamEvent,
  ChatToolCall,
  ChatToolCallDelta
} from "../src/core/text/chat/ChatResponse.js"
import { expectFoldsLike, type Verdict } from "./foldCheck.js"

// ---- the reference model: the fold as it was before the draft (every step copies what it changes) ----

type Mutable<T> = { -readonly [K in keyof T]: T[K] }
type ChunkChoice = ChatCompletionChunk["choices"][number]

const replaceAt = <A>(items: ReadonlyArray<A>, index: number, item: A): ReadonlyArray<A> => {
  const out = items.slice()
  out[index] = item
  return out
}

const refToolCalls = (
  calls: ReadonlyArray<ChatToolCall>,
  indexes: ReadonlyArray<number>,
  fragments: ReadonlyArray<ChatToolCallDelta>
) => {
  let outCalls = calls
  let outIndexes = indexes
  for (const fragment of fragments) {
    const at = outIndexes.indexOf(fragment.index)
    const current = outCalls[at]
    if (current === undefined) {
      const name = fragment.function?.name
      if (typeof fragment.id !== "string" || typeof name !== "string")
        return `tool call ${fragment.index} continues before its first fragment (with id and name)`
      outCalls = [
        ...outCalls,
        {
          id: fragment.id,
          type: fragment.type ?? "function",
          function: { name, arguments: fragment.function?.arguments ?? "" }
        }
      ]
      outIndexes = [...outIndexes, fragment.index]
    } else {
      const piece = fragment.function?.arguments ?? ""
      if (piece !== "")
        outCalls = replaceAt(outCalls, at, {
          ...current,
          function: { ...current.function, arguments: current.function.arguments + piece }
        })
    }
  }
  return { calls: outCalls, indexes: outIndexes }
}

const refChoice = (choice: ChatChoice, indexes: ReadonlyArray<number>, fragment: ChunkChoice) => {
  const { delta } = fragment
  const adds = (delta.content ?? "") !== "" || (delta.refusal ?? "") !== "" || (delta.tool_calls?.length ?? 0) > 0
  if (choice.finish_reason !== null && adds) return `choice ${choice.index} continues after its finish_reason`
  const message: Mutable<ChatChoice["message"]> = { ...choice.message }
  if (typeof delta.role === "string") message.role = delta.role
  if (typeof delta.content === "string") message.content = (message.content ?? "") + delta.content
  if (typeof delta.refusal === "string") message.refusal = (message.refusal ?? "") + delta.refusal
  let nextIndexes = indexes
  if (delta.tool_calls !== undefined && delta.tool_calls.length > 0) {
    const applied = refToolCalls(message.tool_calls ?? [], indexes, delta.tool_calls)
    if (typeof applied === "string") return applied
    message.tool_calls = applied.calls
    nextIndexes = applied.indexes
  }
  const next: Mutable<ChatChoice> = { ...choice, message }
  if (typeof fragment.finish_reason === "string") next.finish_reason = fragment.finish_reason
  if (fragment.logprobs !== undefined && fragment.logprobs !== null) next.logprobs = fragment.logprobs
  return { choice: next as ChatChoice, indexes: nextIndexes }
}

const refStep = (snapshot: ChatSnapshot, event: ChatStreamEvent): Verdict<ChatSnapshot> => {
  if (snapshot.phase === "done") return { ok: snapshot }
  switch (event.type) {
    case "error": {
      const { code, message } = event.error
      const type = event.error.type ?? (code === undefined || code === null ? "error" : String(code))
      return { message: `stream error ${type}: ${message}`, partial: snapshot }
    }
    case "done":
      return snapshot.completion === undefined
        ? { message: "[DONE] before any chunk", partial: snapshot }
        : { ok: { ...snapshot, phase: "done" } }
    case "chunk": {
      const { chunk } = event
      const base: ChatCompletion = snapshot.completion ?? {
        id: chunk.id,
        object: "chat.completion",
        created: chunk.created,
        model: chunk.model,
        choices: [],
        usage: null,
        ...(chunk.service_tier === undefined ? {} : { service_tier: chunk.service_tier }),
        ...(chunk.system_fingerprint === undefined ? {} : { system_fingerprint: chunk.system_fingerprint })
      }
      let choices = base.choices
      let toolCallIndexes = snapshot.toolCallIndexes
      for (const fragment of chunk.choices) {
        let at = choices.findIndex((c) => c.index === fragment.index)
        if (at < 0) {
          at = choices.length
          choices = [
            ...choices,
            {
              index: fragment.index,
              message: { role: "assistant", content: null, refusal: null },
              logprobs: null,
              finish_reason: null
            }
          ]
          toolCallIndexes = [...toolCallIndexes, []]
        }
        const applied = refChoice(choices[at]!, toolCallIndexes[at] ?? [], fragment)
        if (typeof applied === "string") return { message: applied, partial: snapshot }
        choices = replaceAt(choices, at, applied.choice)
        if (applied.indexes !== toolCallIndexes[at]) toolCallIndexes = replaceAt(toolCallIndexes, at, applied.indexes)
      }
      const completion: Mutable<ChatCompletion> = { ...base, choices }
      if (chunk.usage !== undefined && chunk.usage !== null) completion.usage = chunk.usage
      return { ok: { phase: "streaming", completion, toolCallIndexes } }
    }
  }
}

// ---- generated streams ----

const chunkOf = (choices: ReadonlyArray<object>, extra: object = {}): ChatStreamEvent =>
  ({
    type: "chunk",
    chunk: {
      id: "c",
      object: "chat.completion.chunk",
      created: 1,
      model: "m",
      system_fingerprint: "fp",
      choices,
      ...extra
    }
  }) as ChatStreamEvent

const fragment = fc.record(
  {
    index: fc.constantFrom(0, 1, 2),
    delta: fc.record(
      {
        role: fc.constantFrom("assistant", null),
        content: fc.constantFrom("a", "bc", "", null),
        refusal: fc.constantFrom("no", "", null),
        tool_calls: fc.array(
          fc.record(
            {
              index: fc.constantFrom(0, 1, 5),
              id: fc.constantFrom("call_1", "call_2", null),
              type: fc.constantFrom("function", null),
              function: fc.record(
                { name: fc.constantFrom("f", "g", null), arguments: fc.constantFrom('{"a":', "1}", "", null) },
                { requiredKeys: [] }
              )
            },
            { requiredKeys: ["index"] }
          ),
          { maxLength: 3 }
        )
      },
      { requiredKeys: [] }
    ),
    finish_reason: fc.constantFrom("stop", "tool_calls", null),
    logprobs: fc.constantFrom(null, { content: [] })
  },
  { requiredKeys: ["index", "delta"] }
)

const event: fc.Arbitrary<ChatStreamEvent> = fc.oneof(
  { weight: 12, arbitrary: fc.array(fragment, { maxLength: 3 }).map((choices) => chunkOf(choices)) },
  {
    weight: 1,
    arbitrary: fc.constant(chunkOf([], { usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } }))
  },
  { weight: 1, arbitrary: fc.constant({ type: "done" } as ChatStreamEvent) },
  {
    weight: 1,
    arbitrary: fc.constant({ type: "error", error: { message: "boom", code: 500 } } as unknown as ChatStreamEvent)
  }
)

// A valid stream: each choice and call opened first, then continued, then finished, then [DONE].
const validStream = fc
  .tuple(
    fc.array(fc.constantFrom("x", "yz", "é"), { maxLength: 30 }),
    fc.array(fc.constantFrom('{"k":', "[1,", "2]}"), { maxLength: 20 })
  )
  .map(([texts, args]) => [
    chunkOf([
      { index: 0, delta: { role: "assistant", content: "" } },
      { index: 1, delta: { role: "assistant", content: "" } }
    ]),
    ...texts.map((t, i) => chunkOf([{ index: i % 2, delta: { content: t } }])),
    chunkOf([
      {
        index: 1,
        delta: { tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "f", arguments: "" } }] }
      }
    ]),
    ...args.map((a) => chunkOf([{ index: 1, delta: { tool_calls: [{ index: 0, function: { arguments: a } }] } }])),
    chunkOf([
      { index: 0, delta: {}, finish_reason: "stop" },
      { index: 1, delta: {}, finish_reason: "tool_calls" }
    ]),
    chunkOf([], { usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } }),
    { type: "done" } as ChatStreamEvent
  ])

/** The reference's verdict, after checking that the pure step (the draft for one event) agrees with it. */
const checkedRefStep = (snapshot: ChatSnapshot, e: ChatStreamEvent): Verdict<ChatSnapshot> => {
  const verdict = refStep(snapshot, e)
  const step = stepChat(snapshot, e)
  if ("message" in verdict) expect(Result.isFailure(step) && step.failure.message).toBe(verdict.message)
  else expect(Result.isSuccess(step) && step.success).toEqual(verdict.ok)
  return verdict
}

describe("the chat fold's draft", () => {
  it("folds as the copying fold did, event by event, and never changes a snapshot handed out", () => {
    fc.assert(
      fc.property(
        fc.oneof(validStream, fc.array(event, { maxLength: 40 })),
        fc.array(fc.boolean(), { minLength: 60, maxLength: 60 }),
        (events, takes) =>
          expectFoldsLike(chatFolder(initialChatSnapshot), initialChatSnapshot, checkedRefStep, events, takes)
      ),
      { numRuns: 400 }
    )
  })
})
