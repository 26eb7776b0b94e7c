/**
 * The native-content (zeta) request body of E10 — `contents[].parts[]`, generation and thinking
 * configuration, tools — and the model-id thinking suffixes, validated before anything is sent.
 */
import type * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { InvalidRequest } from "../../errors/InvalidRequest.js"
import { ensureRoute } from "../../gateway/Routing.js"
import { type RoutingOptions } from "../../gateway/Catalog.js"
import { type WithExtra, closedBody, buildWith, ModelId } from "../../validation/Closed.js"
import { conform } from "../../validation/Conform.js"
import {
  acrossFields,
  described,
  detailed,
  ImageOutputType,
  Integer,
  matching,
  NonBlank,
  nonEmptyArray,
  range,
  SamplingTemperature,
  SamplingTopP
} from "../../validation/FieldRules.js"
import { describe, fail, isRecord, type Json, listAllowed, notAllowed, optional } from "../../validation/Rules.js"
import { type Paired, type PairedTurn, type PairingIssue, recordsOf, withToolPairing } from "../ToolPairing.js"

const Open = Schema.Record(Schema.String, Schema.Unknown)
// An object whose other members pass through (an index signature besides its fields).
const openStruct = <const F extends Schema.Struct.Fields>(fields: F) =>
  Schema.StructWithRest(Schema.Struct(fields), [Open])
const opt = Schema.optionalKey
type Check = Result.Result<void, InvalidRequest>

// ---------------------------------------------------------------------------------------------
// Model ids and their thinking suffixes.

/** The thinking class of a zeta model, read from its id: `2.5` (budgets), `3` (levels), or `other`. @category models */
export const NativeModelClass = Schema.Literals(["2.5", "3", "other"])
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
export const NativeSuffix = Schema.Union([
  Schema.TaggedStruct("thinking", {}),
  Schema.TaggedStruct("nothinking", {}),
  Schema.TaggedStruct("budget", { budget: Schema.Int }),
  Schema.TaggedStruct("level", { level: Schema.Literals(["LOW", "HIGH"]) })
])
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

/**
 * What thinking a model takes: its allowed thinking budgets or `thinkingLevel`s. Unknown models of a class get no
 * range check.
 */
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
  [
    /^zeta-2\.5-pro(?:-|$)/,
    { budgets: [[128, 32768]], budgetText: "-1 (dynamic) or 128 to 32768", suffixText: "128 to 32768" }
  ],
  [
    /^zeta-2\.5-flash-lite(?:-|$)/,
    {
      budgets: [
        [0, 0],
        [512, 24576]
      ],
      budgetText: "-1 (dynamic), 0 (off) or 512 to 24576",
      suffixText: "512 to 24576"
    }
  ],
  [
    /^zeta-2\.5-flash(?:-|$)/,
    { budgets: [[0, 24576]], budgetText: "-1 (dynamic) or 0 to 24576", suffixText: "1 to 24576" }
  ],
  [/^zeta-3(?:\.\d+)?-flash(?:-|$)/, { levels: ["MINIMAL", "LOW", "MEDIUM", "HIGH"] }],
  [/^zeta-3(?:\.\d+)?-/, { levels: ["LOW", "HIGH"] }]
]

const profileOf = (base: string): ThinkingProfile => PROFILES.find(([re]) => re.test(base))?.[1] ?? {}

const budgetAllowed = (profile: ThinkingProfile, budget: number): boolean =>
  budget === -1 || profile.budgets === undefined
    ? budget >= -1
    : profile.budgets.some(([lo, hi]) => budget >= lo && budget <= hi)

/**
 * The `thinkingLevel` a 3-class model takes for a level of effort: it knows LOW and HIGH only, so
 * `high` and above are HIGH and the rest (`medium` included, as the AI SDK's provider maps it) LOW.
 * @category getters
 */
export const thinkingLevelOf = (effort: string): "LOW" | "HIGH" =>
  effort === "high" || effort === "xhigh" || effort === "max" ? "HIGH" : "LOW"

/**
 * The thinking budget a 2.5-class model takes nearest to `budget` (a model id without its suffix): the
 * budget itself when the model's profile allows it (or the model has no known profile), else the
 * nearest end of its allowed ranges, the larger on a tie (-1, dynamic, is never chosen for another
 * budget). `zeta-2.5-flash` takes 32768 as 24576; `zeta-2.5-pro` takes 0 (off) as 128.
 * @category getters
 */
