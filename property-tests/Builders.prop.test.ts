import { Cause, Effect, Exit, Option } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  appendToolRound,
  buildAnyShootAdvancedBody,
  buildAnyShootEasyBody,
  buildChatBody,
  buildCountTokensBody,
  buildEmbeddingsBody,
  buildImagesBody,
  buildLiveSetup,
  buildMessagesBody,
  buildNativeBody,
  buildPlatformCredentials,
  buildPlatformTextToVideoBody,
  buildRerankBody,
  buildResponsesBody,
  buildSessionUpdate,
  buildSpeechBody,
  buildVideoBody,
  InvalidRequest,
  validateLiveClientMessage,
  validateRealtimeClientEvent
} from "../src/core/index.js"
import { findUnsendable } from "../src/core/wire/JsonSafety.js"
import { fingerprint, type Hostile, hostileData, hostileReads, runs } from "./hostile.js"

// Shared references stay 12 levels deep here: a builder may accept them (JSON can repeat a value), and
// the check below then runs JSON.stringify, which writes every one of the 2^levels paths.
const unsendableData = hostileData(12)

/** Marks where a hostile value goes in a builder's valid input. */
const HOLE = "$HOLE"

/** A valid input with a hole, and a plain JSON value that fills the hole validly (an object by default). */
type Template = unknown | { readonly template: unknown; readonly ok: unknown }
const typed = (template: unknown, ok: unknown) => ({ template, ok })
const isTyped = (t: Template): t is { template: unknown; ok: unknown } =>
  typeof t === "object" && t !== null && !Array.isArray(t) && Object.hasOwn(t, "template") && Object.hasOwn(t, "ok")
const templateOf = (t: Template): unknown => (isTyped(t) ? t.template : t)
const okFillerOf = (t: Template): unknown => (isTyped(t) ? t.ok : { k: [1, "x", null] })

interface BuilderCase {
  readonly name: string
  readonly build: (input: unknown) => Effect.Effect<unknown, unknown>
  /** Valid inputs, each with `HOLE` in a field the builder passes through (or checks). */
  readonly templates: ReadonlyArray<Template>
}

const fill = (template: unknown, hole: unknown): unknown => {
  if (template === HOLE) return hole
  if (Array.isArray(template)) return template.map((t) => fill(t, hole))
  if (template !== null && typeof template === "object") {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(template)) out[k] = fill(v, hole)
    return out
  }
  return template
}

const messagesBody = (field: Record<string, unknown>) => ({
  model: "epsilon-opus-4-5-20251101",
  max_tokens: 1024,
  messages: [{ role: "user", content: "hi" }],
  ...field
})

