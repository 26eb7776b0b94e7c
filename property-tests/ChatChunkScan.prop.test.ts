import { Result, Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { scanContentChunk } from "../src/core/text/chat/ChatChunkScan.js"
import { ChatCompletionChunk, decodeChatEventEither } from "../src/core/text/chat/ChatResponse.js"
import { expectReadAgrees, readableStrings, jsonStrings as text, oneCharAway, schemaOracle } from "./scanCheck.js"

// The oracle is independent of the scanner: `JSON.parse` and the chunk's own Schema. The scanner may
// decline anything, but what it reads must be exactly what they give, keys in order.
const oracle = schemaOracle(Schema.decodeUnknownResult(ChatCompletionChunk))

const number = fc.oneof(
  fc.nat(),
  fc.integer({ min: 1_700_000_000, max: 1_800_000_000 }),
  fc.constantFrom(0, 1e15 - 1, 1e15, 2 ** 53, -1, 0.5, 1e21)
)
const nullable = fc.option(fc.oneof(fc.constantFrom("default", "fp_50cad350e4"), text), { nil: null })

/** A content chunk as upstream writes it (`JSON.stringify`), its optional keys present or not. */
const upstream = fc
  .record(
    {
      id: fc.oneof(fc.constant("chatcmpl-CBv3x"), text),
      object: fc.oneof(fc.constant("chat.completion.chunk"), text),
      created: number,
      model: fc.oneof(fc.constant("gpt-4o-mini-2024-07-18"), text),
      service_tier: nullable,
      system_fingerprint: nullable,
      index: number,
      content: text,
      logprobs: fc.constant(null),
      usage: fc.constant(null),
      obfuscation: fc.oneof(fc.constant("x7Ab"), text)
    },
    { requiredKeys: ["id", "object", "created", "model", "index", "content"] }
  )
  .chain((r) =>
    fc.boolean().map((fingerprintFirst) => {
      const tiers: Record<string, unknown> = {}
      const pairs: Array<[string, unknown]> = [
        ["service_tier", r.service_tier],
        ["system_fingerprint", r.system_fingerprint]
      ]
      if (fingerprintFirst) pairs.reverse()
      for (const [k, v] of pairs) if (v !== undefined) tiers[k] = v
      const choice: Record<string, unknown> = { index: r.index, delta: { content: r.content } }
      if ("logprobs" in r) choice["logprobs"] = null
      choice["finish_reason"] = null
      return JSON.stringify({
        id: r.id,
        object: r.object,
        created: r.created,
        model: r.model,
        ...tiers,
        choices: [choice],
        ...("usage" in r ? { usage: null } : {}),
        ...("obfuscation" in r ? { obfuscation: r.obfuscation } : {})
      })
    })
  )

// Texts near it: one character put in, taken out or replaced somewhere, another key order, spacing,
// the other chunks of a stream (role, finish reason, usage, tool calls), an error payload.
const nearby = fc.oneof(
  // Weighted as the four kinds of change it makes.
  {
    weight: 4,
    arbitrary: oneCharAway(
      upstream,
      [" ", "\\", '"', "0", "-", ".", "e", "}", "{", "[", "]", ",", "\n", "\u0000", "x", "u", "1", "n"],
      ["x", "0", "\\", '"', "9", "}", "]", "n"]
    )
  },
  upstream.map((t) => t.replace(/":/g, '": ')),
  upstream.map((t) => `${t} `),
  fc
    .tuple(upstream, fc.oneof(fc.stringMatching(/^[0-9]{1,4}$/), fc.stringMatching(/^[1-9][0-9]{13,19}$/)))
    .map(([t, digits]) => t.replace(/"created":[^,]*,/, `"created":${digits},`)),
  fc.constantFrom(
    '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}]}',
    '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}',
    '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}',
    '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null},{"index":1,"delta":{"content":"b"},"finish_reason":null}]}',
    '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a","refusal":null},"finish_reason":null}]}',
    '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":null},"finish_reason":null}]}',
    '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","service_tier":"a","service_tier":"b","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}',
    '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}],"obfuscation":1}',
    '{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"\\u00e9\\ud83d\\ude00"},"finish_reason":null}]}',
    '{"id":"c","object":"chat.completion.chunk","created":01,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}',
    '{"id":"c","object":"chat.completion.chunk","created":1E2,"model":"m","choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}]}',
    '{"error":{"message":"overloaded","type":"server_error"}}'
  )
)

describe("reading content chunks without a parse tree", () => {
  it("gives exactly what JSON.parse and the chunk's Schema give for upstream's own text, or declines", () => {
    fc.assert(
      fc.property(fc.oneof(upstream, nearby), fc.integer({ min: 1, max: 6 }), (data, maxDepth) => {
        expectReadAgrees(scanContentChunk(data, maxDepth), oracle(data, maxDepth))
      }),
      { numRuns: 3_000 }
    )
  })

  it("reads upstream's own text with plain numbers and any content, escapes and all", () => {
    const content = readableStrings
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2_000_000_000 }),
        fc.integer({ min: 0, max: 20 }),
        content,
        (created, index, content) => {
          const data = JSON.stringify({
            id: "chatcmpl-1",
            object: "chat.completion.chunk",
            created,
            model: "gpt-4o-mini",
            service_tier: "default",
            system_fingerprint: "fp_1",
            choices: [{ index, delta: { content }, logprobs: null, finish_reason: null }],
            usage: null,
            obfuscation: "ab"
          })
          expect(scanContentChunk(data, 64)).toStrictEqual({
            id: "chatcmpl-1",
            object: "chat.completion.chunk",
            created,
            model: "gpt-4o-mini",
            choices: [{ index, delta: { content }, finish_reason: null, logprobs: null }],
            usage: null,
            service_tier: "default",
            system_fingerprint: "fp_1"
          })
        }
      ),
      { numRuns: 1_000 }
    )
  })

  it("the stream decoder gives the same event whether a record is scanned or parsed", () => {
    // A record named `error` is never scanned: its payload is the error, however it looks.
    fc.assert(
      fc.property(
        fc.oneof(upstream, nearby),
        fc.constantFrom("", "message", "error"),
        fc.integer({ min: 1, max: 6 }),
        (data, event, maxDepth) => {
          const got = decodeChatEventEither({ data, event }, { maxDepth })
          const expected = event === "error" ? undefined : oracle(data, maxDepth)
          if (expected?.ok === true) {
            expect(Result.isSuccess(got)).toBe(true)
            // The same value; key order may differ (the parsed path keeps a clean tree's own order).
            if (Result.isSuccess(got)) expect(got.success).toStrictEqual({ type: "chunk", chunk: expected.value })
          }
          if (event === "error" && Result.isSuccess(got)) expect(got.success.type).not.toBe("chunk")
        }
      ),
      { numRuns: 2_000 }
    )
  })
})
