import { Cause, Effect, Exit, Option, Result, Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  buildVideoBody,
  foreignVideoFields,
  gammaSizes,
  videoBodySchemas,
  videoGenericFields,
  videoModeFields,
  videoResolutions,
  videoAspectRatios
} from "../src/core/video/VideoBody.js"
import { sanitize } from "../src/core/validation/Rules.js"
import { lookupVideoModel, type VideoModel, videoModelIds } from "../src/core/video/VideoCatalog.js"

const models: ReadonlyArray<VideoModel> = videoModelIds().map((id) => Effect.runSync(lookupVideoModel(id)))
const opt = <A>(arb: fc.Arbitrary<A>) => fc.option(arb, { nil: undefined })
const url = fc.webUrl({ validSchemes: ["https"] })
// Prompts without marker flags or reference markers, so that only the drawn settings reach the body.
const prompt = fc
  .string({ minLength: 1, maxLength: 40 })
  .filter((s) => s.trim() !== "" && !s.includes("--") && !s.includes("[图"))
const defined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined))
const withExtra = (arb: fc.Arbitrary<Record<string, unknown>>) =>
  fc
    .tuple(arb, opt(fc.jsonValue()))
    .map(([req, extra]) => (extra === undefined ? req : { ...req, extra: { x_extra: extra } }))

/** A request of `model` drawn only from values its catalog entry allows. */
const validRequest = (m: VideoModel): fc.Arbitrary<Record<string, unknown>> => {
  const base = { model: fc.constant(m.id), prompt, duration: opt(fc.constantFrom(...m.durations)) }
  switch (m.family) {
    case "alpha":
      return fc
        .record({
          ...base,
          aspect_ratio: opt(fc.constantFrom(...m.aspectRatios)),
          resolution: opt(fc.constantFrom(...m.resolutions)),
          media: fc.oneof(
            fc.constant({}),
            url.map((image) => ({ image })),
            fc.stringMatching(/^[a-z0-9]{1,12}$/).map((id) => ({ remix_from_video_id: `video_${id}` }))
          )
        })
        .map(({ media, ...r }) => defined({ ...r, ...media }))
    case "beta":
      return fc
        .record({
          ...base,
          aspect_ratio: opt(fc.constantFrom(...m.aspectRatios)),
          resolution: opt(fc.constantFrom(...m.resolutions)),
          frames: fc.oneof(
            fc.constant({}),
            url.map((image) => ({ image })),
            ...(m.firstLastFrame ? [fc.tuple(url, url).map(([image, last_frame]) => ({ image, last_frame }))] : [])
          ),
          sampleCount: opt(fc.integer({ min: 1, max: 4 })),
          personGeneration: opt(fc.constantFrom("allow_all", "allow_adult", "dont_allow")),
          seed: opt(fc.integer({ min: 0, max: 4294967295 })),
          watermark: opt(fc.boolean())
        })
        .map(({ frames, ...r }) => defined({ ...r, ...frames }))
    case "gamma": {
      const common = {
        ...base,
        seed: opt(fc.integer({ min: 0, max: 2147483647 })),
        audio_url: opt(url),
        smart_rewrite: opt(fc.boolean()),
        generate_audio: opt(fc.boolean())
      }
      if (m.modes.includes("t2v")) {
        const pairs = m.resolutions.flatMap((r) =>
          m.aspectRatios.filter((a) => gammaSizes[r]?.[a]).map((a) => ({ resolution: r, aspect_ratio: a }))
        )
        return fc
          .record({ ...common, size: opt(fc.constantFrom(...pairs)) })
          .map(({ size, ...r }) => defined({ ...r, ...size }))
      }
      return fc.record({ ...common, image: url, resolution: opt(fc.constantFrom(...m.resolutions)) }).map(defined)
    }
    case "delta": {
      const media: Array<fc.Arbitrary<{ readonly media: Record<string, unknown>; readonly markers: string }>> = []
      if (m.modes.includes("t2v")) media.push(fc.constant({ media: {}, markers: "" }))
      if (m.firstFrame) media.push(url.map((image) => ({ media: { image }, markers: "" })))
      if (m.firstLastFrame)
        media.push(fc.tuple(url, url).map(([image, last_frame]) => ({ media: { image, last_frame }, markers: "" })))
      if (m.referenceImages)
        media.push(
          fc.array(url, { minLength: 1, maxLength: 4 }).map((refs) => ({
            media: { reference_images: refs },
            markers: refs.map((_, i) => ` [图${i + 1}]`).join("")
          }))
        )
      return fc
        .record({
          ...base,
          resolution: opt(fc.constantFrom(...m.resolutions)),
          aspect_ratio: opt(fc.constantFrom(...m.aspectRatios)),
          fps: opt(fc.constantFrom(24, 30)),
          seed: opt(fc.integer({ min: -1, max: 4294967295 })),
          watermark: opt(fc.boolean()),
          camera_fixed: m.cameraFixed ? opt(fc.boolean()) : fc.constant(undefined),
          images: fc.oneof(...media)
        })
        .map(({ images, prompt: p, ...r }) => {
          // Reference image mode renders at 480p or 720p only and takes no --cf.
          const refs = images.media.reference_images !== undefined
          const settings = refs
            ? { ...r, resolution: r.resolution === "1080p" ? undefined : r.resolution, camera_fixed: undefined }
            : r
          return defined({ ...settings, prompt: `${p}${images.markers}`, ...images.media })
        })
    }
  }
}