const builders: ReadonlyArray<BuilderCase> = [
  {
    name: "buildMessagesBody",
    build: (input) => buildMessagesBody(input),
    templates: [
      messagesBody({ tools: [{ name: "f", input_schema: { type: "object", properties: { q: HOLE } } }] }),
      messagesBody({ metadata: { user_id: HOLE } }),
      messagesBody({ messages: [{ role: "user", content: [{ type: "text", text: "hi", citations: HOLE }] }] }),
      messagesBody({
        messages: [
          { role: "user", content: "hi" },
          { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "f", input: { q: HOLE } }] },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] }
        ],
        tools: [{ name: "f", input_schema: { type: "object" } }]
      }),
      messagesBody({ extra: { extra_field: HOLE } })
    ]
  },
  {
    name: "buildCountTokensBody",
    build: (input) => buildCountTokensBody(input),
    templates: [
      typed(
        {
          model: "epsilon-opus-4-5-20251101",
          messages: [{ role: "user", content: "hi" }],
          tools: [{ name: "f", input_schema: HOLE }]
        },
        { type: "object" }
      ),
      {
        model: "epsilon-opus-4-5-20251101",
        messages: [{ role: "user", content: "hi" }],
        system: [{ type: "text", text: "s", extra: { x: HOLE } }]
      }
    ]
  },
  {
    name: "buildNativeBody",
    build: (input) => buildNativeBody("zeta-2.5-pro", input),
    templates: [
      { contents: [{ role: "user", parts: [{ text: "hi" }] }], generationConfig: { responseSchema: HOLE } },
      {
        contents: [{ role: "user", parts: [{ text: "hi" }] }],
        tools: [{ functionDeclarations: [{ name: "f", parameters: HOLE }] }]
      },
      {
        contents: [
          { role: "user", parts: [{ text: "hi" }] },
          { role: "model", parts: [{ functionCall: { name: "f", args: {} } }] },
          { role: "user", parts: [{ functionResponse: { name: "f", response: HOLE } }] }
        ]
      },
      typed({ contents: [{ role: "user", parts: [{ text: "hi" }] }], safetySettings: HOLE }, [])
    ]
  },
  {
    name: "buildChatBody",
    build: (input) => buildChatBody(input),
    templates: [
      {
        model: "gpt-4o",
        messages: [{ role: "user", content: "hi" }],
        tools: [{ type: "function", function: { name: "f", parameters: HOLE } }]
      },
      typed({ model: "gpt-4o", messages: [{ role: "user", content: HOLE }] }, "hi"),
      { model: "gpt-4o", messages: [{ role: "user", content: "hi" }], metadata: HOLE },
      {
        model: "gpt-4o",
        messages: [{ role: "user", content: "hi" }],
        response_format: { type: "json_schema", json_schema: { name: "n", schema: HOLE } }
      }
    ]
  },
  {
    name: "buildResponsesBody",
    build: (input) => buildResponsesBody(input),
    templates: [
      {
        model: "gpt-5",
        input: [{ role: "user", content: "hi" }],
        tools: [{ type: "function", name: "f", parameters: HOLE }]
      },
      typed({ model: "gpt-5", input: HOLE }, "hi"),
      {
        model: "gpt-5",
        input: "hi",
        metadata: HOLE,
        text: { format: { type: "json_schema", name: "n", schema: HOLE } }
      }
    ]
  },
  {
    name: "buildEmbeddingsBody",
    build: (input) => buildEmbeddingsBody(input),
    templates: [
      typed({ model: "text-embedding-3-small", input: "hi", user: HOLE }, "u"),
      { model: "text-embedding-3-small", input: "hi", extra: { x: HOLE } },
      typed({ model: "text-embedding-3-small", input: HOLE }, "hi")
    ]
  },
  {
    name: "buildRerankBody",
    build: (input) => buildRerankBody(input),
    templates: [
      { model: "rerank-v1", query: "q", documents: ["a", { text: "b", meta: HOLE }] },
      { model: "rerank-v1", query: "q", documents: ["a"], extra: { x: HOLE } }
    ]
  },
  {
    name: "buildSpeechBody",
    build: (input) => buildSpeechBody(input),
    templates: [
      typed({ model: "gpt-4o-mini-tts", input: "hi", voice: "alloy", instructions: HOLE }, "calm"),
      { model: "gpt-4o-mini-tts", input: "hi", voice: "alloy", extra: { x: HOLE } }
    ]
  },
  {
    name: "buildImagesBody",
    build: (input) => buildImagesBody(input),
    templates: [
      typed({ model: "zeta-2.5-flash-image", prompt: "a fox", quality: HOLE }, "high"),
      { model: "zeta-2.5-flash-image", prompt: "a fox", extra: { x: HOLE } },
      { model: "zeta-2.5-flash-image", contents: [{ role: "user", parts: [{ text: "a fox", extra: { x: HOLE } }] }] }
    ]
  },
  {
    name: "buildVideoBody",
    build: (input) => buildVideoBody(input),
    templates: [
      { model: "alpha-2", prompt: "x", extra: { x: HOLE } },
      { model: "beta-3.1-fast-generate-001", prompt: "x", extra: { x: HOLE } },
      { model: "gamma2.5-t2v-preview", prompt: "x", extra: { x: HOLE } },
      { model: "delta-1-5-pro-251215", prompt: "x", extra: { x: HOLE } }
    ]
  },
  {
    name: "buildSessionUpdate",
    build: (input) => buildSessionUpdate("gpt-realtime", input),
    templates: [
      { modalities: ["text"], tools: [{ type: "function", name: "f", parameters: HOLE }] },
      { instructions: "be brief", input_audio_transcription: { model: HOLE } },
      { modalities: ["text"], extra: { x: HOLE } },
      { modalities: ["text"], turn_detection: { type: "server_vad", extra: { x: HOLE } } }
    ]
  },
  {
    name: "validateRealtimeClientEvent",
    build: (input) => validateRealtimeClientEvent("gpt-realtime-2", input),
    templates: [
      {
        type: "conversation.item.create",
        item: { type: "message", role: "user", content: [{ type: "input_text", text: "hi", extra: { x: HOLE } }] }
      },
      { type: "response.create", response: { metadata: HOLE } },
      {
        type: "session.update",
        session: { type: "realtime", tools: [{ type: "function", name: "f", parameters: HOLE }] }
      },
      { type: "response.create", extra: { x: HOLE } },
      typed({ type: "input_audio_buffer.append", audio: "AAAA", event_id: HOLE }, "e1")
    ]
  },
  {
    name: "buildLiveSetup",
    build: (input) => buildLiveSetup("zeta-live-2.5-flash-native-audio", input),
    templates: [
      { generationConfig: { responseModalities: ["TEXT"], speechConfig: HOLE } },
      { tools: [{ functionDeclarations: [{ name: "f", parameters: HOLE }] }] },
      { systemInstruction: { parts: [{ text: "s", extra: { x: HOLE } }] } }
    ]
  },
  {
    name: "validateLiveClientMessage",
    build: (input) => validateLiveClientMessage(input),
    templates: [
      { clientContent: { turns: [{ role: "user", parts: [{ text: "hi", extra: { x: HOLE } }] }], turnComplete: true } },
      { toolResponse: { functionResponses: [{ id: "f1", name: "f", response: HOLE }] } },
      { realtimeInput: { audio: { data: "AAAA", mimeType: "audio/pcm;rate=16000" }, extra: { x: HOLE } } }
    ]
  },
  {
    name: "buildPlatformTextToVideoBody",
    build: (input) => buildPlatformTextToVideoBody(input),
    templates: [{ model: "m", prompt: "a cat", duration: "5", aspect_ratio: "16:9", extra: { x: HOLE } }]
  },
  {
    name: "buildAnyShootEasyBody",
    build: (input) => buildAnyShootEasyBody(input),
    templates: [{ size: "1024x768", contents: [{ parts: [{ text: "a bag" }] }], extra: { x: HOLE } }]
  },
  {
    name: "buildAnyShootAdvancedBody",
    build: (input) => buildAnyShootAdvancedBody(input),
    templates: [
      {
        productImageUrl: "https://a",
        productMaskUrl: "https://b",
        templateImageUrl: "https://c",
        templateMaskUrl: "https://d",
        extra: { x: HOLE }
      }
    ]
  },
  {
    name: "buildPlatformCredentials",
    build: (input) => buildPlatformCredentials(input),
    templates: [{ username: "u", password: "p", extra: { x: HOLE } }]
  },
  {
    name: "appendToolRound",
    build: (input) => {
      // The harness must not read a hostile input itself: a throwing Proxy is passed as all three arguments.
      let args: [unknown, unknown, unknown] = [input, input, input]
      try {
        if (Array.isArray(input)) args = [input[0], input[1], input[2]]
      } catch {
        args = [input, input, input]
      }
      return appendToolRound(...args)
    },
    templates: [
      [
        [{ role: "user", content: "hi" }],
        [{ type: "tool_use", id: "t1", name: "f", input: { q: HOLE } }],
        [{ tool_use_id: "t1", content: "ok" }]
      ],
      typed(
        [
          [{ role: "user", content: "hi" }],
          [{ type: "tool_use", id: "t1", name: "f", input: {} }],
          [{ tool_use_id: "t1", content: HOLE }]
        ],
        "ok"
      ),
      [
        [{ role: "user", content: [{ type: "text", text: "hi", extra: { x: HOLE } }] }],
        [{ type: "tool_use", id: "t1", name: "f", input: {} }],
        [{ tool_use_id: "t1", content: "ok" }]
      ]
    ]
  }
]

