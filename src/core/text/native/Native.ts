/**
 * The native-content (zeta) request body of E10 — `contents[].parts[]`, generation and thinking
 * configuration, tools — and the model-id thinking suffixes, validated before anything is sent.
 */
import { Effect, Schema } from "effect"
import type { InvalidRequest } from "../../errors/InvalidRequest.js"
import { ensureRoute } from "../../gateway/Routing.js"
import { type RoutingOptions } from "../../gateway/Catalog.js"
import { type WithExtra, closedBody, guardReads } from "../../validation/Closed.js"
import { matching, NonBlank, nonEmptyArray, range } from "../../validation/FieldRules.js"
import * as Rules from "../../validation/Rules.js"

const Open = Schema.Record({ key: Schema.String, value: Schema.Unknown })
const opt = <S extends Schema.Schema.Any>(s: S) => Schema.optionalWith(s, { exact: true })
const { at, ifPresent } = Rules
type Check = Effect.Effect<void, InvalidRequest>

// ---------------------------------------------------------------------------------------------
// Model ids and their thinking suffixes.

/** The thinking class of a zeta model, read from its id: `2.5` (budgets), `3` (levels), or `other`. @category models */
export const NativeModelClass = Schema.Literal("2.5", "3", "other")
/** @category models */
export type NativeModelClass = typeof NativeModelClass.Type

/**
 * A thinking suffix of a model id. On the 2.5 class `-thinking` means thinking on with the dynamic
 * budget (-1) and `-nothinking` a budget of 0 (refused where the model cannot turn thinking off);
 * `-thinking-<n>` sets the budget. On the 3 class `-thinking` means the default level (HIGH),
 * `-thinking-low` / `-thinking-high` set the level, and `-nothinking` is the lowest level, MINIMAL
 * (refused where the model has no MINIMAL level, e.g. 3 Pro, which cannot turn thinking off).
 * @category models
 */
export const NativeSuffix = Schema.Union(
  Schema.TaggedStruct("thinking", {}),
  Schema.TaggedStruct("nothinking", {}),
  Schema.TaggedStruct("budget", { budget: Schema.Int }),
  Schema.TaggedStruct("level", { level: Schema.Literal("LOW", "HIGH") })
)
/** @category models */
export type NativeSuffix = typeof NativeSuffix.Type

/** A parsed zeta model id: the id as given, its base (suffix removed), class and suffix. @category models */
export const NativeModel = Schema.Struct({
  id: Schema.String,
  base: Schema.String,
  modelClass: NativeModelClass,
  suffix: opt(NativeSuffix)
})
/** @category models */
export type NativeModel = typeof NativeModel.Type

/** What thinking a model takes (protocol notes 2.6). Unknown models of a class get no range check. */
interface ThinkingProfile {
  /** Allowed budgets besides -1 (dynamic), as inclusive ranges; undefined = any integer ≥ -1. */
  readonly budgets?: ReadonlyArray<readonly [number, number]>
  readonly budgetText?: string
  /** The budgets a `-thinking-<n>` suffix may carry (greater than 0). */
  readonly suffixText?: string
  /** Allowed `thinkingLevel`s (3 class). */
  readonly levels?: ReadonlyArray<string>
}

const PROFILES: ReadonlyArray<readonly [RegExp, ThinkingProfile]> = [
  [/^zeta-2\.5-pro(?:-|$)/, { budgets: [[128, 32768]], budgetText: "-1 (dynamic) or 128 to 32768", suffixText: "128 to 32768" }],
  [/^zeta-2\.5-flash-lite(?:-|$)/, { budgets: [[0, 0], [512, 24576]], budgetText: "-1 (dynamic), 0 (off) or 512 to 24576", suffixText: "512 to 24576" }],
  [/^zeta-2\.5-flash(?:-|$)/, { budgets: [[0, 24576]], budgetText: "-1 (dynamic) or 0 to 24576", suffixText: "1 to 24576" }],
  [/^zeta-3(?:\.\d+)?-flash(?:-|$)/, { levels: ["MINIMAL", "LOW", "MEDIUM", "HIGH"] }],
  [/^zeta-3(?:\.\d+)?-/, { levels: ["LOW", "HIGH"] }]
]