export const nearestThinkingBudget = (base: string, budget: number): number => {
  const profile = profileOf(base)
  if (profile.budgets === undefined || budgetAllowed(profile, budget)) return budget
  let best = budget
  let distance = Number.POSITIVE_INFINITY
  for (const [lo, hi] of profile.budgets)
    for (const end of [lo, hi]) {
      const d = Math.abs(end - budget)
      if (d < distance || (d === distance && end > best)) [best, distance] = [end, d]
    }
  return best
}

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
export const parseNativeModel = (model: unknown): Result.Result<NativeModel, InvalidRequest> => {
  // Plain code, not `Result.gen`: every native call parses its model (see `closedBody`'s `build`).
  const given = conform(ModelId, model, "model")
  if (Result.isFailure(given)) return Result.fail(given.failure)
  const id = given.success
  const m = SUFFIX.exec(id)
  const base = m === null ? id : id.slice(0, m.index)
  const modelClass = classOf(base)
  if (m === null || base === "") return Result.succeed({ id, base: id, modelClass: classOf(id) })
  const word = m[2]
  let suffix: NativeSuffix
  if (m[1] !== undefined) suffix = { _tag: "nothinking" }
  else if (word === undefined) suffix = { _tag: "thinking" }
  else if (/^\d{1,9}$/.test(word)) suffix = { _tag: "budget", budget: Number(word) }
  else if (word === "low" || word === "high") suffix = { _tag: "level", level: word === "low" ? "LOW" : "HIGH" }
  else if (modelClass === "other")
    return Result.succeed({ id, base: id, modelClass: classOf(id) }) // e.g. a `-thinking-exp` model name
  else return notAllowed("model", id, SUFFIXES_TEXT, `the suffix -thinking-${word}`)
  if (modelClass !== "other") {
    const fits = suffixFitsClass(id, base, modelClass, suffix)
    if (Result.isFailure(fits)) return Result.fail(fits.failure)
  }
  return Result.succeed({ id, base, modelClass, suffix })
}

const suffixFitsClass = (id: string, base: string, modelClass: "2.5" | "3", suffix: NativeSuffix): Check => {
  const profile = profileOf(base)
  const refuse = (allowed: string) => notAllowed("model", id, allowed, `the ${modelClass} class (${base})`)
  switch (suffix._tag) {
    case "thinking":
      return Result.void
    case "nothinking":
      if (modelClass === "2.5")
        return budgetAllowed(profile, 0)
          ? Result.void
          : refuse(`${base}-thinking, ${base}-thinking-<budget> (${base} cannot turn thinking off)`)
      return profile.levels?.includes("MINIMAL")
        ? Result.void
        : refuse(`${base}-thinking, ${base}-thinking-low, ${base}-thinking-high (${base} cannot turn thinking off)`)
    case "budget":
      if (modelClass === "3")
        return refuse(
          `${base}-thinking, ${base}-thinking-low, ${base}-thinking-high (budget suffixes are for the 2.5 class)`
        )
      return suffix.budget > 0 && budgetAllowed(profile, suffix.budget)
        ? Result.void
        : refuse(`${base}-thinking-<budget> with a budget of ${profile.suffixText ?? "1 or more"}, ${base}-thinking`)
    case "level":
      return modelClass === "2.5"
        ? refuse(`${base}-thinking, ${base}-thinking-<budget>, ${base}-nothinking (level suffixes are for the 3 class)`)
        : Result.void
  }
}

// ---------------------------------------------------------------------------------------------
// Schemas of the body. The top level is closed (E10's fields; anything else goes in `extra`). Nested
// objects, decided from E10 and upstream's request: closed where they name every member — a
// turn (`role`, `parts`), `inlineData` (`mimeType`, `data`), `fileData` (`mimeType`, `fileUri`),
// `generationConfig` (upstream's list), `thinkingConfig` (`includeThoughts`, `thinkingBudget`,
// `thinkingLevel`), `imageConfig` (`aspectRatio`, `imageSize`, `imageOutputOptions.mimeType`),
// `systemInstruction` (`parts`, upstream's `role`), a safety setting (`category`, `threshold`) and
// `toolConfig.functionCallingConfig` (`mode`, `allowedFunctionNames`). Open: a part (upstream adds
// `thought`, `thoughtSignature`, …), `functionCall`/`functionResponse`, tools and their `parameters`,
// `speechConfig`, `responseSchema`/`responseJsonSchema` (a schema).

