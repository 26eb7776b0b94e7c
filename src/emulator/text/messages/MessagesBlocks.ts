/**
 * The checks E8 and E9 make on the content blocks of a turn and on `cache_control` wherever it
 * appears. Text must not be blank, an image needs a `source` of a known kind, and a cache type is
 * `ephemeral` or `persistent` (its `ttl`, if any, `5m` or `1h`).
 */
type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)

/** A failed check: the message to answer 400 with. */
export type Invalid = { readonly message: string }

const invalid = (message: string): Invalid => ({ message })

/** The image media types of a base64 image source (protocol notes §1.2). */
const IMAGE_MEDIA_TYPES = ["image/jpeg", "image/png", "image/gif", "image/webp"]

const isBlank = (v: unknown): boolean => typeof v !== "string" || v.trim() === ""

/** The lifetimes upstream's `cache_control.ttl` takes. */
const CACHE_TTLS = ["5m", "1h"]

/** `cache_control` at `where` (a field name): absent, or of type `ephemeral` or `persistent`, with a `ttl` of 5m or 1h if any. */
export const checkCacheControl = (cc: unknown, where: string): Invalid | undefined => {
  if (cc === undefined) return undefined
  if (!(isObj(cc) && (cc.type === "ephemeral" || cc.type === "persistent")))
    return invalid(`${where}.type must be one of ephemeral, persistent`)
  return cc.ttl === undefined || (typeof cc.ttl === "string" && CACHE_TTLS.includes(cc.ttl))
    ? undefined
    : invalid(`${where}.ttl must be one of ${CACHE_TTLS.join(", ")}`)
}

/** An image block's `source`: base64 data of a known media type, a url, or a file id. */
const checkImageSource = (source: unknown, where: string): Invalid | undefined => {
  if (source === undefined) return invalid(`${where} is required`)
  if (!isObj(source)) return invalid(`${where} must be an object`)
  switch (source.type) {
    case "base64":
      if (typeof source.media_type !== "string" || !IMAGE_MEDIA_TYPES.includes(source.media_type))
        return invalid(`${where}.media_type must be one of ${IMAGE_MEDIA_TYPES.join(", ")}`)
      return isBlank(source.data) ? invalid(`${where}.data must be non-empty base64 data`) : undefined
    case "url":
      return isBlank(source.url) ? invalid(`${where}.url must be a non-empty string`) : undefined
    case "file":
      return isBlank(source.file_id) ? invalid(`${where}.file_id must be a non-empty string`) : undefined
    default:
      return invalid(`${where}.type must be one of base64, url, file`)
  }
}

/**
 * The blocks of a content array at `where` (`field messages[0].content`): each an object with a
 * `type`; a text block's text not blank (whitespace only is refused, as upstream refuses it); an
 * image's source; any block's `cache_control`; and the same for the blocks inside a `tool_result`.
 */
export const checkBlocks = (blocks: ReadonlyArray<unknown>, where: string): Invalid | undefined => {
  for (let j = 0; j < blocks.length; j++) {
    const block = blocks[j]
    const at = `${where}[${j}]`
    if (!isObj(block) || typeof block.type !== "string") return invalid(`${at} must be a content block with a type`)
    if (block.type === "text" && isBlank(block.text))
      return invalid(`${at}.text: text content blocks must contain non-whitespace text`)
    const problem =
      (block.type === "image" ? checkImageSource(block.source, `${at}.source`) : undefined) ??
      checkCacheControl(block.cache_control, `${at}.cache_control`) ??
      (block.type === "tool_result" && Array.isArray(block.content)
        ? checkBlocks(block.content, `${at}.content`)
        : undefined)
    if (problem !== undefined) return problem
  }
  return undefined
}
