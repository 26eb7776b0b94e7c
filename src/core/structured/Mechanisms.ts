/**
 * How each text family asks for structured output and where its answer carries the JSON. It gives the
 * body fields added to a request (chat `response_format`, responses `text.format`, native
 * `generationConfig.responseJsonSchema`, messages-style a forced tool), the answer's JSON text read
 * from a response, and the JSON text pieces read from its stream events. Pure; see
 * docs/ARCHITECTURE.md.
 */
import * as Result from "effect/Result"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import type { ChatBodyInput } from "../text/chat/ChatBody.js"
import type { ChatCompletion, ChatStreamEvent } from "../text/chat/ChatResponse.js"
import type { MessagesBodyInput } from "../text/messages/Messages.js"
import type { MessagesEvent } from "../text/messages/MessagesEvents.js"
import { isMessagesBlock, type Message, messageText } from "../text/messages/MessagesResponse.js"
import type { NativeBodyInput } from "../text/native/Native.js"
import type { GenerateContentResponse, NativeChunk } from "../text/native/NativeResponse.js"
import { nativeText } from "../text/native/NativeResponse.js"
import type { ResponsesBodyInput } from "../text/responses/ResponsesBody.js"
import { isResponsesItem, type ResponsesEvent, type ResponsesResponse } from "../text/responses/ResponsesResponse.js"
import { responsesOutputText } from "../text/responses/ResponsesResponse.js"
import { type TokenFamily, tokenText } from "../text/TokenEvent.js"
import { describe, fail, isRecord } from "../validation/Rules.js"
import type { JsonSchemaObject } from "./JsonSchemaFit.js"
import { firstCandidate } from "../text/native/FirstCandidate.js"

/** The options of structured output every family takes. @category models */
export interface StructuredOptions {
  /**
   * The schema's name: chat `json_schema.name`, responses `format.name`, the messages-style tool's
   * name (native has none). `^[a-zA-Z0-9_-]{1,64}$`; default `structured_output`.
   */
  readonly name?: string | undefined
  /** What the value is, for the model (sent where the family has a place for it). */
  readonly description?: string | undefined
  /**
   * Chat and responses `strict`: `false` turns it off; by default it is on when the schema fits
   * strict mode's rules (see JsonSchemaFit.ts) and off otherwise.
   */
  readonly strict?: boolean | undefined
  /** The JSON Schema to send instead of the schema's own (fitted by the same rules). */
  readonly jsonSchema?: JsonSchemaObject | undefined
}

/** What a request asks for: the schema's name, its fitted JSON Schema and whether strict mode is asked. @category models */
export interface SchemaTarget {
  readonly name: string
  readonly description?: string
  readonly strict: boolean
  readonly schema: JsonSchemaObject
}

/**
 * The answer as read from a response: its JSON text (with the value when the family sends it parsed,
 * messages-style `tool_use.input`, and `cut`, the stop reason, when the output limit ended it); the
 * model's refusal; or no structured answer at all (`reason` says why, `text` is what came instead).
 * @category models
 */
export type AnswerRead =
  | {
      readonly _tag: "Json"
      readonly text: string
      readonly parsed?: { readonly value: unknown }
      readonly cut?: string | undefined
    }
  | { readonly _tag: "Refused"; readonly refusal: string }
  | { readonly _tag: "Missing"; readonly text: string; readonly reason: string }

/**
 * One family's mechanism: `request` adds the structured-output fields to a body (refusing a body that
 * sets them itself), `read` finds the answer in a response, `pieces` makes a reader of the answer's
 * JSON text pieces from the stream's events (one reader per stream: messages-style keeps the tool
 * block's index).
 * @category models
 */
export interface Mechanism<Body, Response, Event> {
  readonly family: TokenFamily
  readonly request: <B extends Body>(body: B, target: SchemaTarget) => Result.Result<B, InvalidRequest>
  readonly read: (response: Response, target: SchemaTarget) => AnswerRead
  readonly pieces: (target: SchemaTarget) => (event: Event) => ReadonlyArray<string>
}

/** The default schema name. @category constants */
export const defaultSchemaName = "structured_output"

const SCHEMA_NAME = /^[a-zA-Z0-9_-]{1,64}$/

/**
 * The target of a request: the name checked (`^[a-zA-Z0-9_-]{1,64}$`, default `structured_output`),
 * strict mode on when asked for (not `false`) and the schema fits it.
 * @category constructors
 */
