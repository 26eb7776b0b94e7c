import { Effect, Result } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { InvalidRequest } from "../src/core/errors/InvalidRequest.js"
import { appendToolRound, buildCountTokensBody, buildMessagesBody } from "../src/core/text/messages/Messages.js"
import { buildNativeBody, parseNativeModel } from "../src/core/text/native/Native.js"
import { buildChatBody } from "../src/core/text/chat/ChatBody.js"
import { buildResponsesBody } from "../src/core/text/responses/ResponsesBody.js"
import { ensureRoute, familyShaped, routeFor, routeForCapability } from "../src/core/gateway/Routing.js"
import { type Capability, entryFor, isKnownModel, knownModels } from "../src/core/gateway/Catalog.js"

/** Runs a builder; a thrown exception (a defect) escapes `runSync` and fails the property. */
const outcome = <A>(effect: Effect.Effect<A, InvalidRequest>): Result.Result<A, InvalidRequest> =>
  Effect.runSync(Effect.result(effect))

const isInvalidRequest = (e: unknown): boolean =>
  e instanceof InvalidRequest && e.field.length > 0 && e.rule.length > 0 && e.message.length > 0

/** Every effect either succeeds or fails with a well-formed InvalidRequest. */
const onlyInvalidRequests = (...effects: Array<Effect.Effect<unknown, InvalidRequest>>): void => {
  for (const effect of effects) {
    const r = outcome(effect)
    if (Result.isFailure(r)) expect(isInvalidRequest(r.failure)).toBe(true)
  }
}

const modelIds = fc.oneof(
  fc.constantFrom(
    "epsilon-opus-4-5-20251101",
    "epsilon-haiku-4-5-20251001",
    "zeta-2.5-pro",
    "zeta-2.5-flash-thinking-8192",
    "zeta-3-pro-preview-thinking-low",
    "zeta-embedding-001",
    "zeta-2.5-flash-image",
    "gpt-5-pro",
    "gpt-5",
    "o3",
    "gpt-4o",
    "text-embedding-3-small",
    "gpt-realtime-2",
    "zeta-live-2.5-flash-native-audio",
    "alpha-2",
    "delta-1-5-pro-251215"
  ),
  fc.string(),
  fc
    .tuple(fc.constantFrom("epsilon-", "zeta-", "zeta-2.5-", "zeta-3-", "gpt-5", "o", "tts-", "gamma"), fc.string())
    .map(([p, s]) => p + s)
)

/** Valid bodies with one known field replaced by anything: reaches the deep rules that `fc.anything()` alone rarely does. */
const validMessages = {
  model: "epsilon-opus-4-5-20251101",
  max_tokens: 4096,
  system: [{ type: "text", text: "s", cache_control: { type: "ephemeral" } }],
  messages: [
    {
      role: "user",
      content: [
        { type: "image", source: { type: "base64", media_type: "image/png", data: "x" } },
        { type: "text", text: "hi" }
      ]
    },
    { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "f", input: {} }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: "ok" }] }] }
  ],
  tools: [{ name: "f", input_schema: { type: "object" } }],
  tool_choice: { type: "tool", name: "f" },
  thinking: { type: "enabled", budget_tokens: 2048 },
  temperature: 1
}
const validNative = {
  contents: [{ role: "user", parts: [{ text: "x" }, { inlineData: { mimeType: "image/png", data: "x" } }] }],
  generationConfig: { temperature: 1, thinkingConfig: { thinkingBudget: 1024 }, imageConfig: { aspectRatio: "1:1" } },
  tools: [{ functionDeclarations: [{ name: "f" }] }, { vendorSearch: {} }],
  toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["f"] } },
  safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "OFF" }]
}