/** The data kinds of a part; a part holds at most one of them. */
const PART_KINDS = [
  "text",
  "inlineData",
  "fileData",
  "functionCall",
  "functionResponse",
  "executableCode",
  "codeExecutionResult"
] as const

/**
 * One part of a turn: exactly one data kind (text, inline data, file data, a function call or
 * response, code) and its flags; a part stays open to kinds upstream adds (its members are checked
 * where known).
 * @category schemas
 */
export const NativePartParam = openStruct({
  text: opt(Schema.String),
  inlineData: opt(Schema.Struct({ mimeType: NonBlank, data: NonBlank })),
  fileData: opt(Schema.Struct({ mimeType: NonBlank, fileUri: NonBlank })),
  functionCall: opt(openStruct({ name: NonBlank, args: opt(Open) })),
  functionResponse: opt(openStruct({ name: NonBlank, response: Open })),
  executableCode: opt(Open),
  codeExecutionResult: opt(Open),
  thought: opt(Schema.Boolean),
  thoughtSignature: opt(Schema.String)
}).pipe(
  (self) =>
    acrossFields(
      self,
      "one-of",
      (part) => {
        const kinds = PART_KINDS.filter((k) => part[k] !== undefined)
        return kinds.length > 1
          ? { key: [], detail: `holds ${kinds.join(" and ")}; a part holds exactly one of ${PART_KINDS.join(", ")}` }
          : undefined
      },
      detailed
    ),
  (self) =>
    acrossFields(
      self,
      "non-empty",
      (part) =>
        Object.keys(part).length === 0
          ? { key: [], detail: `an empty part; a part holds one of ${PART_KINDS.join(", ")}` }
          : undefined,
      detailed
    )
)

/** One turn: `role` `user` or `model` (absent means `user`), and its parts. @category schemas */
export const NativeContentParam = Schema.Struct({
  role: opt(Schema.Literals(["user", "model"])),
  parts: nonEmptyArray(NativePartParam)
})

/** `generationConfig.thinkingConfig` (what a model takes is `nativeThinkingConfigFor`'s). @category schemas */
export const NativeThinkingConfig = Schema.Struct({
  includeThoughts: opt(Schema.Boolean),
  thinkingBudget: opt(Integer.pipe(range({ min: -1 }))),
  thinkingLevel: opt(NonBlank)
})

const IMAGE_RATIOS = ["1:1", "2:3", "3:2", "3:4", "4:3", "4:5", "5:4", "9:16", "16:9", "21:9"] as const

/** `generationConfig.imageConfig` for image output. @category schemas */
export const NativeImageConfig = Schema.Struct({
  aspectRatio: opt(Schema.Literals(IMAGE_RATIOS)),
  imageSize: opt(described(/^[1-9]\d?K$/, "1K, 2K, 4K (an uppercase K)")),
  imageOutputOptions: opt(
    Schema.Struct({
      mimeType: opt(ImageOutputType)
    })
  )
})

/** The sampling fields of a `generationConfig`, native content's and a live setup's alike, with their rules. @category schemas */
export const nativeSamplingFields = {
  temperature: opt(SamplingTemperature),
  topP: opt(SamplingTopP),
  topK: opt(Schema.Int.pipe(range({ min: 0 }))),
  // Upstream's range (1 to 8); the contract does not bound it.
  candidateCount: opt(Schema.Int.pipe(range({ min: 1, max: 8 }))),
  maxOutputTokens: opt(Schema.Int.pipe(range({ min: 0, minExclusive: true }))),
  presencePenalty: opt(Schema.Number),
  frequencyPenalty: opt(Schema.Number),
  seed: opt(Schema.Int)
}

/** The output modalities, in the enum form that is sent (`image` is accepted and sent as `IMAGE`). @category models */
export const nativeModalities = ["TEXT", "IMAGE", "AUDIO"] as const

/**
 * `generationConfig`; at most one of `responseSchema` (the OpenAPI subset) and `responseJsonSchema`
 * (JSON Schema) (rule `one-of`).
 * @category schemas
 */
