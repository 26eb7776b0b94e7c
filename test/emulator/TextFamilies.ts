/**
 * A raw-wire driver of the four text families for the emulator's tool and structured-output tests:
 * builds each family's body (tools, tool choice, structured output), reads its answer and stream,
 * and keeps a conversation going (the assistant turn and the tool results in the family's shape).
 */
import { expect } from "vitest"
import type { Emulator } from "../../src/emulator/index.js"
import { jsonEvents } from "./RawSse.js"

/** Raw wire JSON as the tests read it (typed-level `any` only: the tests assert on the shape). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- raw wire JSON, checked by the assertions
export type Any = Record<string, any>

/** A tool in neutral form. */
export interface ToolDef {
  readonly name: string
  readonly schema: Record<string, unknown>
}

/** A tool choice in neutral form. */
export type Choice = "auto" | "none" | "any" | { readonly tool: string }

/** A tool call read from an answer. */
export interface Call {
  readonly id: string | undefined
  readonly name: string
  readonly args: Record<string, unknown>
}

/** A tool result to send back. */
export interface Result {
  readonly id: string | undefined
  readonly name: string
  readonly output: string
  readonly isError?: boolean
}

/** An answer as the tests read it: its calls and its text. */
export interface Turn {
  readonly calls: ReadonlyArray<Call>
  readonly text: string
  readonly raw: Any
}

/** What a streamed answer was made of: the text deltas and, per call, its argument deltas. */
export interface Streamed {
  readonly text: ReadonlyArray<string>
  readonly args: ReadonlyArray<ReadonlyArray<string>>
}

/** Options of one request. */
export interface Ask {
  readonly tools?: ReadonlyArray<ToolDef>
  readonly choice?: Choice
  readonly parallel?: boolean
  /** Structured output of this schema (`null`: plain JSON mode where the family has one). */
  readonly schema?: Record<string, unknown> | null
}

export interface Family {
  readonly name: string
  readonly path: string
  readonly streamPath: string
  /** The body of a request with `history` (the family's turns) and the options. */
  body(history: ReadonlyArray<unknown>, ask: Ask): Any
  /** The first turn: a user prompt. */
  prompt(text: string): Array<unknown>
  read(raw: Any): Turn
  readStream(text: string): Streamed
  /** The turns to add after an answer and its results. */
  continueWith(turn: Turn, results: ReadonlyArray<Result>): Array<unknown>
  /** The error message of a 400 body. */
  errorMessage(body: Any): string
}

const messages: Family = {
  name: "messages-style",
  path: "/v1/messages",
  streamPath: "/v1/messages",
  prompt: (text) => [{ role: "user", content: text }],
  body: (history, ask) => ({
    model: "epsilon-sonnet-4-5-20250929",
    max_tokens: 2048,
    messages: history,
    ...(ask.tools === undefined
      ? {}
      : { tools: ask.tools.map((t) => ({ name: t.name, description: `the ${t.name} tool`, input_schema: t.schema })) }),
    ...(ask.choice === undefined && ask.parallel !== false
      ? {}
      : {
          tool_choice: {
            ...(ask.choice === undefined || ask.choice === "auto"
              ? { type: "auto" }
              : ask.choice === "none"
                ? { type: "none" }
                : ask.choice === "any"
                  ? { type: "any" }
                  : { type: "tool", name: ask.choice.tool }),
            ...(ask.parallel === false ? { disable_parallel_tool_use: true } : {})
          }
        }),
    ...(ask.schema === undefined || ask.schema === null
      ? {}
      : { output_config: { format: { type: "json_schema", schema: ask.schema } } })
  }),
  read: (raw) => ({
    calls: (raw.content as Array<Any>)
      .filter((b) => b.type === "tool_use")
      .map((b) => ({ id: b.id as string, name: b.name as string, args: b.input as Any })),
    text: (raw.content as Array<Any>)
      .filter((b) => b.type === "text")
      .map((b) => b.text as string)
      .join(""),
    raw
  }),
  readStream: (text) => {
    const events = jsonEvents(text) as Array<Any>
    const starts = events.filter((e) => e.type === "content_block_start")
    const deltas = (index: number, type: string, field: string): Array<string> =>
      events
        .filter((e) => e.type === "content_block_delta" && e.index === index && e.delta.type === type)
        .map((e) => e.delta[field] as string)
    return {
      text: starts
        .filter((s) => s.content_block.type === "text")
        .flatMap((s) => deltas(s.index as number, "text_delta", "text")),
      args: starts
        .filter((s) => s.content_block.type === "tool_use")
        .map((s) => deltas(s.index as number, "input_json_delta", "partial_json").filter((p) => p.length > 0))
    }
  },
  continueWith: (turn, results) => [
    { role: "assistant", content: turn.raw.content },
    {
      role: "user",
      content: results.map((r) => ({
        type: "tool_result",
        tool_use_id: r.id,
        content: r.output,
        ...(r.isError === true ? { is_error: true } : {})
      }))
    }
  ],
  errorMessage: (body) => String(body.error.message)
}