/** What a run of a builder came to: a body, an InvalidRequest, or something that must never happen. */
const outcome = (
  effect: () => Effect.Effect<unknown, unknown>
): { body: unknown } | { invalid: InvalidRequest } | { wrong: string } => {
  let exit: Exit.Exit<unknown, unknown>
  try {
    exit = Effect.runSyncExit(effect())
  } catch (e) {
    return { wrong: `threw ${String(e).slice(0, 200)}` }
  }
  if (Exit.isSuccess(exit)) return { body: exit.value }
  const failure = Cause.findErrorOption(exit.cause)
  if (Option.isSome(failure) && failure.value instanceof InvalidRequest) return { invalid: failure.value }
  return { wrong: `died: ${Cause.pretty(exit.cause).slice(0, 300)}` }
}

/** Why a built body cannot be sent as it is, or `undefined` when `JSON.stringify` sends it unchanged. */
const unsendable = (body: unknown): string | undefined => {
  const found = findUnsendable(body)
  if (found !== undefined) return `findUnsendable: ${found.path || "(body)"}: ${found.reason}`
  let text: string
  try {
    text = JSON.stringify(body)
  } catch (e) {
    return `JSON.stringify threw ${String(e).slice(0, 100)}`
  }
  return sameJson(JSON.parse(text), body) ? undefined : "JSON.parse(JSON.stringify(body)) differs from the body"
}

