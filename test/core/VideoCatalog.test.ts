import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import {
  defaultVideoCatalog,
  lookupVideoModel,
  makeVideoCatalog,
  VideoCatalog,
  videoFamilyOf,
  VideoModelLimits,
  videoModelIds,
  withVideoModels
} from "../../src/core/video/VideoCatalog.js"

const specIds = [
  "alpha-2",
  "beta-3.0-fast-generate-001",
  "beta-3.1-fast-generate-001",
  "gamma2.5-t2v-preview",
  "gamma2.5-i2v-preview",
  "delta-1-0-lite-t2v-250428",
  "delta-1-0-lite-i2v-250428",
  "delta-1-0-pro-250528",
  "delta-1-5-pro-251215",
  "delta-1-5-pro-251215-noAudio"
]

describe("VideoCatalog", () => {
  it.effect("lists every video model of spec E1 with limits that decode with the limits Schema", () =>
    Effect.gen(function* () {
      expect(videoModelIds()).toEqual(specIds)
      for (const id of specIds) {
        const model = yield* lookupVideoModel(id)
        const { id: _, ...limits } = model
        expect(yield* Schema.decodeUnknownEffect(VideoModelLimits)(limits)).toEqual(limits)
      }
    })
  )

  it.effect("holds each video model's rules as data", () =>
    Effect.gen(function* () {
      const m = (id: string) => lookupVideoModel(id)
      expect((yield* m("beta-3.1-fast-generate-001")).firstLastFrame).toBe(true)
      expect((yield* m("beta-3.0-fast-generate-001")).firstLastFrame).toBe(false)
      expect((yield* m("delta-1-5-pro-251215")).durations).toEqual([4, 5, 6, 7, 8, 9, 10, 11, 12])
      expect((yield* m("delta-1-5-pro-251215")).resolutions).toEqual(["480p", "720p"])
      expect((yield* m("delta-1-5-pro-251215-noAudio")).audio).toBe("none")
      expect((yield* m("delta-1-0-lite-t2v-250428")).aspectRatios).not.toContain("adaptive")
      expect((yield* m("delta-1-0-lite-i2v-250428")).referenceImages).toBe(true)
      expect((yield* m("delta-1-5-pro-251215")).referenceImages).toBe(false)
      expect(yield* m("delta-1-0-pro-250528")).toMatchObject({
        firstFrame: true,
        firstLastFrame: false,
        referenceImages: false
      })
      expect((yield* m("gamma2.5-t2v-preview")).modes).toEqual(["t2v"])
      expect((yield* m("alpha-2")).modes).toContain("v2v")
    })
  )

  it("finds the family of a known id, of an unknown id by prefix, and none for other ids", () => {
    expect(videoFamilyOf("alpha-2")).toBe("alpha")
    expect(videoFamilyOf("beta-4-preview")).toBe("beta")
    expect(videoFamilyOf("gamma3-t2v")).toBe("gamma")
    expect(videoFamilyOf("delta-2-0-260128")).toBe("delta")
    expect(videoFamilyOf("deltaX")).toBeUndefined()
    expect(videoFamilyOf("zeta-2.5-pro")).toBeUndefined()
    expect(videoFamilyOf("__proto__")).toBeUndefined()
  })

  it.effect("gives an unknown id its family's default limits and fails on model for a non-video id", () =>
    Effect.gen(function* () {
      expect(yield* lookupVideoModel("beta-4")).toMatchObject({ id: "beta-4", family: "beta", durations: [4, 6, 8] })
      const e = yield* Effect.flip(lookupVideoModel("sora-2"))
      expect(e).toMatchObject({ field: "model", rule: "video-model" })
      expect(e.message).toContain('"sora-2"')
    })
  )

  it.effect("lets a user add ids and override entries without changing the default catalog", () =>
    Effect.gen(function* () {
      const catalog = VideoCatalog.make({
        "acme-video": { family: "delta", durations: [5] },
        "alpha-2": { durations: [4] }
      })
      expect(videoFamilyOf("acme-video", catalog)).toBe("delta")
      expect((yield* lookupVideoModel("acme-video", catalog)).durations).toEqual([5])
      expect((yield* lookupVideoModel("alpha-2", catalog)).durations).toEqual([4])
      expect((yield* lookupVideoModel("alpha-2", catalog)).modes).toEqual(["t2v", "i2v", "v2v"])
      expect((yield* lookupVideoModel("alpha-2")).durations).toEqual([4, 8, 12])
      const twice = withVideoModels(catalog, { "alpha-2": { resolutions: ["1080p"] } })
      expect(yield* lookupVideoModel("alpha-2", twice)).toMatchObject({ durations: [4], resolutions: ["1080p"] })
      expect(defaultVideoCatalog.entries["acme-video"]).toBeUndefined()
      expect(yield* Effect.flip(lookupVideoModel("acme-video"))).toMatchObject({ field: "model" })
      expect(makeVideoCatalog()).toEqual(expect.objectContaining({ defaults: defaultVideoCatalog.defaults }))
    })
  )
})