const openAiChoice = (choice: Choice | undefined, nested: boolean): unknown =>
  choice === undefined
    ? undefined
    : choice === "any"
      ? "required"
      : typeof choice === "string"
        ? choice
        : nested
          ? { type: "function", function: { name: choice.tool } }
          : { type: "function", name: choice.tool }

const chat: Family = {
  name: "chat",
  path: "/v1/chat/completions",
  streamPath: "/v1/chat/completions",
  prompt: (text) => [{ role: "user", content: text }],
  body: (history, ask) => ({
    model: "gpt-4o",
    messages: history,
    ...(ask.tools === undefined
      ? {}
      : { tools: ask.tools.map((t) => ({ type: "function", function: { name: t.name, parameters: t.schema } })) }),
    ...(ask.choice === undefined ? {} : { tool_choice: openAiChoice(ask.choice, true) }),
    ...(ask.parallel === false ? { parallel_tool_calls: false } : {}),
    ...(ask.schema === undefined
      ? {}
      : {
          response_format:
            ask.schema === null
              ? { type: "json_object" }
              : { type: "json_schema", json_schema: { name: "out", schema: ask.schema, strict: true } }
        })
  }),
  read: (raw) => {
    const message = raw.choices[0].message as Any
    return {
      calls: ((message.tool_calls ?? []) as Array<Any>).map((c) => ({
        id: c.id as string,
        name: c.function.name as string,
        args: JSON.parse(c.function.arguments as string) as Any
      })),
      text: (message.content ?? "") as string,
      raw
    }
  },
  readStream: (body) => {
    const chunks = jsonEvents(body) as Array<Any>
    const deltas = chunks.map((c) => c.choices[0]?.delta as Any | undefined).filter((d) => d !== undefined)
    const args: Array<Array<string>> = []
    for (const d of deltas)
      for (const t of (d.tool_calls ?? []) as Array<Any>) {
        args[t.index as number] ??= []
        if ((t.function.arguments as string).length > 0) args[t.index as number]!.push(t.function.arguments as string)
      }
    const text = deltas.flatMap((d) => (typeof d.content === "string" && d.content !== "" ? [d.content] : []))
    return { text, args }
  },
  continueWith: (turn, results) => [
    {
      role: "assistant",
      content: turn.raw.choices[0].message.content,
      tool_calls: turn.raw.choices[0].message.tool_calls
    },
    ...results.map((r) => ({ role: "tool", tool_call_id: r.id, content: r.output }))
  ],
  errorMessage: (body) => String(body.error.message)
}

const responses: Family = {
  name: "responses",
  path: "/v1/responses",
  streamPath: "/v1/responses",
  prompt: (text) => [{ role: "user", content: text }],
  body: (history, ask) => ({
    model: "gpt-5",
    input: history,
    ...(ask.tools === undefined
      ? {}
      : { tools: ask.tools.map((t) => ({ type: "function", name: t.name, parameters: t.schema, strict: true })) }),
    ...(ask.choice === undefined ? {} : { tool_choice: openAiChoice(ask.choice, false) }),
    ...(ask.parallel === false ? { parallel_tool_calls: false } : {}),
    ...(ask.schema === undefined
      ? {}
      : {
          text: {
            format:
              ask.schema === null ? { type: "json_object" } : { type: "json_schema", name: "out", schema: ask.schema }
          }
        })
  }),
  read: (raw) => ({
    calls: (raw.output as Array<Any>)
      .filter((i) => i.type === "function_call")
      .map((i) => ({
        id: i.call_id as string,
        name: i.name as string,
        args: JSON.parse(i.arguments as string) as Any
      })),
    text: (raw.output as Array<Any>)
      .filter((i) => i.type === "message")
      .flatMap((i) => (i.content as Array<Any>).map((c) => c.text as string))
      .join(""),
    raw
  }),
  readStream: (text) => {
    const events = jsonEvents(text) as Array<Any>
    const args: Array<Array<string>> = []
    for (const e of events)
      if (e.type === "response.function_call_arguments.delta")
        (args[e.output_index as number] ??= []).push(e.delta as string)
    return {
      text: events.filter((e) => e.type === "response.output_text.delta").map((e) => e.delta as string),
      args
    }
  },
  continueWith: (turn, results) => [
    ...(turn.raw.output as Array<Any>).map((i) =>
      i.type === "function_call"
        ? { type: "function_call", call_id: i.call_id, name: i.name, arguments: i.arguments }
        : { role: "assistant", content: turn.text }
    ),
    ...results.map((r) => ({ type: "function_call_output", call_id: r.id, output: r.output }))
  ],
  errorMessage: (body) => String(body.error.message)
}