/** Deep equality as JSON sees it: numbers by `===` (so -0 is 0), `undefined` members as absent. */
const sameJson = (a: unknown, b: unknown): boolean => {
  const stack: Array<[unknown, unknown]> = [[a, b]]
  while (stack.length > 0) {
    const [x, y] = stack.pop()!
    if (x === y) continue
    if (
      typeof x !== "object" ||
      typeof y !== "object" ||
      x === null ||
      y === null ||
      Array.isArray(x) !== Array.isArray(y)
    )
      return false
    const keys = (o: object) =>
      Object.keys(o)
        .filter((k) => (o as Record<string, unknown>)[k] !== undefined)
        .sort()
    const kx = keys(x)
    const ky = keys(y)
    if (kx.length !== ky.length || kx.some((k, i) => k !== ky[i])) return false
    for (const k of kx) stack.push([(x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k]])
  }
  return true
}

// The input: hostile at the top level, or in a passed-through field of one of the builder's valid inputs.
const inputs = (c: BuilderCase, hostile: fc.Arbitrary<Hostile>): fc.Arbitrary<Hostile> =>
  fc.oneof(
    { weight: 1, arbitrary: hostile },
    {
      weight: 4,
      arbitrary: fc.tuple(fc.constantFrom(...c.templates), hostile).map(([t, h]) => ({
        build: () => fill(templateOf(t), h.build()),
        [fc.toStringMethod]: () => `${fc.stringify(templateOf(t))} with ${h[fc.toStringMethod]()} in the hole`
      }))
    }
  )

/** Runs a builder on one input and checks everything that must hold whatever it was given. */
const check = (c: BuilderCase, recipe: Hostile): void => {
  const input = recipe.build()
  const before = fingerprint(input)
  const result = outcome(() => c.build(input))
  expect(result).not.toHaveProperty("wrong")
  if ("invalid" in result) expect(result.invalid.field.length).toBeGreaterThan(0)
  if ("body" in result) expect(unsendable(result.body)).toBeUndefined()
  expect(fingerprint(input)).toEqual(before)
}

describe.each(builders)("$name on hostile input", (c) => {
  it("accepts each of its valid inputs, with plain JSON in the hole", () => {
    for (const template of c.templates) {
      const result = outcome(() => c.build(fill(templateOf(template), okFillerOf(template))))
      expect(result, JSON.stringify(template)).toHaveProperty("body")
    }
  })

  it("never dies, never mutates its input, and builds only bodies JSON.stringify sends unchanged, on values JSON cannot carry", () => {
    fc.assert(
      fc.property(inputs(c, unsendableData), (recipe) => check(c, recipe)),
      { numRuns: runs() }
    )
  })

  it("never throws or dies on values whose reading throws (getters, Proxies)", () => {
    fc.assert(
      fc.property(inputs(c, hostileReads), (recipe) => check(c, recipe)),
      { numRuns: runs() }
    )
  })
})