const modelAndRequest = fc.constantFrom(...models).chain((m) => withExtra(validRequest(m)).map((req) => ({ m, req })))

describe("buildVideoBody properties", () => {
  it("builds every request drawn from a model's allowed values into a body of its family only", () => {
    fc.assert(
      fc.property(modelAndRequest, ({ m, req }) => {
        const result = Effect.runSync(Effect.result(buildVideoBody(req)))
        if (Result.isFailure(result)) throw new Error(`${JSON.stringify(req)} failed: ${result.failure.message}`)
        const body = result.success as Record<string, unknown>
        const schema: Schema.Decoder<unknown> = videoBodySchemas[m.family]
        expect(Result.isSuccess(Schema.decodeUnknownResult(schema)(body))).toBe(true)
        for (const key of foreignVideoFields(m.family)) expect(body).not.toHaveProperty(key)
        if (m.family !== "beta" && m.family !== "gamma")
          for (const key of ["image", "resolution", "seed", "fps"]) expect(body).not.toHaveProperty(key)
        for (const key of videoModeFields)
          if (
            key !== "input_reference" &&
            key !== "remix_from_video_id" &&
            key !== "seed" &&
            key !== "fps" &&
            key !== "generate_audio"
          )
            expect(body).not.toHaveProperty(key)
        // Fields in `extra` reach the body, minus any `__proto__`-style key at any depth.
        const extra = req.extra as { x_extra?: unknown } | undefined
        expect(body.x_extra).toEqual(sanitize(extra?.x_extra))
        expect(body).not.toHaveProperty("extra")
      })
    )
  })

  it("fails on the field that holds a value outside the model's allowed set", () => {
    const bad = fc.constantFrom(...models).chain((m) => {
      const base: Record<string, unknown> = {
        model: m.id,
        prompt: "a scene",
        ...(m.modes.includes("t2v") ? {} : { image: "https://i/a.png" })
      }
      const choices: Array<fc.Arbitrary<[string, unknown]>> = [
        fc
          .integer({ min: -5, max: 40 })
          .filter((d) => !m.durations.includes(d))
          .map((d) => ["duration", d] as [string, unknown]),
        fc
          .constantFrom(...videoResolutions, "2k", "720P")
          .filter((r) => !m.resolutions.includes(r))
          .map((r) => ["resolution", r] as [string, unknown])
      ]
      const badRatios = [...videoAspectRatios, "2:1", "16/9"].filter((a) => !m.aspectRatios.includes(a))
      if (badRatios.length > 0)
        choices.push(fc.constantFrom(...badRatios).map((a) => ["aspect_ratio", a] as [string, unknown]))
      return fc.oneof(...choices).map(([field, value]) => ({ m, field, input: { ...base, [field]: value } }))
    })
    fc.assert(
      fc.property(bad, ({ field, input }) => {
        const result = Effect.runSync(Effect.result(buildVideoBody(input)))
        expect(Result.isFailure(result)).toBe(true)
        if (Result.isFailure(result)) {
          expect(result.failure.field).toBe(field)
          expect(result.failure.message).toContain(field)
        }
      })
    )
  })

  it("refuses another family's field in extra as at the top level, naming extra.<field>", () => {
    const foreign = fc.constantFrom(...models).chain((m) =>
      fc.record({
        m: fc.constant(m),
        req: validRequest(m),
        // Generic and mode fields are every family's (refused in extra as known fields), so not foreign.
        key: fc.constantFrom(
          ...foreignVideoFields(m.family).filter(
            (k) => ![...videoGenericFields, ...videoModeFields].includes(k as never)
          )
        ),
        value: fc.jsonValue()
      })
    )
    fc.assert(
      fc.property(foreign, ({ m, req, key, value }) => {
        const inExtra = Effect.runSync(Effect.result(buildVideoBody({ ...req, extra: { [key]: value } })))
        expect(Result.isFailure(inExtra)).toBe(true)
        if (Result.isFailure(inExtra)) {
          expect(inExtra.failure).toMatchObject({ field: `extra.${key}`, rule: "foreign-field" })
          expect(inExtra.failure.message).toContain(`(family ${m.family}) does not take it`)
        }
      })
    )
  })

  it("refuses 1080p and --cf in delta reference image mode, however they are given", () => {
    const lite = models.filter((m) => m.family === "delta" && m.referenceImages && m.cameraFixed)
    const req = fc.record({
      m: fc.constantFrom(...lite),
      refs: fc.array(url, { minLength: 1, maxLength: 4 }),
      setting: fc.constantFrom<[string, unknown, string]>(
        ["resolution", "1080p", "--rs 1080p"],
        ["camera_fixed", true, "--cf true"],
        ["camera_fixed", false, "--cf false"]
      ),
      asFlag: fc.boolean()
    })
    fc.assert(
      fc.property(req, ({ m, refs, setting: [field, value, flag], asFlag }) => {
        const markers = refs.map((_, i) => `[图${i + 1}]`).join(" ")
        const input = asFlag
          ? { model: m.id, prompt: `${markers} ${flag}`, reference_images: refs }
          : { model: m.id, prompt: markers, reference_images: refs, [field]: value }
        const result = Effect.runSync(Effect.result(buildVideoBody(input)))
        expect(Result.isFailure(result)).toBe(true)
        if (Result.isFailure(result)) {
          expect(result.failure.field).toBe(asFlag ? "prompt" : field)
          expect(result.failure.message).toContain("reference image mode")
          expect(result.failure.message).toContain(asFlag ? flag : field)
        }
      })
    )
  })

  it("never throws on arbitrary input and fails only with InvalidRequest", () => {
    const anything = fc.anything({
      withNullPrototype: true,
      withObjectString: true,
      withBigInt: true,
      withDate: true,
      withTypedArray: true,
      maxDepth: 4
    })
    const names = [
      "prompt",
      "image",
      "duration",
      "resolution",
      "aspect_ratio",
      ...videoModeFields,
      "seconds",
      "size",
      "durationSeconds",
      "aspectRatio",
      "lastFrame",
      "sampleCount",
      "personGeneration",
      "audio_url",
      "metadata",
      "__proto__"
    ]
    const near = fc
      .tuple(fc.constantFrom(...videoModelIds(), "beta-x", "nope"), fc.dictionary(fc.constantFrom(...names), anything))
      .map(([model, rest]) => ({ ...rest, model }))
    const content = fc.array(
      fc.oneof(
        anything,
        fc.record({
          type: fc.constantFrom("text", "image_url"),
          text: anything,
          image_url: fc.oneof(anything, fc.record({ url: anything })),
          role: anything
        })
      )
    )
    const nearDelta = fc
      .tuple(fc.constantFrom("delta-1-0-lite-i2v-250428", "delta-1-5-pro-251215"), content, anything)
      .map(([model, c, prompt]) => ({ model, prompt, metadata: { content: c } }))
    fc.assert(
      fc.property(fc.oneof(anything, near, nearDelta), (input) => {
        const exit = Effect.runSyncExit(buildVideoBody(input))
        if (Exit.isFailure(exit)) {
          const failure = Cause.findErrorOption(exit.cause)
          expect(Option.isSome(failure)).toBe(true)
          if (Option.isSome(failure)) expect(failure.value._tag).toBe("InvalidRequest")
        }
      })
    )
  })
})