const profileOf = (base: string): ThinkingProfile => PROFILES.find(([re]) => re.test(base))?.[1] ?? {}

const budgetAllowed = (profile: ThinkingProfile, budget: number): boolean =>
  budget === -1 || profile.budgets === undefined ? budget >= -1 : profile.budgets.some(([lo, hi]) => budget >= lo && budget <= hi)

const classOf = (base: string): NativeModelClass => {
  const m = /^zeta-(\d+)(?:\.(\d+))?(?:-|$)/.exec(base)
  if (m === null) return "other"
  if (m[1] === "2" && m[2] === "5") return "2.5"
  return m[1] === "3" ? "3" : "other"
}

const SUFFIX = /-(?:(nothinking)|thinking(?:-([A-Za-z0-9]+))?)$/
const SUFFIXES_TEXT = "-thinking, -thinking-<budget>, -nothinking, -thinking-low, -thinking-high"

/**
 * Parses a zeta model id into base, class and thinking suffix, and checks the suffix against the
 * class: budgets only on the 2.5 class (within the model's range where it is known), levels only on
 * the 3 class, `-nothinking` only where the model can turn thinking off.
 * @category constructors
 */
export const parseNativeModel = (model: unknown): Effect.Effect<NativeModel, InvalidRequest> =>
  Effect.gen(function* () {
    const id = yield* Rules.string(model, "model", { nonEmpty: true })
    const m = SUFFIX.exec(id)
    const base = m === null ? id : id.slice(0, m.index)
    const modelClass = classOf(base)
    if (m === null || base === "") return { id, base: id, modelClass: classOf(id) }
    const word = m[2]
    let suffix: NativeSuffix
    if (m[1] !== undefined) suffix = { _tag: "nothinking" }
    else if (word === undefined) suffix = { _tag: "thinking" }
    else if (/^\d{1,9}$/.test(word)) suffix = { _tag: "budget", budget: Number(word) }
    else if (word === "low" || word === "high") suffix = { _tag: "level", level: word === "low" ? "LOW" : "HIGH" }
    else if (modelClass === "other") return { id, base: id, modelClass: classOf(id) } // e.g. a `-thinking-exp` model name
    else return yield* Rules.notAllowed("model", id, SUFFIXES_TEXT, `the suffix -thinking-${word}`)
    if (modelClass !== "other") yield* suffixFitsClass(id, base, modelClass, suffix)
    return { id, base, modelClass, suffix }
  })

const suffixFitsClass = (id: string, base: string, modelClass: "2.5" | "3", suffix: NativeSuffix): Check => {
  const profile = profileOf(base)
  const refuse = (allowed: string) => Rules.notAllowed("model", id, allowed, `the ${modelClass} class (${base})`)
  switch (suffix._tag) {
    case "thinking":
      return Effect.void
    case "nothinking":
      if (modelClass === "2.5") return budgetAllowed(profile, 0) ? Effect.void : refuse(`${base}-thinking, ${base}-thinking-<budget> (${base} cannot turn thinking off)`)
      return profile.levels?.includes("MINIMAL") ? Effect.void : refuse(`${base}-thinking, ${base}-thinking-low, ${base}-thinking-high (${base} cannot turn thinking off)`)
    case "budget":
      if (modelClass === "3") return refuse(`${base}-thinking, ${base}-thinking-low, ${base}-thinking-high (budget suffixes are for the 2.5 class)`)
      return suffix.budget > 0 && budgetAllowed(profile, suffix.budget)
        ? Effect.void
        : refuse(`${base}-thinking-<budget> with a budget of ${profile.suffixText ?? "1 or more"}, ${base}-thinking`)
    case "level":
      return modelClass === "2.5"
        ? refuse(`${base}-thinking, ${base}-thinking-<budget>, ${base}-nothinking (level suffixes are for the 3 class)`)
        : Effect.void
  }
}