export const NativeGenerationConfig = acrossFields(
  Schema.Struct({
    ...nativeSamplingFields,
    stopSequences: opt(Schema.Array(Schema.String)),
    responseMimeType: opt(NonBlank),
    responseSchema: opt(Open),
    responseJsonSchema: opt(Schema.Unknown),
    // proto3 JSON: an empty list is the field's default, the same as leaving it out.
    responseModalities: opt(Schema.Array(Schema.Literals(nativeModalities))),
    responseLogprobs: opt(Schema.Boolean),
    logprobs: opt(Schema.Int),
    mediaResolution: opt(Schema.String),
    speechConfig: opt(Open),
    thinkingConfig: opt(NativeThinkingConfig),
    imageConfig: opt(NativeImageConfig)
  }),
  "one-of",
  (config) =>
    config.responseSchema !== undefined && config.responseJsonSchema !== undefined
      ? {
          key: "responseJsonSchema",
          detail: "not allowed together with responseSchema; allowed: one of responseSchema, responseJsonSchema"
        }
      : undefined,
  detailed
)

/** Tool kinds that must each be their own tools element. */
const OWN_ELEMENT = ["vendorSearch", "vendorSearchRetrieval", "codeExecution", "urlContext"] as const
const FUNCTION_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/

/**
 * A tools element: function declarations, a `vendorSearch` grounding entry, or another tool; a
 * grounding or code tool is its own element, never mixed with function declarations. A member written
 * `null` is absent (proto3 JSON reads null as the field's default), as upstream and the emulator read it.
 * @category schemas
 */
export const NativeTool = openStruct({
  functionDeclarations: opt(
    Schema.NullOr(
      Schema.Array(
        openStruct({
          name: NonBlank.pipe(matching(FUNCTION_NAME, "a letter or _ then up to 127 letters, digits, _ . : or -")),
          description: opt(Schema.String),
          parameters: opt(Open)
        })
      )
    )
  ),
  vendorSearch: opt(Schema.NullOr(Open))
}).pipe((self) =>
  acrossFields(
    self,
    "own-element",
    (tool) => {
      const other =
        tool.functionDeclarations === undefined || tool.functionDeclarations === null
          ? undefined
          : OWN_ELEMENT.find((k) => tool[k] !== undefined && tool[k] !== null)
      return other === undefined
        ? undefined
        : {
            key: other,
            detail: `must be its own tools element, not mixed with functionDeclarations; allowed: [{functionDeclarations: [...]}, {${other}: {}}]`
          }
    },
    detailed
  )
)

/** The thresholds of a safety setting. @category models */
export const nativeSafetyThresholds = [
  "BLOCK_NONE",
  "BLOCK_ONLY_HIGH",
  "BLOCK_MEDIUM_AND_ABOVE",
  "BLOCK_LOW_AND_ABOVE",
  "HARM_BLOCK_THRESHOLD_UNSPECIFIED",
  "OFF"
] as const

const FC = ["toolConfig", "functionCallingConfig", "allowedFunctionNames"] as const

/** A turn of `functionResponse` parts and the `functionCall` parts of the turn before it. */
interface FunctionExchange {
  readonly at: number
  readonly calls: ReadonlyArray<readonly [Json, number]>
  readonly responses: ReadonlyArray<readonly [Json, number]>
}

/** The `member` objects (`functionCall`, `functionResponse`) of a turn's parts, with their part indexes. */
const partsOf = (turn: unknown, member: string): ReadonlyArray<readonly [Json, number]> =>
  isRecord(turn)
    ? recordsOf(turn.parts).flatMap(([part, j]) => {
        const value = part[member]
        return isRecord(value) ? [[value, j] as const] : []
      })
    : []

/** The `field` (name or id) of each of `side`, where it carries one, with its path in `contents[turn]`. */
const pairedBy = (
  side: ReadonlyArray<readonly [Json, number]>,
  turn: number,
  member: string,
  field: "name" | "id"
): Array<Paired> =>
  side.flatMap(([value, j]) =>
    value[field] === undefined ? [] : [{ id: value[field], key: ["contents", turn, "parts", j, member, field] }]
  )

/** Every turn holding `functionResponse` parts, with the calls of the model turn right before it. */
const functionExchanges = (body: { readonly contents: ReadonlyArray<unknown> }): Array<FunctionExchange> =>
  body.contents.flatMap((content, at) => {
    const responses = partsOf(content, "functionResponse")
    if (responses.length === 0) return []
    const previous = body.contents[at - 1]
    const calls = isRecord(previous) && previous.role === "model" ? partsOf(previous, "functionCall") : []
    return [{ at, calls, responses }]
  })

