/**
 * The native-content (zeta, E10) request as the emulator reads it: the model id with its thinking
 * suffix, the checks that answer 400 `INVALID_ARGUMENT`, and the thinking that applies.
 */
import { IMAGE_OUTPUT_TYPES } from "../../media/Images.js"
import { textOf } from "../TextGen.js"
import { suffixProblem, thinkingConfigProblem, type ThinkingSuffix } from "./NativeThinking.js"

type Obj = Record<string, unknown>

/** The most candidates one request may ask for (upstream's range is 1 to 8). */
const MAX_CANDIDATES = 8

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)
const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v)

/** A model id split into its base and its thinking suffix (`-thinking`, `-thinking-8192`, `-nothinking`, `-thinking-low|high`). */
export interface NativeModel {
  readonly base: string
  readonly suffix: ThinkingSuffix | undefined
}

/** Splits the thinking suffix off a model id. */
export const parseNativeModel = (id: string): NativeModel => {
  const m = /^(.*?)-(nothinking|thinking(?:-(\d+|low|high))?)$/.exec(id)
  if (m === null) return { base: id, suffix: undefined }
  if (m[2] === "nothinking") return { base: m[1]!, suffix: { on: false } }
  const arg = m[3]
  if (arg === undefined) return { base: m[1]!, suffix: { on: true } }
  return {
    base: m[1]!,
    suffix: /^\d+$/.test(arg) ? { on: true, budget: Number(arg) } : { on: true, level: arg.toUpperCase() }
  }
}

const camel = (key: string): string => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())

/** Renames an object's own keys to lowerCamelCase, leaving values alone. */
const camelKeys = (v: unknown): unknown =>
  isObj(v) ? Object.fromEntries(Object.entries(v).map(([k, x]) => [camel(k), x])) : v

const camelParts = (content: unknown): unknown => {
  const c = camelKeys(content)
  if (!isObj(c) || !Array.isArray(c.parts)) return c
  // Inside a part, rename the part's fields and those of `inlineData`/`fileData`, not function args or responses.
  const part = (p: unknown): unknown =>
    isObj(p)
      ? Object.fromEntries(
          Object.entries(camelKeys(p) as Obj).map(([k, x]) => [
            k,
            k === "functionCall" || k === "functionResponse" ? x : camelKeys(x)
          ])
        )
      : p
  return { ...c, parts: c.parts.map(part) }
}

/**
 * The body with proto-JSON snake_case names (`generation_config`, `inline_data`, `thinking_budget`, …)
 * renamed to lowerCamelCase, as the upstream accepts both. Only message fields are renamed, never
 * user data such as function parameter schemas or arguments.
 */
export const normaliseNative = (body: Obj): Obj => {
  const out = camelKeys(body) as Obj
  if (Array.isArray(out.contents)) out.contents = out.contents.map(camelParts)
  if (out.systemInstruction !== undefined) out.systemInstruction = camelParts(out.systemInstruction)
  const g = camelKeys(out.generationConfig)
  if (isObj(g)) {
    if (g.thinkingConfig !== undefined) g.thinkingConfig = camelKeys(g.thinkingConfig)
    const image = camelKeys(g.imageConfig)
    if (isObj(image))
      g.imageConfig = {
        ...image,
        ...(image.imageOutputOptions === undefined ? {} : { imageOutputOptions: camelKeys(image.imageOutputOptions) })
      }
    out.generationConfig = g
  }
  const tc = camelKeys(out.toolConfig)
  if (isObj(tc))
    out.toolConfig = {
      ...tc,
      ...(tc.functionCallingConfig === undefined ? {} : { functionCallingConfig: camelKeys(tc.functionCallingConfig) })
    }
  if (Array.isArray(out.tools)) out.tools = out.tools.map(camelKeys)
  return out
}

const TOP_LEVEL = new Set([
  "contents",
  "generationConfig",
  "systemInstruction",
  "safetySettings",
  "tools",
  "toolConfig",
  "cachedContent",
  "labels"
])
// The contract's modes (E10); upstream also has VALIDATED, but where the two differ the contract wins.
const MODES = ["AUTO", "ANY", "NONE"]
const MODALITIES = ["TEXT", "IMAGE", "AUDIO"]

/** A `systemInstruction` that is not a content of at least one part. */
const systemProblem = (system: unknown): string | undefined =>
  system === undefined || (isObj(system) && Array.isArray(system.parts) && system.parts.length > 0)
    ? undefined
    : "* GenerateContentRequest.system_instruction: must be a content with at least one part"