const native: Family = {
  name: "native",
  path: "/v1beta/models/zeta-2.5-flash:generateContent",
  streamPath: "/v1beta/models/zeta-2.5-flash:streamGenerateContent?alt=sse",
  prompt: (text) => [{ role: "user", parts: [{ text }] }],
  body: (history, ask) => ({
    contents: history,
    ...(ask.tools === undefined
      ? {}
      : {
          tools: [{ functionDeclarations: ask.tools.map((t) => ({ name: t.name, parametersJsonSchema: t.schema })) }]
        }),
    ...(ask.choice === undefined
      ? {}
      : {
          toolConfig: {
            functionCallingConfig:
              typeof ask.choice === "object"
                ? { mode: "ANY", allowedFunctionNames: [ask.choice.tool] }
                : { mode: ask.choice.toUpperCase() }
          }
        }),
    ...(ask.schema === undefined
      ? {}
      : {
          generationConfig: {
            responseMimeType: "application/json",
            ...(ask.schema === null ? {} : { responseJsonSchema: ask.schema })
          }
        })
  }),
  read: (raw) => {
    const parts = (raw.candidates[0].content.parts ?? []) as Array<Any>
    return {
      calls: parts
        .filter((p) => p.functionCall !== undefined)
        .map((p) => ({
          id: p.functionCall.id as string | undefined,
          name: p.functionCall.name as string,
          args: p.functionCall.args as Any
        })),
      text: parts
        .filter((p) => typeof p.text === "string" && p.thought !== true)
        .map((p) => p.text as string)
        .join(""),
      raw
    }
  },
  readStream: (text) => {
    const chunks = jsonEvents(text) as Array<Any>
    const parts = chunks.flatMap((c) => (c.candidates[0].content.parts ?? []) as Array<Any>)
    return {
      text: parts.filter((p) => typeof p.text === "string" && p.thought !== true).map((p) => p.text as string),
      args: parts.filter((p) => p.functionCall !== undefined).map((p) => [JSON.stringify(p.functionCall.args)])
    }
  },
  continueWith: (turn, results) => [
    turn.raw.candidates[0].content,
    {
      role: "user",
      parts: results.map((r) => ({
        functionResponse: { name: r.name, response: r.isError === true ? { error: r.output } : { output: r.output } }
      }))
    }
  ],
  errorMessage: (body) => String(body.error.message)
}

/** The four text families. */
export const families: ReadonlyArray<Family> = [messages, chat, responses, native]

/** Posts a family request with the emulator's key, as Bearer (and the native family's own header). */
export const post = (emu: Emulator, path: string, body: unknown): Promise<Response> =>
  fetch(emu.url + path, {
    method: "POST",
    headers: {
      authorization: `Bearer ${emu.apiKey}`,
      "x-vendor-api-key": emu.apiKey,
      "content-type": "application/json"
    },
    body: JSON.stringify(body)
  })

/** Sends one turn and reads the answer (expects 200). */
export const send = async (emu: Emulator, f: Family, history: ReadonlyArray<unknown>, ask: Ask): Promise<Turn> => {
  const res = await post(emu, f.path, f.body(history, ask))
  const raw = (await res.json()) as Any
  expect(res.status, JSON.stringify(raw)).toBe(200)
  return f.read(raw)
}

/** Sends one turn streaming and reads what it was made of (expects 200). */
export const sendStream = async (
  emu: Emulator,
  f: Family,
  history: ReadonlyArray<unknown>,
  ask: Ask
): Promise<Streamed> => {
  const res = await post(emu, f.streamPath, {
    ...f.body(history, ask),
    ...(f.name === "native" ? {} : { stream: true })
  })
  const text = await res.text()
  expect(res.status, text).toBe(200)
  return f.readStream(text)
}

/** Sends one turn that must fail with 400, and returns the error message. */
export const sendRefused = async (emu: Emulator, f: Family, body: unknown): Promise<string> => {
  const res = await post(emu, f.path, body)
  const raw = (await res.json()) as Any
  expect(res.status, JSON.stringify(raw)).toBe(400)
  return f.errorMessage(raw)
}