type Path = ReadonlyArray<string | number>
const pathsOf = (value: unknown, prefix: Path = []): Array<Path> => {
  if (Array.isArray(value)) return [prefix, ...value.flatMap((v, i) => pathsOf(v, [...prefix, i]))]
  if (typeof value === "object" && value !== null)
    return [prefix, ...Object.entries(value).flatMap(([k, v]) => pathsOf(v, [...prefix, k]))]
  return [prefix]
}
const replaceAt = (value: unknown, path: Path, replacement: unknown): unknown => {
  if (path.length === 0) return replacement
  const [head, ...rest] = path
  if (Array.isArray(value)) return value.map((v, i) => (i === head ? replaceAt(v, rest, replacement) : v))
  if (typeof value === "object" && value !== null && typeof head === "string")
    return { ...value, [head]: replaceAt((value as Record<string, unknown>)[head], rest, replacement) }
  return value
}
const mutated = (valid: unknown) => {
  const paths = pathsOf(valid).filter((p) => p.length > 0)
  return fc.tuple(fc.constantFrom(...paths), fc.anything()).map(([p, v]) => replaceAt(valid, p, v))
}

/** Keys that no builder knows, and JSON values for them. */
const unknownKey = fc.string({ minLength: 1, maxLength: 12 }).map((k) => `x_${k}`)
const safeJson = fc.jsonValue().filter((v) => !/"(__proto__|constructor|prototype)":/.test(JSON.stringify(v)))
const extras = fc.dictionary(unknownKey, safeJson, { maxKeys: 4 })

describe("text body builders never throw", () => {
  it("start the mutation property from bodies that build", () => {
    expect(Result.isSuccess(outcome(buildMessagesBody(validMessages)))).toBe(true)
    expect(Result.isSuccess(outcome(buildNativeBody("zeta-2.5-pro", validNative)))).toBe(true)
  })

  it("fail only with InvalidRequest on arbitrary input", () => {
    fc.assert(
      fc.property(fc.anything(), modelIds, (input, model) => {
        onlyInvalidRequests(
          buildMessagesBody(input),
          buildCountTokensBody(input),
          buildNativeBody(model, input),
          buildNativeBody(input, input),
          buildChatBody(input),
          buildResponsesBody(input),
          appendToolRound(input, input, input),
          Effect.fromResult(parseNativeModel(input))
        )
      })
    )
  })

  it("fail only with InvalidRequest when one field of a valid body is replaced by anything", () => {
    fc.assert(
      fc.property(mutated(validMessages), mutated(validNative), (messages, native) => {
        onlyInvalidRequests(
          buildMessagesBody(messages),
          buildCountTokensBody(messages),
          buildNativeBody("zeta-2.5-pro", native)
        )
      })
    )
  })

  it("route any string without throwing, to a path that starts with a slash", () => {
    fc.assert(
      fc.property(modelIds, (model) => {
        expect(routeFor(model).path.startsWith("/")).toBe(true)
        const r = ensureRoute(model, "chat")
        if (Result.isFailure(r)) expect(isInvalidRequest(r.failure)).toBe(true)
      })
    )
  })
})