/** Upstream's HarmBlockThreshold values. */
const THRESHOLDS = [
  "HARM_BLOCK_THRESHOLD_UNSPECIFIED",
  "BLOCK_LOW_AND_ABOVE",
  "BLOCK_MEDIUM_AND_ABOVE",
  "BLOCK_ONLY_HIGH",
  "BLOCK_NONE",
  "OFF"
]

/** A safety setting whose category is not a HARM_CATEGORY_* name, or whose threshold is not a HarmBlockThreshold. */
const safetyProblem = (settings: unknown): string | undefined => {
  if (settings === undefined) return undefined
  const i = Array.isArray(settings)
    ? settings.findIndex((x: unknown) => !isObj(x) || !/^HARM_CATEGORY_[A-Z_]+$/.test(textOf(x.category)))
    : 0
  if (i !== -1)
    return `Invalid JSON payload received. Invalid value at 'safety_settings[${i}].category': not a HarmCategory`
  const j = (settings as ReadonlyArray<Obj>).findIndex((x) => !THRESHOLDS.includes(textOf(x.threshold)))
  return j === -1
    ? undefined
    : `Invalid JSON payload received. Invalid value at 'safety_settings[${j}].threshold': not a HarmBlockThreshold`
}

/** Tool kinds that are each their own tools element, never beside `functionDeclarations` (E10). */
const OWN_ELEMENT = ["vendorSearch", "vendorSearchRetrieval", "codeExecution", "urlContext"]

/**
 * A function declaration's name, as upstream documents it (and the client checks it): a letter or
 * `_`, then letters, digits, `_`, `.`, `:` or `-`, 128 characters at most.
 */
const FUNCTION_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/

/**
 * The first function declaration of a tools element that is not an object with a well-formed name,
 * or whose name was declared before (`seen`, across the tools elements).
 */
const declarationsProblem = (declarations: unknown, i: number, seen: Set<string>): string | undefined => {
  if (declarations === undefined || declarations === null) return undefined
  const at = `* GenerateContentRequest.tools[${i}].function_declarations`
  if (!Array.isArray(declarations)) return `${at}: must be an array of function declarations`
  for (let j = 0; j < declarations.length; j++) {
    const d: unknown = declarations[j]
    if (!isObj(d) || typeof d.name !== "string" || !FUNCTION_NAME.test(d.name))
      return `${at}[${j}].name: Invalid function name. Must start with a letter or an underscore, then letters, digits, underscores, dots, colons or dashes, with a maximum length of 128.`
    if (seen.has(d.name)) return `${at}[${j}].name: Duplicate function declaration found: ${d.name}`
    seen.add(d.name)
  }
  return undefined
}

/** `tools`: an array of objects, a grounding or code tool in an element of its own, function names well formed and unique. */
const toolsProblem = (tools: unknown): string | undefined => {
  if (tools === undefined) return undefined
  if (!(Array.isArray(tools) && tools.every(isObj)))
    return "* GenerateContentRequest.tools: must be an array of objects"
  const present = (tool: Obj, key: string) => tool[key] !== undefined && tool[key] !== null
  const seen = new Set<string>()
  for (let i = 0; i < tools.length; i++) {
    const tool = tools[i] as Obj
    const other = present(tool, "functionDeclarations") ? OWN_ELEMENT.find((k) => present(tool, k)) : undefined
    if (other !== undefined)
      return `* GenerateContentRequest.tools[${i}]: ${other} must be its own tools element, not beside function_declarations`
    const declarations = declarationsProblem(tool.functionDeclarations, i, seen)
    if (declarations !== undefined) return declarations
  }
  return undefined
}

/** The aspect ratios `imageConfig.aspectRatio` takes (the client's list). */
const IMAGE_RATIOS = ["1:1", "2:3", "3:2", "3:4", "4:3", "4:5", "5:4", "9:16", "16:9", "21:9"]

/**
 * `imageConfig`: an `aspectRatio` of the list, an `imageSize` like `1K`, `2K`, `4K` (an uppercase K), an
 * `imageOutputOptions.mimeType` the emulator makes (the images endpoint's `mime_type`).
 */