// ---------------------------------------------------------------------------------------------
// Schemas of the body. The top level is closed (E10's fields; anything else goes in `extra`). Nested
// objects, decided from E10 and protocol-notes §2.2/§2.6: closed where they name every member — a
// turn (`role`, `parts`), `inlineData` (`mimeType`, `data`), `fileData` (`mimeType`, `fileUri`),
// `generationConfig` (the §2.2 list), `thinkingConfig` (`includeThoughts`, `thinkingBudget`,
// `thinkingLevel`), `imageConfig` (`aspectRatio`, `imageSize`, `imageOutputOptions.mimeType`),
// `systemInstruction` (`parts`, upstream's `role`), a safety setting (`category`, `threshold`) and
// `toolConfig.functionCallingConfig` (`mode`, `allowedFunctionNames`). Open: a part (upstream adds
// `thought`, `thoughtSignature`, …), `functionCall`/`functionResponse`, tools and their `parameters`,
// `speechConfig`, `responseSchema`/`responseJsonSchema` (a schema).

/**
 * One part of a turn: one data kind (text, inline data, file data, a function call or response, code)
 * and its flags; a part stays open to kinds upstream adds (its members are checked where known).
 * @category schemas
 */
export const NativePartParam = Schema.Struct(
  {
    text: opt(Schema.String),
    inlineData: opt(Schema.Struct({ mimeType: NonBlank, data: NonBlank })),
    fileData: opt(Schema.Struct({ mimeType: NonBlank, fileUri: NonBlank })),
    functionCall: opt(Schema.Struct({ name: NonBlank, args: opt(Open) }, Open)),
    functionResponse: opt(Schema.Struct({ name: NonBlank, response: Open }, Open)),
    executableCode: opt(Open),
    codeExecutionResult: opt(Open),
    thought: opt(Schema.Boolean),
    thoughtSignature: opt(Schema.String)
  },
  Open
)

/** One turn: `role` `user` or `model` (absent means `user`), and its parts. @category schemas */
export const NativeContentParam = Schema.Struct({ role: opt(Schema.Literal("user", "model")), parts: nonEmptyArray(NativePartParam) })

/** `generationConfig.thinkingConfig`. @category schemas */
export const NativeThinkingConfig = Schema.Struct({
  includeThoughts: opt(Schema.Boolean),
  thinkingBudget: opt(Schema.Int),
  thinkingLevel: opt(Schema.String)
})

/** `generationConfig.imageConfig` for image output. @category schemas */
export const NativeImageConfig = Schema.Struct({
  aspectRatio: opt(Schema.String),
  imageSize: opt(Schema.String),
  imageOutputOptions: opt(Schema.Struct({ mimeType: opt(Schema.String) }))
})

/** The sampling fields of a `generationConfig`, native content's and a live setup's alike, with their rules. @category schemas */
export const nativeSamplingFields = {
  temperature: opt(Schema.Number.pipe(range({ min: 0, max: 2 }))),
  topP: opt(Schema.Number.pipe(range({ min: 0, max: 1 }))),
  topK: opt(Schema.Int.pipe(range({ min: 0 }))),
  candidateCount: opt(Schema.Int.pipe(range({ min: 1 }))),
  maxOutputTokens: opt(Schema.Int.pipe(range({ min: 0, minExclusive: true }))),
  presencePenalty: opt(Schema.Number),
  frequencyPenalty: opt(Schema.Number),
  seed: opt(Schema.Int)
}

/** `generationConfig`. @category schemas */
export const NativeGenerationConfig = Schema.Struct({
  ...nativeSamplingFields,
  stopSequences: opt(Schema.Array(Schema.String)),
  responseMimeType: opt(NonBlank),
  responseSchema: opt(Open),
  responseJsonSchema: opt(Schema.Unknown),
  responseModalities: opt(Schema.Array(Schema.String)),
  responseLogprobs: opt(Schema.Boolean),
  logprobs: opt(Schema.Int),
  mediaResolution: opt(Schema.String),
  speechConfig: opt(Open),
  thinkingConfig: opt(NativeThinkingConfig),
  imageConfig: opt(NativeImageConfig)
})