/**
 * The function exchanges as `PairedTurn`s: responses answer calls by name, and by id too where the
 * calls carry ids (a response without one is matched by name alone).
 */
const functionTurns = (body: { readonly contents: ReadonlyArray<unknown> }): Array<PairedTurn> =>
  functionExchanges(body).flatMap(({ at, calls, responses }) => {
    const callsWhere = at === 0 ? "no turn before it" : `the functionCall parts of contents[${at - 1}]`
    const byName: PairedTurn = {
      calls: pairedBy(calls, at - 1, "functionCall", "name"),
      callsWhere,
      results: pairedBy(responses, at, "functionResponse", "name"),
      complete: false
    }
    const callIds = pairedBy(calls, at - 1, "functionCall", "id")
    return callIds.length === 0
      ? [byName]
      : [
          byName,
          { calls: callIds, callsWhere, results: pairedBy(responses, at, "functionResponse", "id"), complete: false }
        ]
  })

/** A turn of responses that does not hold one response a call of the turn it answers. */
const responseCount = (body: { readonly contents: ReadonlyArray<unknown> }): PairingIssue | undefined => {
  const uneven = functionExchanges(body).find(({ calls, responses }) => calls.length !== responses.length)
  return uneven === undefined
    ? undefined
    : {
        key: ["contents", uneven.at, "parts"],
        detail: `${uneven.responses.length} functionResponse parts answer ${uneven.calls.length} functionCall parts of contents[${uneven.at - 1}]; one response a call`
      }
}

/** The function names the tools of a body declare, or `undefined` when it has no tools. */
const declaredFunctions = (
  tools: ReadonlyArray<typeof NativeTool.Type> | undefined
): ReadonlyArray<string> | undefined => tools?.flatMap((tool) => (tool.functionDeclarations ?? []).map((d) => d.name))

/**
 * The body of POST `/v1beta/models/{model}:generateContent` and `:streamGenerateContent` (E10), with
 * its rules across fields: function names declared once; `allowedFunctionNames` only in mode ANY and
 * naming declared functions.
 * @category schemas
 */
export const NativeBody = Schema.Struct({
  contents: nonEmptyArray(NativeContentParam),
  generationConfig: opt(NativeGenerationConfig),
  systemInstruction: opt(
    Schema.Struct({ role: opt(Schema.String), parts: nonEmptyArray(openStruct({ text: NonBlank })) })
  ),
  safetySettings: opt(
    Schema.Array(
      Schema.Struct({
        category: Schema.String.pipe(
          matching(/^HARM_CATEGORY_[A-Z_]+$/, "a HARM_CATEGORY_* name such as HARM_CATEGORY_HARASSMENT")
        ),
        threshold: Schema.Literals(nativeSafetyThresholds)
      })
    )
  ),
  tools: opt(Schema.Array(NativeTool)),
  toolConfig: opt(
    Schema.Struct({
      functionCallingConfig: opt(
        Schema.Struct({
          mode: opt(Schema.Literals(["AUTO", "ANY", "NONE"])),
          allowedFunctionNames: opt(Schema.Array(NonBlank))
        })
      )
    })
  ),
  cachedContent: opt(NonBlank)
}).pipe(
  withToolPairing(functionTurns),
  (self) => acrossFields(self, "complete", responseCount, detailed),
  (self) =>
    acrossFields(
      self,
      "unique",
      (body) => {
        const names: Array<string> = []
        for (const [i, tool] of (body.tools ?? []).entries())
          for (const [j, d] of (tool.functionDeclarations ?? []).entries()) {
            if (names.includes(d.name))
              return {
                key: ["tools", i, "functionDeclarations", j, "name"],
                detail: `${describe(d.name)} is declared twice; function names must be unique`
              }
            names.push(d.name)
          }
        return undefined
      },
      detailed
    ),
  // Upstream reads the allowed names only in ANY mode; elsewhere they would be silently ignored.
  (self) =>
    acrossFields(
      self,
      "mode",
      (body) => {
        const fc = body.toolConfig?.functionCallingConfig
        return fc?.allowedFunctionNames !== undefined && fc.mode !== "ANY"
          ? { key: FC, detail: `only allowed with mode ANY; mode is ${describe(fc.mode)}` }
          : undefined
      },
      detailed
    ),
  (self) =>
    acrossFields(
      self,
      "one-of",
      (body) => {
        const declared = declaredFunctions(body.tools)
        const names = body.toolConfig?.functionCallingConfig?.allowedFunctionNames ?? []
        const i = declared === undefined ? -1 : names.findIndex((n) => !declared.includes(n))
        if (declared === undefined || i === -1) return undefined
        const allowed = declared.length === 0 ? "(no functions declared)" : listAllowed(declared)
        return {
          key: [...FC, i],
          detail: `${describe(names[i])} is not allowed for the declared functions; allowed: ${allowed}`
        }
      },
      detailed
    )
)
/** @category models */
export type NativeBody = typeof NativeBody.Type
/** A native-content body as callers write it, with the `extra` escape hatch. @category models */
export type NativeBodyInput = WithExtra<NativeBody>

