/**
 * The emulator's check of a family delta body: `metadata.content` items, image roles per model and
 * the marker flags inside the text item (`--rs 720p --dur 5 …`), as the contract's delta rules say.
 */
import { invalid, MAX_MEDIA_CHARS, MAX_PROMPT_CHARS, type VideoCheck } from "./VideoCheck.js"

const reject = (param: string, message: string, code: string = "invalid_value"): VideoCheck =>
  invalid(param, message, code)

/** Content items accepted per request; the contract gives no number, lite reference mode uses up to 4 images. */
const MAX_ITEMS = 8
const MAX_TEXT = MAX_PROMPT_CHARS
const MAX_URL = MAX_MEDIA_CHARS

type Flag = "resolution" | "ratio" | "duration" | "framespersecond" | "seed" | "watermark" | "camerafixed"

/** Short and long spellings of each flag (`--rt` is the upstream short form of `--ratio`, tolerated). */
const FLAG_NAMES: ReadonlyMap<string, Flag> = new Map([
  ["rs", "resolution"],
  ["resolution", "resolution"],
  ["ratio", "ratio"],
  ["rt", "ratio"],
  ["dur", "duration"],
  ["duration", "duration"],
  ["fps", "framespersecond"],
  ["framespersecond", "framespersecond"],
  ["seed", "seed"],
  ["wm", "watermark"],
  ["watermark", "watermark"],
  ["cf", "camerafixed"],
  ["camerafixed", "camerafixed"]
])

const FLAG = /(?:^|\s)--([A-Za-z]+)(?:\s+([^\s-][^\s]*|-1))?(?=\s|$)/g

/** A text without its marker flags: what a top-level prompt and the text item must both say. */
const withoutFlags = (text: string): string => text.replace(FLAG, "").trim()

/**
 * Reads the `--name value` flags of a text item; unknown flags and missing values are errors. Names are
 * matched in any letter case (`--RS` is `--rs`, checked like it); values are not (`--rs 1080P` is refused).
 */
export const readFlags = (text: string): { readonly flags: ReadonlyMap<Flag, string> } | { readonly error: string } => {
  const flags = new Map<Flag, string>()
  for (const m of text.matchAll(FLAG)) {
    const flag = FLAG_NAMES.get(m[1]!.toLowerCase())
    if (flag === undefined)
      return {
        error: `unknown marker flag --${m[1]!.slice(0, 40)}; allowed: ${[...FLAG_NAMES.keys()].map((n) => `--${n}`).join(", ")}`
      }
    if (m[2] === undefined) return { error: `marker flag --${m[1]} needs a value` }
    if (flags.has(flag)) return { error: `marker flag --${m[1]} is given twice` }
    flags.set(flag, m[2])
  }
  return { flags }
}

const isLite = (model: string): boolean => model.includes("-lite-")
const is15 = (model: string): boolean => model.startsWith("delta-1-5-pro")

/** Checks one flag's value for `model`; returns the error message or undefined. */
const flagProblem = (model: string, flag: Flag, value: string): string | undefined => {
  const intIn = (lo: number, hi: number) => /^-?\d+$/.test(value) && Number(value) >= lo && Number(value) <= hi
  switch (flag) {
    case "resolution":
      if (is15(model))
        return ["480p", "720p"].includes(value) ? undefined : "the 1.5 pro series supports --rs 480p or 720p only"
      return ["480p", "720p", "1080p"].includes(value) ? undefined : "--rs must be 480p, 720p or 1080p"
    case "ratio": {
      const ok = ["16:9", "9:16", "1:1", "4:3", "3:4", "adaptive"].includes(value)
      if (!ok) return "--ratio must be one of 16:9, 9:16, 1:1, 4:3, 3:4, adaptive"
      return model === "delta-1-0-lite-t2v-250428" && value === "adaptive"
        ? `${model} does not support --ratio adaptive`
        : undefined
    }
    case "duration":
      if (is15(model)) return intIn(4, 12) ? undefined : "the 1.5 pro series takes --dur as an integer 4-12"
      return intIn(2, 12) ? undefined : "--dur must be an integer 2-12"
    case "framespersecond":
      return ["24", "30"].includes(value) ? undefined : "--fps must be 24 or 30"
    case "seed":
      return intIn(-1, 4_294_967_295) ? undefined : "--seed must be an integer -1..4294967295"
    case "watermark":
      return ["true", "false"].includes(value) ? undefined : "--wm must be true or false"
    case "camerafixed":
      if (!["true", "false"].includes(value)) return "--cf must be true or false"
      return isLite(model) ? undefined : `--cf is supported by the lite models only, not ${model}`
  }
}

interface Image {
  readonly role: "first_frame" | "last_frame" | "reference_image" | undefined
}