/** A tools element: function declarations, or a `vendorSearch` grounding entry on its own, or another tool. @category schemas */
export const NativeTool = Schema.Union(
  Schema.Struct(
    {
      functionDeclarations: Schema.Array(
        Schema.Struct({ name: Schema.String, description: opt(Schema.String), parameters: opt(Open) }, Open)
      )
    },
    Open
  ),
  Schema.Struct({ vendorSearch: Open }, Open),
  Open
)

/** The thresholds of a safety setting. @category models */
export const nativeSafetyThresholds = ["BLOCK_NONE", "BLOCK_ONLY_HIGH", "BLOCK_MEDIUM_AND_ABOVE", "BLOCK_LOW_AND_ABOVE", "HARM_BLOCK_THRESHOLD_UNSPECIFIED", "OFF"] as const

/** The body of POST `/v1beta/models/{model}:generateContent` and `:streamGenerateContent` (E10). @category schemas */
export const NativeBody = Schema.Struct(
  {
    contents: nonEmptyArray(NativeContentParam),
    generationConfig: opt(NativeGenerationConfig),
    systemInstruction: opt(Schema.Struct({ role: opt(Schema.String), parts: nonEmptyArray(Schema.Struct({ text: NonBlank }, Open)) })),
    safetySettings: opt(
      Schema.Array(
        Schema.Struct({
          category: Schema.String.pipe(matching(/^HARM_CATEGORY_[A-Z_]+$/, "a HARM_CATEGORY_* name such as HARM_CATEGORY_HARASSMENT")),
          threshold: Schema.Literal(...nativeSafetyThresholds)
        })
      )
    ),
    tools: opt(Schema.Array(NativeTool)),
    toolConfig: opt(
      Schema.Struct({
        functionCallingConfig: opt(
          Schema.Struct({ mode: opt(Schema.Literal("AUTO", "ANY", "NONE")), allowedFunctionNames: opt(Schema.Array(Schema.String)) })
        )
      })
    ),
    cachedContent: opt(Schema.String)
  }
)
/** @category models */
export type NativeBody = typeof NativeBody.Type
/** A native-content body as callers write it, with the `extra` escape hatch. @category models */
export type NativeBodyInput = WithExtra<NativeBody>

// ---------------------------------------------------------------------------------------------
// Validation.

/** The data kinds of a part; a part holds at most one of them. */
const PART_KINDS = ["text", "inlineData", "fileData", "functionCall", "functionResponse", "executableCode", "codeExecutionResult"]

// A part's members are rules of `NativePartParam`; that it holds exactly one data kind is this rule.
const oneKindPerPart = (body: NativeBody): Check => {
  for (const [i, content] of body.contents.entries())
    for (const [j, p] of content.parts.entries()) {
      const path = at(at(at("contents", i), "parts"), j)
      const kinds = PART_KINDS.filter((k) => Object.hasOwn(p, k) && p[k] !== undefined)
      if (kinds.length > 1)
        return Rules.fail(path, "one-of", `${path}: holds ${kinds.join(" and ")}; a part holds exactly one of ${PART_KINDS.join(", ")}`)
      if (kinds.length === 0 && Object.keys(p).length === 0)
        return Rules.fail(path, "non-empty", `${path}: an empty part; a part holds one of ${PART_KINDS.join(", ")}`)
    }
  return Effect.void
}

const TC = "generationConfig.thinkingConfig"

const contradiction = (field: string, value: unknown, model: NativeModel, allowed: string): Effect.Effect<never, InvalidRequest> =>
  Rules.fail(
    field,
    "contradiction",
    `${field}: ${Rules.describe(value)} contradicts the suffix of the model ${model.id}; allowed: ${allowed}, or a model id without the suffix`
  )