const imageConfigProblem = (config: unknown): string | undefined => {
  const at = "* GenerateContentRequest.generation_config.image_config"
  const ratio = isObj(config) ? config.aspectRatio : undefined
  if (ratio !== undefined && !(typeof ratio === "string" && IMAGE_RATIOS.includes(ratio)))
    return `${at}.aspect_ratio: must be one of ${IMAGE_RATIOS.join(", ")}`
  const size = isObj(config) ? config.imageSize : undefined
  if (size !== undefined && !(typeof size === "string" && /^[1-9]\d?K$/.test(size)))
    return `${at}.image_size: must be 1K, 2K or 4K (an uppercase K)`
  const options = isObj(config) ? config.imageOutputOptions : undefined
  const mimeType = isObj(options) ? options.mimeType : undefined
  return mimeType === undefined || (typeof mimeType === "string" && IMAGE_OUTPUT_TYPES.includes(mimeType))
    ? undefined
    : `* GenerateContentRequest.generation_config.image_config.image_output_options.mime_type: must be one of ${IMAGE_OUTPUT_TYPES.join(", ")}`
}

/** E10's checks; the message of the first failure, in the upstream's wording where it has one. */
export const validateNative = (body: Obj, model: NativeModel): string | undefined => {
  const suffix = suffixProblem(model)
  if (suffix !== undefined) return suffix
  for (const key of Object.keys(body))
    if (!TOP_LEVEL.has(key)) return `Invalid JSON payload received. Unknown name "${key}": Cannot find field.`
  if (body.contents === undefined) return "* GenerateContentRequest.contents: contents is not specified"
  if (!Array.isArray(body.contents) || body.contents.length === 0)
    return "* GenerateContentRequest.contents: contents must be a non-empty array"
  for (let i = 0; i < body.contents.length; i++) {
    const c: unknown = body.contents[i]
    if (!isObj(c)) return `* GenerateContentRequest.contents[${i}]: must be an object`
    if (c.role !== undefined && c.role !== "user" && c.role !== "model")
      return `* GenerateContentRequest.contents[${i}].role: must be user or model`
    if (!Array.isArray(c.parts) || c.parts.length === 0)
      return `* GenerateContentRequest.contents[${i}].parts: contents.parts must not be empty`
    if (!c.parts.every(isObj)) return `* GenerateContentRequest.contents[${i}].parts: each part must be an object`
    if (c.parts.some((part) => Object.keys(part as Obj).length === 0))
      return `* GenerateContentRequest.contents[${i}].parts: a part must hold one of text, inline_data, file_data, function_call, function_response`
    for (let j = 0; j < c.parts.length; j++) {
      const part = c.parts[j] as Obj
      for (const media of ["inlineData", "fileData"] as const) {
        const m = part[media]
        if (m === undefined) continue
        if (!isObj(m) || typeof m.mimeType !== "string" || m.mimeType.length === 0)
          return `* GenerateContentRequest.contents[${i}].parts[${j}].${media}.mime_type: mime_type is not specified`
      }
    }
  }
  const framing = systemProblem(body.systemInstruction) ?? safetyProblem(body.safetySettings)
  if (framing !== undefined) return framing
  const g = body.generationConfig
  if (g !== undefined) {
    if (!isObj(g)) return "* GenerateContentRequest.generationConfig: must be an object"
    if (g.temperature !== undefined && (!isNum(g.temperature) || g.temperature < 0 || g.temperature > 2))
      return "* GenerateContentRequest.generation_config.temperature: must be between 0 and 2"
    if (g.topP !== undefined && (!isNum(g.topP) || g.topP < 0 || g.topP > 1))
      return "* GenerateContentRequest.generation_config.top_p: must be between 0 and 1"
    if (
      g.maxOutputTokens !== undefined &&
      (!isNum(g.maxOutputTokens) || !Number.isInteger(g.maxOutputTokens) || g.maxOutputTokens <= 0)
    )
      return "* GenerateContentRequest.generation_config.max_output_tokens: must be a positive integer"
    for (const [name, wire, least] of [
      ["topK", "top_k", 0],
      ["candidateCount", "candidate_count", 1]
    ] as const) {
      const v = g[name]
      if (v !== undefined && (!isNum(v) || !Number.isInteger(v) || v < least))
        return `* GenerateContentRequest.generation_config.${wire}: must be an integer >= ${least}`
    }
    // Upstream's bound, and the emulator's: each candidate is planned and held whole.
    if (isNum(g.candidateCount) && g.candidateCount > MAX_CANDIDATES)
      return `* GenerateContentRequest.generation_config.candidate_count: must be at most ${MAX_CANDIDATES}`
    if (g.seed !== undefined && (!isNum(g.seed) || !Number.isInteger(g.seed)))
      return "* GenerateContentRequest.generation_config.seed: must be an integer"
    if (
      g.stopSequences !== undefined &&
      !(Array.isArray(g.stopSequences) && g.stopSequences.every((x) => typeof x === "string"))
    )
      return "* GenerateContentRequest.generation_config.stop_sequences: must be an array of strings"
    const modalities = g.responseModalities
    if (
      modalities !== undefined &&
      !(Array.isArray(modalities) && modalities.every((x) => MODALITIES.includes(textOf(x).toUpperCase())))
    )
      return "* GenerateContentRequest.generation_config.response_modalities: must be TEXT, IMAGE or AUDIO"
    if (g.thinkingConfig !== undefined) {
      const thinking = thinkingConfigProblem(g.thinkingConfig, model)
      if (thinking !== undefined) return thinking
    }
    if (g.responseSchema !== undefined && g.responseJsonSchema !== undefined)
      return "* GenerateContentRequest.generation_config.response_json_schema: must not be set together with response_schema"
    const image = imageConfigProblem(g.imageConfig)
    if (image !== undefined) return image
  }
  if (body.cachedContent !== undefined && !(typeof body.cachedContent === "string" && body.cachedContent.trim() !== ""))
    return "* GenerateContentRequest.cached_content: must be the name of a cached content"
  return toolConfigProblem(body.toolConfig, body.tools) ?? toolsProblem(body.tools)
}