// ---------------------------------------------------------------------------------------------
// What a model takes in its thinkingConfig.

const TC = "generationConfig.thinkingConfig"

type ThinkingConfig = typeof NativeThinkingConfig.Type
type Found = { readonly key: PropertyKey | ReadonlyArray<PropertyKey>; readonly detail: string } | undefined

const contradiction = (key: keyof ThinkingConfig, value: unknown, model: NativeModel, allowed: string): Found => ({
  key,
  detail: `${describe(value)} contradicts the suffix of the model ${model.id}; allowed: ${allowed}, or a model id without the suffix`
})

/** The rules of a model's thinkingConfig, in the order they are checked: each rule's name and its check. */
const thinkingChecks = (model: NativeModel): ReadonlyArray<readonly [string, (tc: ThinkingConfig) => Found]> => {
  const profile = profileOf(model.base)
  const levels = model.modelClass === "3" ? (profile.levels ?? ["LOW", "HIGH"]) : undefined
  const upper = (tc: ThinkingConfig) => tc.thinkingLevel?.toUpperCase()
  return [
    [
      "exclusive",
      (tc) =>
        tc.thinkingBudget !== undefined && tc.thinkingLevel !== undefined
          ? { key: [], detail: "thinkingBudget and thinkingLevel are both set; allowed: one of them" }
          : undefined
    ],
    [
      "one-of",
      // The 3 class still takes a thinkingBudget alone, for backward compatibility (protocol notes §2.6).
      (tc) => {
        if (tc.thinkingLevel !== undefined && model.modelClass === "2.5")
          return {
            key: "thinkingLevel",
            detail: `${describe(tc.thinkingLevel)} is not allowed for ${model.id} (2.5 class); allowed: thinkingBudget`
          }
        // Upstream examples write "low"/"high", the SDK enum "LOW"/"HIGH": both are taken, the enum form is sent.
        const level = upper(tc)
        if (level !== undefined && levels !== undefined && !levels.includes(level))
          return {
            key: "thinkingLevel",
            detail: `${describe(tc.thinkingLevel)} is not allowed for ${model.id}; allowed: ${listAllowed(levels)}`
          }
        return undefined
      }
    ],
    [
      "range",
      (tc) =>
        tc.thinkingBudget !== undefined && !budgetAllowed(profile, tc.thinkingBudget)
          ? {
              key: "thinkingBudget",
              detail: `${tc.thinkingBudget} is out of range for ${model.id}; allowed: ${profile.budgetText ?? "-1 or more"}`
            }
          : undefined
    ],
    [
      "contradiction",
      (tc) => {
        const { thinkingBudget: budget } = tc
        const level = upper(tc)
        switch (model.suffix?._tag) {
          case undefined:
            return undefined
          case "nothinking":
            if (budget !== undefined && budget !== 0) return contradiction("thinkingBudget", budget, model, "0")
            if (level !== undefined && level !== "MINIMAL")
              return contradiction("thinkingLevel", tc.thinkingLevel, model, "MINIMAL")
            if (tc.includeThoughts === true) return contradiction("includeThoughts", true, model, "false")
            return undefined
          case "thinking":
            if (budget === 0) return contradiction("thinkingBudget", budget, model, "-1 or a budget greater than 0")
            if (level === "MINIMAL") return contradiction("thinkingLevel", tc.thinkingLevel, model, "LOW, HIGH")
            return undefined
          case "budget":
            return budget !== undefined && budget !== model.suffix.budget
              ? contradiction("thinkingBudget", budget, model, String(model.suffix.budget))
              : undefined
          case "level":
            if (budget !== undefined)
              return contradiction("thinkingBudget", budget, model, `thinkingLevel ${model.suffix.level}`)
            return level !== undefined && level !== model.suffix.level
              ? contradiction("thinkingLevel", tc.thinkingLevel, model, model.suffix.level)
              : undefined
        }
      }
    ]
  ]
}