/** Validates `thinkingConfig` against the model class and suffix; answers the level normalised to upper case. */
const thinkingConfig = (value: unknown, model: NativeModel): Effect.Effect<string | undefined, InvalidRequest> =>
  Effect.gen(function* () {
    const tc = yield* Rules.record(value, TC)
    yield* ifPresent(tc, "includeThoughts", (v) => Rules.boolean(v, at(TC, "includeThoughts")))
    const budget = Rules.optional(tc, "thinkingBudget")
    const levelGiven = Rules.optional(tc, "thinkingLevel")
    if (budget !== undefined && levelGiven !== undefined)
      return yield* Rules.fail(TC, "exclusive", `${TC}: thinkingBudget and thinkingLevel are both set; allowed: one of them`)
    const profile = profileOf(model.base)
    let level: string | undefined
    if (budget !== undefined) {
      const field = at(TC, "thinkingBudget")
      if (model.modelClass === "3")
        return yield* Rules.notAllowed(field, budget, `thinkingLevel (${(profile.levels ?? ["LOW", "HIGH"]).join(", ")})`, `${model.id} (3 class)`)
      const n = yield* Rules.number(budget, field, { integer: true, min: -1, context: model.id })
      if (!budgetAllowed(profile, n))
        return yield* Rules.fail(field, "range", `${field}: ${n} is out of range for ${model.id}; allowed: ${profile.budgetText ?? "-1 or more"}`)
    }
    if (levelGiven !== undefined) {
      const field = at(TC, "thinkingLevel")
      if (model.modelClass === "2.5") return yield* Rules.notAllowed(field, levelGiven, "thinkingBudget", `${model.id} (2.5 class)`)
      const text = yield* Rules.string(levelGiven, field, { nonEmpty: true })
      // Upstream examples write "low"/"high", the SDK enum "LOW"/"HIGH": accept both, send the enum form.
      level = text.toUpperCase()
      const levels = model.modelClass === "3" ? (profile.levels ?? ["LOW", "HIGH"]) : undefined
      if (levels !== undefined && !levels.includes(level)) return yield* Rules.notAllowed(field, levelGiven, levels, model.id)
    }
    yield* suffixAgrees(tc, model, level)
    return level
  })

const suffixAgrees = (tc: Rules.Json, model: NativeModel, level: string | undefined): Check => {
  const suffix = model.suffix
  if (suffix === undefined) return Effect.void
  const budget = Rules.optional(tc, "thinkingBudget")
  const fBudget = at(TC, "thinkingBudget")
  const fLevel = at(TC, "thinkingLevel")
  switch (suffix._tag) {
    case "nothinking":
      if (budget !== undefined && budget !== 0) return contradiction(fBudget, budget, model, "0")
      if (level !== undefined && level !== "MINIMAL") return contradiction(fLevel, tc.thinkingLevel, model, "MINIMAL")
      if (Rules.optional(tc, "includeThoughts") === true) return contradiction(at(TC, "includeThoughts"), true, model, "false")
      return Effect.void
    case "thinking":
      if (budget === 0) return contradiction(fBudget, budget, model, "-1 or a budget greater than 0")
      if (level === "MINIMAL") return contradiction(fLevel, tc.thinkingLevel, model, "LOW, HIGH")
      return Effect.void
    case "budget":
      return budget !== undefined && budget !== suffix.budget ? contradiction(fBudget, budget, model, String(suffix.budget)) : Effect.void
    case "level":
      return level !== undefined && level !== suffix.level ? contradiction(fLevel, tc.thinkingLevel, model, suffix.level) : Effect.void
  }
}

const IMAGE_RATIOS = ["1:1", "2:3", "3:2", "3:4", "4:3", "4:5", "5:4", "9:16", "16:9", "21:9"]

const imageConfig = (value: unknown): Check =>
  Effect.gen(function* () {
    const f = "generationConfig.imageConfig"
    const ic = yield* Rules.record(value, f)
    yield* ifPresent(ic, "aspectRatio", (v) => Rules.oneOf(v, at(f, "aspectRatio"), IMAGE_RATIOS))
    yield* ifPresent(ic, "imageSize", (v) =>
      typeof v === "string" && /^[1-9]\d?K$/.test(v) ? Effect.void : Rules.notAllowed(at(f, "imageSize"), v, "1K, 2K, 4K (an uppercase K)")
    )
    yield* ifPresent(ic, "imageOutputOptions", (v) =>
      Effect.gen(function* () {
        const g = at(f, "imageOutputOptions")
        const o = yield* Rules.record(v, g)
        yield* ifPresent(o, "mimeType", (m) =>
          typeof m === "string" && /^image\/[a-z0-9.+-]+$/.test(m)
            ? Effect.void
            : Rules.notAllowed(at(g, "mimeType"), m, "an image MIME type such as image/png or image/jpeg")
        )
      })
    )
  })

