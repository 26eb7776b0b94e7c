import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { decodeModelList, modelListFormatFor, modelListHeaders, modelOwnerOf } from "../../src/core/gateway/Models.js"
import { startEmulator } from "../../src/emulator/index.js"

describe("decodeModelList", () => {
  it.effect("keeps the OpenAI format's four-field records", () =>
    Effect.gen(function* () {
      const record = { id: "gpt-4o", object: "model", created: 1715367049, owned_by: "system" }
      const list = yield* decodeModelList("openai", { object: "list", data: [{ ...record, capabilities: ["x"] }] })
      expect(list).toEqual({ data: [record], hasMore: false })
    })
  )

  it.effect("normalises the messages-style format: created_at to seconds, owned_by from the id", () =>
    Effect.gen(function* () {
      const list = yield* decodeModelList("messages", {
        data: [
          {
            type: "model",
            id: "epsilon-opus-4-5-20251101",
            display_name: "Epsilon Opus 4.5",
            created_at: "2025-11-01T00:00:00Z"
          },
          { type: "model", id: "other-model", display_name: "Other", created_at: "2025-01-01T00:00:10.5+00:00" }
        ],
        has_more: true,
        first_id: "epsilon-opus-4-5-20251101",
        last_id: "other-model"
      })
      expect(list.data).toEqual([
        {
          id: "epsilon-opus-4-5-20251101",
          object: "model",
          created: Date.UTC(2025, 10, 1) / 1000,
          owned_by: "epsilon"
        },
        { id: "other-model", object: "model", created: Date.UTC(2025, 0, 1) / 1000 + 10, owned_by: "epsilon" }
      ])
      expect(list).toMatchObject({ hasMore: true, nextCursor: "other-model" })
    })
  )

  it.effect("normalises the native format: models/ prefix dropped, created 0, next page token kept", () =>
    Effect.gen(function* () {
      const list = yield* decodeModelList("native", {
        models: [
          { name: "models/zeta-2.5-pro", displayName: "Zeta 2.5 Pro", supportedGenerationMethods: ["generateContent"] }
        ],
        nextPageToken: "tok"
      })
      expect(list).toEqual({
        data: [{ id: "zeta-2.5-pro", object: "model", created: 0, owned_by: "zeta" }],
        hasMore: true,
        nextCursor: "tok"
      })
      expect((yield* decodeModelList("native", { models: [] })).hasMore).toBe(false)
    })
  )

  it.effect("fails with a DecodeError on the wrong format or a bad date", () =>
    Effect.gen(function* () {
      expect(yield* Effect.flip(decodeModelList("openai", { models: [] }))).toMatchObject({ _tag: "DecodeError" })
      // A JavaScript caller's unknown format fails rather than throws.
      expect(yield* Effect.flip(decodeModelList("other" as never, { data: [] }))).toMatchObject({
        _tag: "DecodeError",
        message: "model list: unknown format (openai, messages or native)"
      })
      expect(
        yield* Effect.flip(decodeModelList("messages", { data: [{ type: "model", id: "x", created_at: "yesterday" }] }))
      ).toMatchObject({ _tag: "DecodeError" })
      expect(
        yield* Effect.flip(
          decodeModelList("messages", { data: [{ type: "model", id: "x", created_at: "2025-13-45T00:00:00Z" }] })
        )
      ).toMatchObject({ _tag: "DecodeError" })
      expect(yield* Effect.flip(decodeModelList("native", { models: [{ name: "zeta-2.5-pro" }] }))).toMatchObject({
        _tag: "DecodeError"
      })
    })
  )
})

describe("modelOwnerOf", () => {
  it("takes the family word that begins the id, else the catalog's owner, else the listing format's family", () => {
    expect(modelOwnerOf("gamma2.5-t2v-preview", "messages")).toBe("gamma")
    expect(modelOwnerOf("zeta-3-pro-preview", "messages")).toBe("zeta")
    expect(modelOwnerOf("rerank-v1", "native")).toBe("rerank")
    expect(modelOwnerOf("gpt-4o", "native")).toBe("openai")
    expect(modelOwnerOf("text-embedding-3-small", "messages")).toBe("openai")
    expect(modelOwnerOf("some-new-model", "native")).toBe("zeta")
  })

  it("gives every model of the emulator's list the owner the openai format gives it, in all three formats", async () => {
    const emu = await startEmulator({ fast: true })
    try {
      const owners = async (format: "openai" | "messages" | "native") => {
        const res = await fetch(`${emu.url}/v1/models`, { headers: modelListHeaders(format, emu.apiKey) })
        const list = await Effect.runPromise(decodeModelList(format, await res.json()))
        return Object.fromEntries(list.data.map((m) => [m.id, m.owned_by]))
      }
      const openai = await owners("openai")
      expect(Object.keys(openai).length).toBeGreaterThan(20)
      expect(await owners("messages")).toEqual(openai)
      expect(await owners("native")).toEqual(openai)
    } finally {
      await emu.close()
    }
  })
})

describe("model list headers", () => {
  it("selects each format with the headers of E11, and detects it back", () => {
    const messages = modelListHeaders("messages", "k")
    expect(messages).toMatchObject({ authorization: "Bearer k", "x-api-key": "k" })
    expect(messages["anthropic-version"]).toBeDefined()
    expect(modelListHeaders("native", "k")).toEqual({ authorization: "Bearer k", "x-vendor-api-key": "k" })
    expect(modelListHeaders("openai", "k")).toEqual({ authorization: "Bearer k" })
    for (const format of ["openai", "messages", "native"] as const)
      expect(modelListFormatFor(modelListHeaders(format, "k"))).toBe(format)
    expect(modelListFormatFor({ authorization: "Bearer k" }, { key: "k" })).toBe("native")
    expect(modelListFormatFor({ "x-api-key": "k" })).toBe("openai")
  })
})
