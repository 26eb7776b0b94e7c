/**
 * What every family's request builder reads the same way out of a `TextRequest`. The system text, the
 * turns grouped by the side that speaks them, a file as base64 or a URL, a tool's declaration and a
 * tool result's text.
 */
import * as Result from "effect/Result"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import type { ToolDeclaration } from "../../core/tools/Tool.js"
import { outputContent } from "../../core/tools/ToolShape.js"
import { fail } from "../../core/validation/Rules.js"
import * as Base64 from "../../core/wire/Base64.js"
import type { FilePart, TextMessage, TextRequest, TextTool, ToolResultPart } from "./TextRequest.js"

/**
 * What of a request could not be sent as asked. `feature` names the setting the family does not take
 * when that is what the warning is about (`topK`), with `details` when there is more to say than its
 * name; `message` says it all in a sentence (`topK is not supported by a chat model`), for a log.
 * @category models
 */
export interface TextWarning {
  readonly message: string
  /**
   * `unsupported` (the default): a setting the family does not take, dropped; `compatibility`: a
   * setting sent in a form the model takes instead of the one asked (as the AI SDK's providers say it).
   */
  readonly kind?: "unsupported" | "compatibility" | undefined
  readonly feature?: string | undefined
  readonly details?: string | undefined
}

/** A request body and what could not be sent of the request (a setting the family does not take). @category models */
export interface Built<Body> {
  readonly body: Body
  readonly warnings: ReadonlyArray<TextWarning>
}

/** The system turns' text, joined by blank lines, or `undefined` when there is none. @category getters */
export const systemText = (request: TextRequest): string | undefined => {
  const texts = request.messages.flatMap((m) => (m.role === "system" && m.text !== "" ? [m.text] : []))
  return texts.length === 0 ? undefined : texts.join("\n\n")
}

/** A turn of the conversation without the system turns: user (with tool results) or assistant. @category models */
export type Side = "user" | "assistant"

/**
 * The turns that are not system turns, consecutive turns of one side joined: tool results belong to
 * the user's side (messages-style, native), so a tool turn followed by a user turn is one turn.
 * @category getters
 */
export const sides = (
  request: TextRequest
): ReadonlyArray<{
  readonly side: Side
  readonly messages: ReadonlyArray<Exclude<TextMessage, { role: "system" }>>
}> => {
  const out: Array<{ side: Side; messages: Array<Exclude<TextMessage, { role: "system" }>> }> = []
  for (const m of request.messages) {
    if (m.role === "system") continue
    const side: Side = m.role === "assistant" ? "assistant" : "user"
    const last = out[out.length - 1]
    if (last?.side === side) last.messages.push(m)
    else out.push({ side, messages: [m] })
  }
  return out
}

/** A file's data: base64 text, or a URL to fetch it from. @category models */
export type FileSource =
  | { readonly _tag: "Base64"; readonly mediaType: string; readonly data: string }
  | { readonly _tag: "Url"; readonly mediaType: string; readonly url: string }

const DATA_URL = /^data:([^;,]*)(?:;[^,]*)?;base64,(.*)$/s

/** A file part's data: bytes as base64, a `data:` URL read as base64, another URL as is, a string as base64. @category getters */
export const fileSource = (part: FilePart): FileSource => {
  const { data, mediaType } = part
  if (data instanceof Uint8Array) return { _tag: "Base64", mediaType, data: Base64.encode(data) }
  const text = data instanceof URL ? data.toString() : data
  const dataUrl = DATA_URL.exec(text)
  if (dataUrl !== null) return { _tag: "Base64", mediaType: dataUrl[1] || mediaType, data: dataUrl[2] ?? "" }
  if (data instanceof URL || /^https?:\/\//i.test(text)) return { _tag: "Url", mediaType, url: text }
  return { _tag: "Base64", mediaType, data: text }
}

/** A file source as a URL: its own, or a `data:` URL of its bytes. @category getters */
export const fileUrl = (source: FileSource): string =>
  source._tag === "Url" ? source.url : `data:${source.mediaType};base64,${source.data}`

/** The refusal of a file the family cannot take, naming its media type and the ones it takes. @category constructors */
export const unsupportedFile = (
  family: string,
  index: number,
  mediaType: string,
  allowed: string
): Result.Result<never, InvalidRequest> =>
  fail(
    `messages[${index}].file.mediaType`,
    "one-of",
    `messages[${index}].file.mediaType: ${JSON.stringify(mediaType)} is not allowed for ${family}; allowed: ${allowed}`
  )

/** The declaration core/tools sends for a tool (its description empty when it has none). @category constructors */
export const declarationOf = (tool: TextTool): ToolDeclaration => ({
  name: tool.name,
  description: tool.description ?? "",
  parameters: tool.parameters,
  strict: tool.strict,
  strictCapable: tool.strictCapable
})

/** A tool result as text: a string as is, anything else as its JSON (see `outputContent`). @category getters */
export const resultText = (part: ToolResultPart): string => {
  const text = outputContent(part.output)
  return Result.isSuccess(text) ? text.success : String(part.output)
}

/**
 * The warning of a tool result's files a family cannot send (its tool results take text only), or
 * `undefined` when the result has none: the text is sent, the files are named as dropped.
 * @category getters
 */
export const droppedToolFiles = (family: string, part: ToolResultPart): TextWarning | undefined => {
  const files = (part.content ?? []).flatMap((p) => (p.type === "file" ? [p.mediaType] : []))
  return files.length === 0
    ? undefined
    : {
        message: `tool result ${JSON.stringify(part.id)} (${part.name}): ${files.length === 1 ? "a file" : `${files.length} files`} (${files.join(", ")}) not sent; ${family}'s tool results take text only`
      }
}

/** The tool call's arguments as a JSON object: an object as is, anything else under `value`. @category getters */
export const inputObject = (input: unknown): Readonly<Record<string, unknown>> =>
  typeof input === "object" && input !== null && !Array.isArray(input)
    ? (input as Readonly<Record<string, unknown>>)
    : { value: input }

/** The settings a family does not take, as warnings naming each (`topK is not supported by a chat model`). @category constructors */
export const unsupported = (
  family: string,
  request: TextRequest,
  names: ReadonlyArray<keyof TextRequest>
): ReadonlyArray<TextWarning> =>
  names
    .filter((name) => request[name] !== undefined)
    .map((name) => ({ feature: String(name), message: `${String(name)} is not supported by ${family}` }))