const MODALITIES = ["TEXT", "IMAGE", "AUDIO"] as const

/** Validates `generationConfig`; answers the normalised enum fields to write back. */
const generationConfig = (
  value: unknown,
  model: NativeModel
): Effect.Effect<{ readonly level?: string; readonly modalities?: ReadonlyArray<string> }, InvalidRequest> =>
  Effect.gen(function* () {
    const f = "generationConfig"
    const gc = yield* Rules.record(value, f)
    // temperature, topP, topK, maxOutputTokens, candidateCount, stopSequences and responseMimeType:
    // their rules live in `NativeGenerationConfig`, checked when the body is sealed.
    let modalities: Array<string> | undefined
    const mv = Rules.optional(gc, "responseModalities")
    if (mv !== undefined) {
      const items = yield* Rules.array(mv, at(f, "responseModalities"), { nonEmpty: true })
      modalities = []
      for (const [i, m] of items.entries()) {
        // Accept `image` as well as `IMAGE`; the enum form is what is sent.
        const upper = typeof m === "string" ? m.toUpperCase() : m
        if (!(MODALITIES as ReadonlyArray<unknown>).includes(upper)) return yield* Rules.notAllowed(at(at(f, "responseModalities"), i), m, MODALITIES)
        modalities.push(String(upper))
      }
    }
    const tv = Rules.optional(gc, "thinkingConfig")
    const level = tv === undefined ? undefined : yield* thinkingConfig(tv, model)
    yield* ifPresent(gc, "imageConfig", imageConfig)
    return { ...(level !== undefined ? { level } : {}), ...(modalities !== undefined ? { modalities } : {}) }
  })

/** Tool kinds that must each be their own tools element. */
const OWN_ELEMENT = ["vendorSearch", "vendorSearchRetrieval", "codeExecution", "urlContext"]
const FUNCTION_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/

/** Validates `tools`; answers the declared function names. */
const tools = (body: Rules.Json): Effect.Effect<ReadonlyArray<string> | undefined, InvalidRequest> =>
  Effect.gen(function* () {
    const v = Rules.optional(body, "tools")
    if (v === undefined) return undefined
    const items = yield* Rules.array(v, "tools")
    const names: Array<string> = []
    for (const [i, item] of items.entries()) {
      const path = at("tools", i)
      const tool = yield* Rules.record(item, path)
      const decls = Rules.optional(tool, "functionDeclarations")
      const others = OWN_ELEMENT.filter((k) => Rules.optional(tool, k) !== undefined)
      if (decls !== undefined && others.length > 0)
        return yield* Rules.fail(
          at(path, others[0]!),
          "own-element",
          `${at(path, others[0]!)}: must be its own tools element, not mixed with functionDeclarations; allowed: [{functionDeclarations: [...]}, {${others[0]}: {}}]`
        )
      yield* ifPresent(tool, "vendorSearch", (s) => Rules.record(s, at(path, "vendorSearch")))
      if (decls === undefined) continue
      const df = at(path, "functionDeclarations")
      const list = yield* Rules.array(decls, df)
      for (const [j, d] of list.entries()) {
        const dp = at(df, j)
        const decl = yield* Rules.record(d, dp)
        const name = yield* Rules.requiredString(decl, "name", dp)
        if (!FUNCTION_NAME.test(name))
          return yield* Rules.notAllowed(at(dp, "name"), name, "a letter or _ then up to 127 letters, digits, _ . : or -")
        if (names.includes(name))
          return yield* Rules.fail(at(dp, "name"), "unique", `${at(dp, "name")}: ${Rules.describe(name)} is declared twice; function names must be unique`)
        names.push(name)
        yield* ifPresent(decl, "description", (s) => Rules.string(s, at(dp, "description")))
        yield* ifPresent(decl, "parameters", (s) => Rules.record(s, at(dp, "parameters")))
      }
    }
    return names
  })

