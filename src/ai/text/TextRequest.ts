/**
 * One text request as the frameworks' providers (`umg/ai`, `umg/ai-sdk`) hand it to umg. It holds the
 * conversation, the sampling settings, the tools, the tool choice and the structured output, whichever
 * family the model routes to, before it becomes a messages-style, chat, responses or native body.
 */
import type { JsonSchemaObject } from "../../core/structured/JsonSchemaFit.js"
import type { TokenFamily } from "../../core/text/TokenEvent.js"
import type { TextOutput } from "./TextOutput.js"

/** The text families, named by their `Gateway` group. @category models */
export type TextFamily = TokenFamily

/**
 * Visible text. In an assistant turn, `thoughtSignature` is the native family's, echoed back on the
 * text's part; the other families send none.
 * @category models
 */
export interface TextPart {
  readonly type: "text"
  readonly text: string
  readonly thoughtSignature?: string | undefined
}

/**
 * Reasoning the model gave earlier, sent back as it came: messages-style keeps a thinking block's
 * `signature` (or a redacted block's `data`); native sends a thought part back only with its
 * `thoughtSignature`; the other families send none back.
 * @category models
 */
export interface ReasoningPart {
  readonly type: "reasoning"
  readonly text: string
  readonly signature?: string | undefined
  readonly redactedData?: string | undefined
  readonly thoughtSignature?: string | undefined
}

/** A file: bytes, base64 text, or a URL, with its media type (`image/png`, `application/pdf`, …). @category models */
export interface FilePart {
  readonly type: "file"
  readonly mediaType: string
  readonly data: Uint8Array | string | URL
  readonly filename?: string | undefined
}

/**
 * A tool call the model made earlier: its arguments as a value (a JSON object); `thoughtSignature` is
 * the native family's, echoed back on the call's part.
 * @category models
 */
export interface ToolCallPart {
  readonly type: "tool-call"
  readonly id: string
  readonly name: string
  readonly input: unknown
  readonly thoughtSignature?: string | undefined
}

/**
 * A tool's answer: its output as text (sent as is) or a JSON value, and whether the tool failed. An
 * answer holding files (an image, a PDF) has them in `content` beside its text parts: messages-style
 * and responses send `content`; chat and native send `output` (the text) and warn of the files.
 * @category models
 */
export interface ToolResultPart {
  readonly type: "tool-result"
  readonly id: string
  readonly name: string
  readonly output: unknown
  readonly isError: boolean
  readonly content?: ReadonlyArray<TextPart | FilePart> | undefined
}

/** One turn of the conversation. @category models */
export type TextMessage =
  | { readonly role: "system"; readonly text: string }
  | { readonly role: "user"; readonly parts: ReadonlyArray<TextPart | FilePart> }
  | { readonly role: "assistant"; readonly parts: ReadonlyArray<TextPart | ReasoningPart | ToolCallPart> }
  | { readonly role: "tool"; readonly parts: ReadonlyArray<ToolResultPart> }

/**
 * A function tool: its name, description and parameters as a JSON Schema object. `strict` is sent
 * where the family takes it when the tool asks for it (`true`) or the schema was fitted for it.
 * @category models
 */
export interface TextTool {
  readonly name: string
  readonly description?: string | undefined
  readonly parameters: JsonSchemaObject
  readonly strict?: boolean | undefined
  /** Whether the parameters meet strict mode's rules (then chat and responses ask for strict by default). */
  readonly strictCapable: boolean
}

/** How the model may use the tools. @category models */
export type TextToolChoice = "auto" | "none" | "required" | { readonly tool: string }

/** How hard the model reasons before answering; `undefined` leaves the family's default. @category models */
export type ReasoningEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max"

/** A text request, whichever family serves it. @category models */
export interface TextRequest {
  readonly model: string
  readonly messages: ReadonlyArray<TextMessage>
  readonly maxOutputTokens?: number | undefined
  readonly temperature?: number | undefined
  readonly topP?: number | undefined
  readonly topK?: number | undefined
  readonly stopSequences?: ReadonlyArray<string> | undefined
  readonly seed?: number | undefined
  readonly presencePenalty?: number | undefined
  readonly frequencyPenalty?: number | undefined
  readonly tools: ReadonlyArray<TextTool>
  readonly toolChoice?: TextToolChoice | undefined
  /** Structured output: the value the answer must be (see `TextOutput`); JSON text without a schema when `schema` is absent. */
  readonly output?: TextOutput | undefined
  readonly reasoning?: ReasoningEffort | undefined
  /**
   * Fields of the family's own body, laid over the one built here (`thinking`, `service_tier`,
   * `safetySettings`, …) by `overlayBody`: plain objects are merged key by key, arrays and other values
   * replace; checked by the family's builder like any body field.
   */
  readonly body?: Readonly<Record<string, unknown>> | undefined
}

/** The output tokens sent when a messages-style request gives none (the family requires `max_tokens`). @category constants */
export const defaultMaxOutputTokens = 4096