/** Checks the images' roles against what `model` supports (delta rules 1–4). */
const imageProblem = (model: string, images: ReadonlyArray<Image>, text: string): VideoCheck | undefined => {
  const p = "metadata.content"
  const refs = images.filter((i) => i.role === "reference_image").length
  const lasts = images.filter((i) => i.role === "last_frame").length
  const firsts = images.filter((i) => i.role === "first_frame" || i.role === undefined).length
  if (model === "delta-1-0-lite-t2v-250428" && images.length > 0)
    return reject(p, `${model} is text-to-video: no image input`, "unsupported_parameter")
  if (model === "delta-1-0-lite-i2v-250428" && images.length === 0)
    return reject(p, `${model} is image-to-video: an image_url item is required`, "missing_required_parameter")
  if (refs > 0) {
    if (model !== "delta-1-0-lite-i2v-250428")
      return reject(
        p,
        `reference image mode is supported only by delta-1-0-lite-i2v-250428, not ${model}`,
        "unsupported_parameter"
      )
    if (refs !== images.length)
      return reject(p, "reference images cannot be combined with first_frame/last_frame images")
    if (refs > 4) return reject(p, "reference image mode takes 1-4 images")
    for (const m of text.matchAll(/\[图(\d+)\]/g))
      if (Number(m[1]) < 1 || Number(m[1]) > refs)
        return reject(p, `prompt marker [图${m[1]}] names no reference image`)
    return undefined
  }
  if (firsts > 1 || lasts > 1) return reject(p, "at most one first_frame and one last_frame image")
  if (lasts === 1) {
    if (firsts === 0) return reject(p, "a last_frame image needs a first_frame image")
    if (model === "delta-1-0-pro-250528")
      return reject(p, `${model} supports first frame mode only`, "unsupported_parameter")
  }
  return undefined
}

/** Checks a delta body (the top-level `model` was already checked). */
export const checkDeltaBody = (model: string, b: Readonly<Record<string, unknown>>): VideoCheck => {
  const meta = b.metadata
  if (typeof meta !== "object" || meta === null || Array.isArray(meta))
    return reject("metadata", "metadata is required and must be an object", "missing_required_parameter")
  const m = meta as Readonly<Record<string, unknown>>
  const content = m.content
  if (!Array.isArray(content) || content.length === 0)
    return reject(
      "metadata.content",
      "metadata.content is required and must be a non-empty array",
      "missing_required_parameter"
    )
  if (content.length > MAX_ITEMS) return reject("metadata.content", `metadata.content takes at most ${MAX_ITEMS} items`)
  let text: string | undefined
  const images: Array<Image> = []
  for (const [i, item] of content.entries()) {
    const p = `metadata.content[${i}]`
    if (typeof item !== "object" || item === null) return reject(p, `${p} must be an object`)
    const it = item as Readonly<Record<string, unknown>>
    if (it.type === "text") {
      if (typeof it.text !== "string" || it.text.trim() === "" || it.text.length > MAX_TEXT)
        return reject(`${p}.text`, `${p}.text must be a non-empty string of at most ${MAX_TEXT} characters`)
      if (text !== undefined) return reject(p, "metadata.content takes at most one text item")
      text = it.text
    } else if (it.type === "image_url") {
      const iu = it.image_url as Readonly<Record<string, unknown>> | null | undefined
      if (
        typeof iu !== "object" ||
        iu === null ||
        typeof iu.url !== "string" ||
        iu.url === "" ||
        iu.url.length > MAX_URL
      )
        return reject(`${p}.image_url.url`, `${p}.image_url.url must be a non-empty string (URL or base64 data URL)`)
      if (it.role !== undefined && !["first_frame", "last_frame", "reference_image"].includes(it.role as string))
        return reject(`${p}.role`, `${p}.role must be first_frame, last_frame or reference_image`)
      images.push({ role: it.role as Image["role"] })
    } else return reject(`${p}.type`, `${p}.type must be text or image_url`)
  }
  // Image-to-video may leave the text out; text-to-video cannot.
  if (text === undefined && images.length === 0)
    return reject("metadata.content", "metadata.content needs a text item", "missing_required_parameter")
  text ??= ""
  const read = readFlags(text)
  if ("error" in read) return reject("metadata.content", read.error)
  for (const [flag, value] of read.flags) {
    const problem = flagProblem(model, flag, value)
    if (problem !== undefined) return reject("metadata.content", problem)
  }
  const imgProblem = imageProblem(model, images, text)
  if (imgProblem !== undefined) return imgProblem
  if (images.some((i) => i.role === "reference_image") && read.flags.get("resolution") === "1080p")
    return reject("metadata.content", "reference image mode supports 480p and 720p only")
  if (images.some((i) => i.role === "reference_image") && read.flags.has("camerafixed"))
    return reject("metadata.content", "reference image mode does not support --cf")
  // The pro and 1.5 models repeat the text item's prompt at the top level.
  if (!isLite(model) && text !== "" && (typeof b.prompt !== "string" || b.prompt.trim() === ""))
    return reject("prompt", `${model} needs a top-level prompt repeating the text item`, "missing_required_parameter")
  if (b.prompt !== undefined && (typeof b.prompt !== "string" || b.prompt.length > MAX_TEXT))
    return reject("prompt", "prompt must be a string")
  // The top-level prompt repeats the text item (the contract's delta body), flags aside.
  if (typeof b.prompt === "string" && withoutFlags(b.prompt) !== withoutFlags(text))
    return reject("prompt", "prompt must repeat the text of the metadata.content text item")
  if (m.return_last_frame !== undefined && typeof m.return_last_frame !== "boolean")
    return reject("metadata.return_last_frame", "metadata.return_last_frame must be a boolean")
  // Returning the last frame is a 1.5 pro series feature (the contract's metadata table).
  if (m.return_last_frame !== undefined && !is15(model))
    return reject(
      "metadata.return_last_frame",
      `metadata.return_last_frame is supported by the 1.5 pro series only, not ${model}`,
      "unsupported_parameter"
    )
  if (
    m.callback_url !== undefined &&
    (typeof m.callback_url !== "string" || !/^https?:\/\/\S+$/.test(m.callback_url) || m.callback_url.length > 4096)
  )
    return reject("metadata.callback_url", "metadata.callback_url must be an http(s) URL")
  return { ok: true, value: { model, family: "delta", prompt: text } }
}