// Builders are on the request path: a model's Schema is made once (a bounded cache of model ids).
const thinkingSchemas = new Map<string, Schema.Codec<ThinkingConfig, typeof NativeThinkingConfig.Encoded>>()

/**
 * The thinkingConfig a zeta model takes, as a Schema: its class says budget (2.5) or level (3; a
 * budget alone is still taken there, for backward compatibility, never both), its profile the budgets
 * and levels allowed, and its suffix what an explicit setting must agree with
 * ("thinkingBudget: 0 contradicts the suffix of the model zeta-2.5-flash-thinking; …").
 * @category schemas
 */
export const nativeThinkingConfigFor = (
  model: NativeModel
): Schema.Codec<ThinkingConfig, typeof NativeThinkingConfig.Encoded> => {
  const known = thinkingSchemas.get(model.id)
  if (known !== undefined) return known
  const schema = thinkingChecks(model).reduce<Schema.Codec<ThinkingConfig, typeof NativeThinkingConfig.Encoded>>(
    (self, [rule, check]) => acrossFields(self, rule, check, detailed),
    NativeThinkingConfig
  )
  if (thinkingSchemas.size >= 256) thinkingSchemas.clear()
  thinkingSchemas.set(model.id, schema)
  return schema
}

// ---------------------------------------------------------------------------------------------
// The builder.

const nativeBody = closedBody(NativeBody, "a native-content body", ["model"])

// `image` is taken for `IMAGE`; a value of no modality is left as given, for the Schema to name.
const modality = (m: unknown): unknown => {
  const upper = typeof m === "string" ? m.toUpperCase() : m
  return nativeModalities.some((x) => x === upper) ? upper : m
}

/**
 * Builds the native-content body (E10) for a zeta model: the model must route to native content
 * (not an embedding, image or live model), its thinking suffix must fit its class and agree with an
 * explicit `thinkingConfig` (`nativeThinkingConfigFor`). The body never carries the model (it is in
 * the path: `nativePaths` of Routing, with the id kept as given, suffix included, since the gateway
 * reads thinking there); a `model` field in the input must equal the model given and is left out.
 * `thinkingLevel` and `responseModalities` are sent in upper case. Fields umg does not know yet travel
 * in `extra`.
 * @category constructors
 */
export const buildNativeBody = (
  model: unknown,
  input: unknown,
  options: RoutingOptions = {}
): Effect.Effect<NativeBody, InvalidRequest> =>
  buildWith<NativeBody>(() => {
    const parsed = parseNativeModel(model)
    if (Result.isFailure(parsed)) return Result.fail(parsed.failure)
    const { id } = parsed.success
    const routed = ensureRoute(parsed.success.base, "native", options)
    if (Result.isFailure(routed)) return Result.fail(routed.failure)
    const opened = nativeBody.open(input)
    if (Result.isFailure(opened)) return Result.fail(opened.failure)
    const body = opened.success
    const given = optional(body, "model")
    if (given !== undefined && given !== id)
      return fail(
        "model",
        "path",
        `model: ${describe(given)} differs from the model of the path (${id}); the native-content body carries no model`
      )
    const out = nativeBody.pick(body)
    const gc = out.generationConfig
    if (isRecord(gc) && Array.isArray(gc.responseModalities))
      out.generationConfig = { ...gc, responseModalities: gc.responseModalities.map(modality) }
    // What the model takes in thinkingConfig is checked first: the model is the first thing a caller chose.
    const thinking = isRecord(gc) ? gc.thinkingConfig : undefined
    if (thinking !== undefined) {
      const fits = conform(nativeThinkingConfigFor(parsed.success), thinking, TC, id)
      if (Result.isFailure(fits)) return Result.fail(fits.failure)
    }
    const sealed = nativeBody.seal(body, out, id)
    if (Result.isFailure(sealed)) return sealed
    const valid = sealed.success
    const tc = valid.generationConfig?.thinkingConfig
    const level = tc?.thinkingLevel?.toUpperCase()
    return level === undefined || valid.generationConfig === undefined
      ? sealed
      : Result.succeed({
          ...valid,
          generationConfig: { ...valid.generationConfig, thinkingConfig: { ...tc, thinkingLevel: level } }
        })
  })