describe("valid bodies build; unknown fields travel only in extra", () => {
  const unknownModels = { allowUnknownModels: true }
  it("messages bodies", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }).map((s) => `epsilon-${s}`),
        fc.integer({ min: 1, max: 200_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.array(fc.record({ role: fc.constantFrom("user", "assistant"), content: fc.string({ minLength: 1 }) }), {
          minLength: 1,
          maxLength: 4
        }),
        extras,
        (model, max_tokens, temperature, messages, extra) => {
          const input = { model, max_tokens, temperature, messages, extra }
          const body = Result.getOrThrow(outcome(buildMessagesBody(input, unknownModels)))
          expect(body).toEqual({ ...extra, model, max_tokens, temperature, messages })
          const count = Result.getOrThrow(outcome(buildCountTokensBody(input, unknownModels)))
          expect(count).toEqual({ ...extra, model, messages })
          // The same fields at the top level are refused, naming the first of them.
          const firstUnknown = Object.keys(extra)[0]
          if (firstUnknown !== undefined) {
            const refused = outcome(
              buildMessagesBody({ ...extra, model, max_tokens, temperature, messages }, unknownModels)
            )
            expect(Result.isFailure(refused) && refused.failure.rule === "unknown-field").toBe(true)
          }
        }
      )
    )
  })

  it("native-content bodies, which never carry the model", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(
          "zeta-2.5-pro",
          "zeta-2.5-flash",
          "zeta-3-pro-preview",
          "zeta-2.5-flash-thinking-4096",
          "zeta-3-pro-preview-thinking-high"
        ),
        fc.double({ min: 0, max: 2, noNaN: true }),
        fc.array(
          fc.record({
            role: fc.constantFrom("user", "model"),
            parts: fc.array(fc.record({ text: fc.string() }), { minLength: 1 })
          }),
          {
            minLength: 1,
            maxLength: 3
          }
        ),
        extras,
        (model, temperature, contents, extra) => {
          const input = { contents, generationConfig: { temperature, seed: 1 }, extra }
          const body = Result.getOrThrow(outcome(buildNativeBody(model, input)))
          expect(body).toEqual({ ...extra, contents, generationConfig: { temperature, seed: 1 } })
          expect("model" in body).toBe(false)
          // generationConfig is closed (upstream lists its members): an unknown key is refused by path.
          const refused = outcome(buildNativeBody(model, { contents, generationConfig: { temperature, x_knob: 1 } }))
          expect(Result.isFailure(refused) && refused.failure).toMatchObject({
            field: "generationConfig.x_knob",
            rule: "unknown-field"
          })
        }
      )
    )
  })

  it("chat and responses bodies", () => {
    fc.assert(
      fc.property(
        fc.constantFrom("gpt-4o", "gpt-5", "o3", "some-chat-model"),
        fc.array(fc.record({ role: fc.constantFrom("system", "user", "assistant"), content: fc.string() }), {
          minLength: 1,
          maxLength: 3
        }),
        fc.integer({ min: 1, max: 100_000 }),
        extras,
        (model, messages, max_output_tokens, extra) => {
          expect(Result.getOrThrow(outcome(buildChatBody({ model, messages, extra }, unknownModels)))).toEqual({
            ...extra,
            model,
            messages
          })
          const responses = { model, input: messages, max_output_tokens }
          expect(Result.getOrThrow(outcome(buildResponsesBody({ ...responses, extra }, unknownModels)))).toEqual({
            ...extra,
            ...responses
          })
        }
      )
    )
  })

  it("never copy a __proto__ key, at any depth", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const input = JSON.parse(
          `{"model":"epsilon-opus-4-5-20251101","max_tokens":5,"messages":[{"role":"user","content":"hi"}],"extra":{"__proto__":{"a":1},"x_extra":{"__proto__":${JSON.stringify(value)},"b":2}}}`
        )
        const body = Result.getOrThrow(outcome(buildMessagesBody(input))) as Record<string, unknown>
        expect(Object.hasOwn(body, "__proto__")).toBe(false)
        expect(body.x_extra).toEqual({ b: 2 })
      })
    )
  })
})

describe("routing invariant", () => {
  const ENDPOINT: Record<string, Capability> = {
    messages: "messages",
    countTokens: "countTokens",
    native: "native",
    chat: "chat",
    responses: "responses"
  }
  const OTHERS: ReadonlyArray<Capability> = [
    "messages",
    "countTokens",
    "native",
    "chat",
    "responses",
    "embeddings",
    "images",
    "video",
    "realtime",
    "live"
  ]

  it("a body built for one family is only routable to that family's endpoint", () => {
    fc.assert(
      fc.property(modelIds, (model) => {
        const built: Array<Capability> = []
        if (
          Result.isSuccess(
            outcome(buildMessagesBody({ model, max_tokens: 10, messages: [{ role: "user", content: "x" }] }))
          )
        )
          built.push(ENDPOINT.messages!)
        if (Result.isSuccess(outcome(buildNativeBody(model, { contents: [{ role: "user", parts: [{ text: "x" }] }] }))))
          built.push(ENDPOINT.native!)
        if (Result.isSuccess(outcome(buildChatBody({ model, messages: [{ role: "user", content: "x" }] }))))
          built.push(ENDPOINT.chat!)
        if (Result.isSuccess(outcome(buildResponsesBody({ model, input: "x" })))) built.push(ENDPOINT.responses!)
        const route = routeFor(model)
        for (const capability of built) {
          // The body's family is one of the model's capabilities, and its endpoint is that family's.
          expect(route.capabilities).toContain(capability)
          // A native id may carry a thinking suffix; the catalog lists its base id.
          const id = capability === "native" ? Result.getOrThrow(parseNativeModel(model)).base : model
          const own = Result.getOrThrow(ensureRoute(id, capability))
          expect(own.capability).toBe(capability)
        }
        // Every capability the catalog does not list for the model is refused.
        for (const other of OTHERS)
          if (!route.capabilities.includes(other)) expect(Result.isFailure(ensureRoute(model, other))).toBe(true)
        // messages and native-content bodies never both build for one model, nor with chat/responses.
        if (built.includes("messages")) expect(built).toEqual(["messages"])
        if (built.includes("native")) expect(built).toEqual(["native"])
      })
    )
  })
})