const toolConfig = (body: Rules.Json, declared: ReadonlyArray<string> | undefined): Check =>
  ifPresent(body, "toolConfig", (v) =>
    Effect.gen(function* () {
      const tc = yield* Rules.record(v, "toolConfig")
      const fv = Rules.optional(tc, "functionCallingConfig")
      if (fv === undefined) return
      const f = "toolConfig.functionCallingConfig"
      const fc = yield* Rules.record(fv, f)
      const mv = Rules.optional(fc, "mode")
      const mode = mv === undefined ? undefined : yield* Rules.oneOf(mv, at(f, "mode"), ["AUTO", "ANY", "NONE"])
      const av = Rules.optional(fc, "allowedFunctionNames")
      if (av === undefined) return
      const af = at(f, "allowedFunctionNames")
      // Upstream reads the allowed names only in ANY mode; elsewhere they would be silently ignored.
      if (mode !== "ANY") return yield* Rules.fail(af, "mode", `${af}: only allowed with mode ANY; mode is ${Rules.describe(mode)}`)
      const names = yield* Rules.array(av, af)
      for (const [i, n] of names.entries()) {
        const name = yield* Rules.string(n, at(af, i), { nonEmpty: true })
        if (declared !== undefined && !declared.includes(name))
          return yield* Rules.notAllowed(at(af, i), name, declared.length === 0 ? "(no functions declared)" : declared, "the declared functions")
      }
    })
  )

/** Fields of the body whose `null` means "absent" (dropped), and `model`, which lives in the path. */
const KNOWN = new Set(Object.keys(NativeBody.fields))
const nativeBody = closedBody(NativeBody, "a native-content body", ["model"])

/**
 * Builds the native-content body (E10) for a zeta model: the model must route to native content
 * (not an embedding, image or live model), its thinking suffix must fit its class and agree with an
 * explicit `thinkingConfig`. The body never carries the model (it is in the path: `nativePaths`
 * of Routing, with the id kept as given, suffix included, since the gateway reads thinking there); a `model` field in the input must equal the model given and is left out.
 * `thinkingLevel` and `responseModalities` are sent in upper case. Unknown fields pass through.
 * @category constructors
 */
export const buildNativeBody = (model: unknown, input: unknown, options: RoutingOptions = {}): Effect.Effect<NativeBody, InvalidRequest> =>
  guardReads(Effect.gen(function* () {
    const parsed = yield* parseNativeModel(model)
    yield* ensureRoute(parsed.base, "native", options)
    const body = yield* nativeBody.open(input)
    const given = Rules.optional(body, "model")
    if (given !== undefined && given !== parsed.id)
      return yield* Rules.fail(
        "model",
        "path",
        `model: ${Rules.describe(given)} differs from the model of the path (${parsed.id}); the native-content body carries no model`
      )
    const gv = Rules.optional(body, "generationConfig")
    const normal = gv === undefined ? {} : yield* generationConfig(gv, parsed)
    const declared = yield* tools(body)
    yield* toolConfig(body, declared)
    yield* ifPresent(body, "cachedContent", (v) => Rules.string(v, "cachedContent", { nonEmpty: true }))
    const out: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(Rules.passthrough(body, ["model", "extra"]))) {
      if (value === null && KNOWN.has(key)) continue
      out[key] = Rules.sanitize(value)
    }
    const gc = out.generationConfig
    if (Rules.isRecord(gc)) {
      const next: Record<string, unknown> = { ...gc }
      if (normal.modalities !== undefined) next.responseModalities = normal.modalities
      if (normal.level !== undefined && Rules.isRecord(gc.thinkingConfig)) next.thinkingConfig = { ...gc.thinkingConfig, thinkingLevel: normal.level }
      out.generationConfig = next
    }
    const valid = yield* nativeBody.seal(body, out, parsed.id)
    yield* oneKindPerPart(valid)
    return valid
  }))