/** The function names the tools declare, or `undefined` when there are no tools. */
const declaredNames = (tools: unknown): ReadonlyArray<unknown> | undefined =>
  Array.isArray(tools)
    ? tools.flatMap((t: unknown) =>
        isObj(t) && Array.isArray(t.functionDeclarations)
          ? t.functionDeclarations.map((d: unknown) => (isObj(d) ? d.name : undefined))
          : []
      )
    : undefined

/**
 * `toolConfig.functionCallingConfig`: a mode of the contract's, and `allowedFunctionNames` only with
 * mode ANY (upstream reads them in no other mode), each naming a declared function.
 */
const toolConfigProblem = (tc: unknown, tools: unknown): string | undefined => {
  if (tc === undefined) return undefined
  const at = "* GenerateContentRequest.tool_config.function_calling_config"
  const fc = isObj(tc) && isObj(tc.functionCallingConfig) ? tc.functionCallingConfig : {}
  if (fc.mode !== undefined && !MODES.includes(textOf(fc.mode))) return `${at}.mode: must be AUTO, ANY or NONE`
  const names = fc.allowedFunctionNames
  if (names === undefined) return undefined
  if (fc.mode !== "ANY") return `${at}.allowed_function_names: only allowed when the mode is ANY`
  if (!(Array.isArray(names) && names.every((n) => typeof n === "string" && n.trim() !== "")))
    return `${at}.allowed_function_names: must be an array of function names`
  const declared = declaredNames(tools)
  const unknown = declared === undefined ? undefined : names.find((n) => !declared.includes(n))
  return unknown === undefined
    ? undefined
    : `${at}.allowed_function_names: ${String(unknown).slice(0, 128)} is not a declared function`
}

/** Whether the model thinks for this request, how many thought tokens, and whether thoughts are returned. */
export interface Thinking {
  readonly on: boolean
  readonly tokens: number
  readonly includeThoughts: boolean
}

/** The thinking that applies: suffix first, then `thinkingConfig`, then the model's default. */
export const thinkingOf = (body: Obj, model: NativeModel, isImageModel: boolean): Thinking => {
  const g = isObj(body.generationConfig) ? body.generationConfig : {}
  const t = isObj(g.thinkingConfig) ? g.thinkingConfig : {}
  const includeThoughts = t.includeThoughts === true
  const level =
    model.suffix?.level ?? (t.thinkingLevel === undefined ? undefined : textOf(t.thinkingLevel).toUpperCase())
  const budget = model.suffix?.budget ?? (isNum(t.thinkingBudget) ? t.thinkingBudget : undefined)
  const on = model.suffix !== undefined ? model.suffix.on : budget === 0 || level === "MINIMAL" ? false : !isImageModel
  if (!on) return { on: false, tokens: 0, includeThoughts: false }
  const byLevel: Record<string, number> = { LOW: 24, MEDIUM: 48, HIGH: 96 }
  const tokens =
    budget !== undefined && budget > 0 ? Math.min(budget, 64) : level !== undefined ? (byLevel[level] ?? 48) : 48
  return { on: true, tokens, includeThoughts }
}