describe("the one model catalog", () => {
  const ALL: ReadonlyArray<Capability> = [
    "messages",
    "countTokens",
    "native",
    "chat",
    "responses",
    "embeddings",
    "rerank",
    "speech",
    "images",
    "video",
    "realtime",
    "live"
  ]
  const known = ALL.flatMap((capability) => knownModels(capability).map((model) => [model, capability] as const))

  it("routes every known model to its capability and refuses it elsewhere, naming its family's endpoint", () => {
    fc.assert(
      fc.property(fc.constantFrom(...known), fc.constantFrom(...ALL), ([model, capability], other) => {
        expect(Result.getOrThrow(routeForCapability(model, capability)).capability).toBe(capability)
        const own = entryFor(model).capabilities
        const asked = routeForCapability(model, other)
        if (own.includes(other)) expect(Result.isSuccess(asked)).toBe(true)
        else {
          expect(Result.isFailure(asked) && asked.failure).toMatchObject({ field: "model", rule: "route" })
          const preferred = routeFor(model)
          if (Result.isFailure(asked)) expect(asked.failure.message).toContain(`${preferred.method} ${preferred.path}`)
        }
      }),
      { seed: 1224 }
    )
  })

  it("refuses an id it does not list for a capability, listing that capability's known models, unless allowUnknownModels", () => {
    const suffix = fc.stringMatching(/^-[a-z0-9]{1,8}$/)
    fc.assert(
      fc.property(fc.constantFrom(...known), suffix, ([model, capability], tail) => {
        const id = `${model}${tail}`
        fc.pre(!isKnownModel(id) && entryFor(id).capabilities.includes(capability))
        const refused = routeForCapability(id, capability)
        expect(Result.isFailure(refused) && refused.failure).toMatchObject({ field: "model", rule: "unknown-model" })
        if (Result.isFailure(refused))
          for (const listed of knownModels(capability)) expect(refused.failure.message).toContain(listed)
        expect(Result.isSuccess(routeForCapability(id, capability, { allowUnknownModels: true }))).toBe(true)
      }),
      { seed: 1225 }
    )
  })

  it("with allowUnknownModels sends an unlisted id to any capability asked, but where the contract refuses its family", () => {
    const suffix = fc.stringMatching(/^-[a-z0-9]{1,8}$/)
    fc.assert(
      fc.property(fc.constantFrom(...known), suffix, fc.constantFrom(...ALL), ([model], tail, asked) => {
        const id = `${model}${tail}`
        fc.pre(!isKnownModel(id))
        const entry = entryFor(id)
        const routed = routeForCapability(id, asked, { allowUnknownModels: true })
        const refused = !entry.capabilities.includes(asked) && familyShaped.includes(asked)
        if (refused) expect(Result.isFailure(routed) && routed.failure).toMatchObject({ field: "model", rule: "route" })
        else expect(Result.getOrThrow(routed).capability).toBe(asked)
      }),
      { seed: 1226 }
    )
  })
})