export const schemaTarget = (
  schema: { readonly schema: JsonSchemaObject; readonly strict: boolean },
  options: StructuredOptions = {}
): Result.Result<SchemaTarget, InvalidRequest> => {
  const name = options.name ?? defaultSchemaName
  if (typeof name !== "string" || !SCHEMA_NAME.test(name))
    return fail(
      "name",
      "pattern",
      `name: ${describe(name)} is not allowed; allowed: 1 to 64 letters, digits, _ or - (^[a-zA-Z0-9_-]{1,64}$)`
    )
  if (options.description !== undefined && typeof options.description !== "string")
    return fail(
      "description",
      "type",
      `description: ${describe(options.description)} is not allowed; allowed: a string`
    )
  return Result.succeed({
    name,
    ...(options.description === undefined ? {} : { description: options.description }),
    strict: options.strict !== false && schema.strict,
    schema: schema.schema
  })
}

type Body = Readonly<Record<string, unknown>>

// A body field that structured output sets itself, given by the caller too (directly or in `extra`).
const conflict = (body: Body, path: ReadonlyArray<string>, mechanism: string): Result.Result<void, InvalidRequest> => {
  for (const root of [body, isRecord(body["extra"]) ? body["extra"] : undefined]) {
    let at: unknown = root
    for (const key of path) at = isRecord(at) && Object.hasOwn(at, key) ? at[key] : undefined
    if (at !== undefined) {
      const field = path.join(".")
      return fail(
        field,
        "conflict",
        `${field}: ${describe(at)} is not allowed with structured output, which sets ${mechanism}; allowed: leave ${field} out`
      )
    }
  }
  return Result.void
}

const jsonSchemaOption = (target: SchemaTarget) => ({
  name: target.name,
  ...(target.description === undefined ? {} : { description: target.description }),
  schema: target.schema,
  strict: target.strict
})

/** Chat: `response_format: { type: "json_schema", json_schema: { name, description?, schema, strict } }`; the answer is choice 0's `content`. @category mechanisms */
export const chatMechanism: Mechanism<ChatBodyInput, ChatCompletion, ChatStreamEvent> = {
  family: "chat",
  request: (body, target) =>
    Result.map(conflict(body, ["response_format"], "response_format"), () => ({
      ...body,
      response_format: { type: "json_schema", json_schema: jsonSchemaOption(target) }
    })),
  read: (completion) => {
    const choice = completion.choices.find((c) => c.index === 0) ?? completion.choices[0]
    if (choice === undefined) return { _tag: "Missing", text: "", reason: "the answer has no choice" }
    const { content, refusal } = choice.message
    if (typeof refusal === "string" && refusal !== "") return { _tag: "Refused", refusal }
    if (content === null || content === "") {
      if (choice.finish_reason === "content_filter")
        return { _tag: "Refused", refusal: "finish_reason: content_filter" }
      return { _tag: "Missing", text: "", reason: `the answer has no content (finish_reason: ${choice.finish_reason})` }
    }
    return { _tag: "Json", text: content, cut: choice.finish_reason === "length" ? "finish_reason: length" : undefined }
  },
  pieces: () => tokenText
}

/** Responses: `text.format: { type: "json_schema", name, description?, schema, strict }` (other `text` members kept); the answer is the `output_text`. @category mechanisms */
export const responsesMechanism: Mechanism<ResponsesBodyInput, ResponsesResponse, ResponsesEvent> = {
  family: "responses",
  request: (body, target) =>
    Result.map(conflict(body, ["text", "format"], "text.format"), () => ({
      ...body,
      text: { ...(isRecord(body.text) ? body.text : {}), format: { type: "json_schema", ...jsonSchemaOption(target) } }
    })),
  read: (response) => {
    for (const item of response.output) {
      if (!isResponsesItem(item, "message")) continue
      for (const part of item.content)
        if (part.type === "refusal" && typeof part["refusal"] === "string")
          return { _tag: "Refused", refusal: part["refusal"] }
    }
    const text = responsesOutputText(response)
    if (text === "")
      return {
        _tag: "Missing",
        text,
        reason: `the answer has no output_text (status: ${response.status ?? "unknown"})`
      }
    const cut =
      response.status === "incomplete"
        ? `status: incomplete (${response.incomplete_details?.reason ?? "no reason given"})`
        : undefined
    return { _tag: "Json", text, cut }
  },
  pieces: () => tokenText
}

// Native finish reasons and block reasons that mean the model would not answer.
const NATIVE_REFUSALS: ReadonlySet<string> = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY"
])

/**
 * Native: `generationConfig.responseMimeType: "application/json"` and `responseJsonSchema` (JSON
 * Schema, `$ref`s included; other `generationConfig` members kept); the answer is candidate 0's
 * non-thought text parts.
 * @category mechanisms
 */
export const nativeMechanism: Mechanism<NativeBodyInput, GenerateContentResponse, NativeChunk> = {
  family: "native",
  request: (body, target) =>
    Result.flatMap(conflict(body, ["generationConfig", "responseSchema"], "responseJsonSchema"), () =>
      Result.flatMap(conflict(body, ["generationConfig", "responseJsonSchema"], "responseJsonSchema"), () => {
        const config = isRecord(body.generationConfig) ? body.generationConfig : {}
        const mime = config["responseMimeType"]
        if (mime !== undefined && mime !== "application/json")
          return fail(
            "generationConfig.responseMimeType",
            "conflict",
            `generationConfig.responseMimeType: ${describe(mime)} is not allowed with structured output; allowed: application/json, or leave it out`
          )
        return Result.succeed({
          ...body,
          generationConfig: { ...config, responseMimeType: "application/json", responseJsonSchema: target.schema }
        })
      })
    ),
  read: (response) => {
    const blocked = response.promptFeedback?.blockReason
    if (blocked !== undefined)
      return { _tag: "Refused", refusal: response.promptFeedback?.blockReasonMessage ?? `blockReason: ${blocked}` }
    const candidate = firstCandidate(response)
    if (candidate === undefined) return { _tag: "Missing", text: "", reason: "the answer has no candidate" }
    const reason = candidate.finishReason
    const text = nativeText(response)
    if (reason !== undefined && NATIVE_REFUSALS.has(reason) && text === "")
      return { _tag: "Refused", refusal: candidate.finishMessage ?? `finishReason: ${reason}` }
    if (text === "")
      return { _tag: "Missing", text, reason: `the answer has no text (finishReason: ${reason ?? "none"})` }
    return { _tag: "Json", text, cut: reason === "MAX_TOKENS" ? "finishReason: MAX_TOKENS" : undefined }
  },
  pieces: () => tokenText
}

/**
 * Messages-style: a tool named after the schema whose `input_schema` is the schema, forced by
 * `tool_choice: { type: "tool", name }`; the value is that tool's `tool_use` input. Refused with
 * extended thinking on (forced tool use and thinking do not go together) or a `tool_choice` of the
 * caller's own.
 * @category mechanisms
 */
export const messagesMechanism: Mechanism<MessagesBodyInput, Message, MessagesEvent> = {
  family: "messages",
  request: (body, target) =>
    Result.flatMap(conflict(body, ["tool_choice"], "tool_choice"), () => {
      const thinking = isRecord(body.thinking) ? body.thinking["type"] : undefined
      if (thinking === "enabled" || thinking === "adaptive")
        return fail(
          "thinking",
          "conflict",
          `thinking: ${describe(thinking)} is not allowed with structured output, which forces a tool call; allowed: disabled, or leave thinking out`
        )
      const tool = {
        name: target.name,
        ...(target.description === undefined ? {} : { description: target.description }),
        input_schema: target.schema as { readonly type: "object" }
      }
      return Result.succeed({
        ...body,
        tools: [...(body.tools ?? []), tool],
        tool_choice: { type: "tool" as const, name: target.name }
      })
    }),
  read: (message, target) => {
    for (const block of message.content)
      if (isMessagesBlock(block, "tool_use") && block.name === target.name)
        return {
          _tag: "Json",
          text: JSON.stringify(block.input),
          parsed: { value: block.input },
          cut: message.stop_reason === "max_tokens" ? "stop_reason: max_tokens" : undefined
        }
    if (message.stop_reason === "refusal")
      return { _tag: "Refused", refusal: messageText(message) || "stop_reason: refusal" }
    return {
      _tag: "Missing",
      text: messageText(message),
      reason: `the answer has no tool_use block named ${target.name} (stop_reason: ${message.stop_reason ?? "none"})`
    }
  },
  pieces: (target) => {
    let index: number | undefined
    return (event) => {
      if (event.type === "content_block_start") {
        const block = event.content_block
        if (index === undefined && isMessagesBlock(block, "tool_use") && block.name === target.name) index = event.index
        return []
      }
      if (event.type !== "content_block_delta" || event.index !== index || event.delta.type !== "input_json_delta")
        return []
      const piece = event.delta["partial_json"]
      return typeof piece === "string" && piece !== "" ? [piece] : []
    }
  }
}
