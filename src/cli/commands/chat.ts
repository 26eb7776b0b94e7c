/**
 * `umg chat`: one prompt to any text model. The model's family picks the endpoint (`routeFor`):
 * epsilon → messages, zeta → native content, GPT-5/o-series → responses, others → chat
 * completions. Tokens are printed as they arrive; thinking goes to stderr, dimmed.
 */
import { Effect, Option, Result } from "effect"
import { runToFinal } from "../../adapters/sse/Consume.js"
import { Gateway } from "../../adapters/Gateway.js"
import type { NativeRequest } from "../../adapters/groups/Native.js"
import { type StreamError, TransportError } from "../../core/errors/GatewayError.js"
import { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { buildMessagesBody, type MessagesBody } from "../../core/text/messages/Messages.js"
import { buildNativeBody, parseNativeModel, thinkingLevelOf } from "../../core/text/native/Native.js"
import { buildChatBody, type ChatBody } from "../../core/text/chat/ChatBody.js"
import { buildResponsesBody, type ResponsesBody } from "../../core/text/responses/ResponsesBody.js"
import type { RoutingOptions } from "../../core/gateway/Catalog.js"
import { defaultLimits } from "../../adapters/internal/Limits.js"
import { routeFor } from "../../core/gateway/Routing.js"
import { textOf } from "../../streams/textDeltas.js"
import { thinkingOf } from "../../streams/thinkingDeltas.js"
import type { TokenEvent } from "../../streams/TokenEvent.js"
import * as Connection from "../support/Connection.js"
import { promptText } from "../support/LocalFiles.js"
import * as Output from "../support/Output.js"
import { firstCandidate } from "../../core/text/native/FirstCandidate.js"

/** What a chat prompt asks for. @category models */
export interface ChatRequest {
  readonly model: string
  readonly prompt: string
  readonly system?: string
  readonly maxTokens?: number
  /**
   * A thinking budget in tokens: messages `thinking.budget_tokens`, native 2.5 `thinkingBudget`, native 3
   * `thinkingLevel` and responses `reasoning.effort` by `reasoningEffortOf`; refused for chat completions.
   */
  readonly thinking?: number
  readonly temperature?: number
}

/** A validated request, ready to stream on its family's endpoint. @category models */
export type PreparedChat =
  | { readonly family: "messages"; readonly body: MessagesBody }
  | { readonly family: "native"; readonly request: NativeRequest }
  | { readonly family: "chat"; readonly body: ChatBody }
  | { readonly family: "responses"; readonly body: ResponsesBody }

/** What a streamed reply ended with. @category models */
export interface ChatOutcome {
  readonly family: PreparedChat["family"]
  readonly text: string
  readonly thinking: string
  /** The family's usage object, as the gateway reported it. */
  readonly usage: unknown
  readonly stop: string | undefined
}

const opt = <K extends string, A>(key: K, value: A | undefined): { [P in K]?: A } =>
  (value === undefined ? {} : { [key]: value }) as { [P in K]?: A }

// Where a model that is not a text model belongs instead.
const otherCommand: Partial<Record<string, string>> = {
  embeddings: "use umg embed",
  rerank: "use umg rerank",
  speech: "use umg speak",
  images: "use umg image",
  video: "use umg video",
  realtime: "use umg realtime",
  live: "the live audio socket is available from the library (Gateway.live)"
}

/**
 * The one rule from a thinking budget to a level of effort: below 2048 tokens `low`, below 8192
 * `medium`, else `high`. Responses models take it as `reasoning.effort`; 3-class native models as
 * `thinkingLevel` (`thinkingLevelOf`: `medium` is LOW there).
 * @category getters
 */
export const reasoningEffortOf = (budget: number): "low" | "medium" | "high" =>
  budget >= 8192 ? "high" : budget >= 2048 ? "medium" : "low"

// A native model's thinking config for a budget: a `thinkingLevel` on the 3 class (which takes no
// budget), the budget itself elsewhere (the body's validation names what the model allows).
const nativeThinking = (model: string, budget: number) => {
  const parsed = parseNativeModel(model)
  return Result.isSuccess(parsed) && parsed.success.modelClass === "3"
    ? { includeThoughts: true, thinkingLevel: thinkingLevelOf(reasoningEffortOf(budget)) }
    : { includeThoughts: true, thinkingBudget: budget }
}

// Chat-completions models take no thinking budget: refused rather than dropped.
const noThinking = (model: string): InvalidRequest =>
  new InvalidRequest({
    field: "--thinking",
    rule: "not-supported",
    message: `--thinking: ${model} is a chat-completions model, which takes no thinking budget; --thinking is for epsilon (messages), zeta (native) and GPT-5/o-series (responses) models`
  })

/**
 * Builds and validates the family's body for a prompt: nothing is sent for an invalid request.
 * @category constructors
 */
export const prepareChat = (
  r: ChatRequest,
  routing: RoutingOptions = {}
): Effect.Effect<PreparedChat, InvalidRequest> => {
  const route = routeFor(r.model, routing)
  const user = [{ role: "user", content: r.prompt }]
  switch (route.capability) {
    case "messages":
      return Effect.map(
        buildMessagesBody(
          {
            model: r.model,
            max_tokens: r.maxTokens ?? (r.thinking !== undefined ? r.thinking + 1024 : 1024),
            messages: user,
            ...opt("system", r.system),
            ...opt("temperature", r.temperature),
            ...(r.thinking !== undefined ? { thinking: { type: "enabled", budget_tokens: r.thinking } } : {})
          },
          routing
        ),
        (body) => ({ family: "messages" as const, body })
      )
    case "native": {
      const generationConfig = {
        ...opt("maxOutputTokens", r.maxTokens),
        ...opt("temperature", r.temperature),
        ...(r.thinking !== undefined ? { thinkingConfig: nativeThinking(r.model, r.thinking) } : {})
      }
      return Effect.map(
        buildNativeBody(
          r.model,
          {
            contents: [{ role: "user", parts: [{ text: r.prompt }] }],
            ...(r.system !== undefined ? { systemInstruction: { parts: [{ text: r.system }] } } : {}),
            ...(Object.keys(generationConfig).length > 0 ? { generationConfig } : {})
          },
          routing
        ),
        (body) => ({ family: "native" as const, request: { ...body, model: r.model } })
      )
    }
    case "responses":
      return Effect.map(
        buildResponsesBody(
          {
            model: r.model,
            max_output_tokens: r.maxTokens ?? 1024,
            input: [...(r.system !== undefined ? [{ role: "system", content: r.system }] : []), ...user],
            ...opt("temperature", r.temperature),
            ...(r.thinking !== undefined ? { reasoning: { effort: reasoningEffortOf(r.thinking) } } : {})
          },
          routing
        ),
        (body) => ({ family: "responses" as const, body })
      )
    case "chat":
      if (r.thinking !== undefined) return Effect.fail(noThinking(r.model))
      return Effect.map(
        buildChatBody(
          {
            model: r.model,
            messages: [...(r.system !== undefined ? [{ role: "system", content: r.system }] : []), ...user],
            // Asks for the usage chunk at the end of the stream, so the reply's token counts are known.
            stream_options: { include_usage: true },
            ...opt("max_tokens", r.maxTokens),
            ...opt("temperature", r.temperature)
          },
          routing
        ),
        (body) => ({ family: "chat" as const, body })
      )
    default:
      return Effect.fail(
        new InvalidRequest({
          field: "model",
          rule: "route",
          message: `model: ${JSON.stringify(r.model)} serves ${route.capability}, not text chat; ${otherCommand[route.capability] ?? "use a text model"}`
        })
      )
  }
}

/** How `streamChat` treats the reply's text. @category models */
export interface ChatStreamOptions {
  readonly onText: (text: string) => Effect.Effect<void>
  readonly onThinking: (text: string) => Effect.Effect<void>
  /**
   * Whether the outcome carries the text and thinking (default true); `umg chat` keeps them for `--json`
   * only, and otherwise hands each piece on without holding it (the outcome's text is then empty).
   */
  readonly keepText?: boolean
  /** Most UTF-8 bytes of text and thinking taken from one reply (default: the config's `maxResponseBytes`). */
  readonly maxBytes?: number
}

/** The reply went past its bound: a `TransportError` (`too-large`) naming it, not V8's string limit later. */
const replyTooLarge = (family: PreparedChat["family"], maxBytes: number): TransportError =>
  new TransportError({
    // Chat completions and responses are the OpenAI family of errors.
    family: family === "chat" || family === "responses" ? "openai" : family,
    reason: "too-large",
    message: `the streamed reply is larger than its bound of ${maxBytes} bytes (limits.maxResponseBytes in the config); stopped reading`
  })

/**
 * Streams a prepared request, calling `onText`/`onThinking` for each piece as it arrives, and
 * returns the reply's usage, with its text and thinking when `keepText` asks for them. The reply is
 * bounded (`maxBytes`) either way: the library folds the final answer as the events go by, so an
 * endless reply would otherwise end at V8's largest string, in several hundred MB.
 * @category constructors
 */
export const streamChat = (
  prepared: PreparedChat,
  options: ChatStreamOptions
): Effect.Effect<ChatOutcome, StreamError | InvalidRequest, Gateway> =>
  Effect.gen(function* () {
    const gateway = yield* Gateway
    const maxBytes = options.maxBytes ?? defaultLimits.maxResponseBytes
    const keep = options.keepText ?? true
    let bytes = 0
    let text = ""
    let thinking = ""
    const count = (t: string) =>
      (bytes += Buffer.byteLength(t, "utf8")) > maxBytes
        ? Effect.fail(replyTooLarge(prepared.family, maxBytes))
        : Effect.void
    const onEvent = (event: TokenEvent) =>
      Effect.gen(function* () {
        for (const t of thinkingOf(event)) {
          yield* count(t)
          if (keep) thinking += t
          yield* options.onThinking(t)
        }
        for (const t of textOf(event)) {
          yield* count(t)
          if (keep) text += t
          yield* options.onText(t)
        }
      })
    switch (prepared.family) {
      case "messages": {
        const m = yield* runToFinal(gateway.messages.stream(prepared.body), onEvent)
        return { family: prepared.family, text, thinking, usage: m.usage, stop: m.stop_reason ?? undefined }
      }
      case "native": {
        const r = yield* runToFinal(gateway.native.stream(prepared.request), onEvent)
        return {
          family: prepared.family,
          text,
          thinking,
          usage: r.usageMetadata,
          stop: firstCandidate(r)?.finishReason ?? undefined
        }
      }
      case "chat": {
        const c = yield* runToFinal(gateway.chat.stream(prepared.body), onEvent)
        return {
          family: prepared.family,
          text,
          thinking,
          usage: c.usage,
          stop: c.choices[0]?.finish_reason ?? undefined
        }
      }
      case "responses": {
        const r = yield* runToFinal(gateway.responses.stream(prepared.body), onEvent)
        return { family: prepared.family, text, thinking, usage: r.usage, stop: r.status ?? undefined }
      }
    }
  })

/** One count of a usage object (`output_tokens`, `thoughtsTokenCount`, …), when present. @category getters */
export const usageCount = (usage: unknown, key: string): number | undefined => {
  if (typeof usage !== "object" || usage === null) return undefined
  const value: unknown = (usage as Readonly<Record<string, unknown>>)[key]
  return typeof value === "number" ? value : undefined
}

/** The usage object as `key=value` pairs (numbers only). @category output */
export const usageText = (usage: unknown): string =>
  typeof usage === "object" && usage !== null
    ? Object.entries(usage)
        .filter(([, v]) => typeof v === "number")
        .map(([k, v]) => `${k}=${String(v)}`)
        .join(" ")
    : ""

/** The options of `umg chat`. @category models */
export interface ChatOptions extends Connection.CommonOptions {
  readonly model: string
  readonly system: Option.Option<string>
  readonly maxTokens: Option.Option<number>
  readonly thinking: Option.Option<number>
  readonly temperature: Option.Option<number>
  readonly prompt: string
}

/** Runs `umg chat`. @category commands */
export const runChat = (o: ChatOptions) =>
  Effect.gen(function* () {
    const prepared = yield* prepareChat(
      {
        model: o.model,
        prompt: yield* promptText(o.prompt),
        ...Option.match(o.system, { onNone: () => ({}), onSome: (system) => ({ system }) }),
        ...Option.match(o.maxTokens, { onNone: () => ({}), onSome: (maxTokens) => ({ maxTokens }) }),
        ...Option.match(o.thinking, { onNone: () => ({}), onSome: (thinking) => ({ thinking }) }),
        ...Option.match(o.temperature, { onNone: () => ({}), onSome: (temperature) => ({ temperature }) })
      },
      yield* Connection.routing(o)
    )
    yield* Connection.run(
      o,
      Effect.gen(function* () {
        // With --json the result is one document at the end; without, the text streams to stdout
        // and the thinking to stderr (dimmed), ended by a newline once the answer starts.
        let thinkingOpen = false
        let lineOpen = false
        const outcome = yield* streamChat(prepared, {
          keepText: o.json,
          maxBytes: (yield* Connection.Connection).config.limits?.maxResponseBytes ?? defaultLimits.maxResponseBytes,
          onText: (t) =>
            o.json
              ? Effect.void
              : Effect.suspend(() => {
                  const endThinking = thinkingOpen ? Output.writeErr("\n") : Effect.void
                  thinkingOpen = false
                  lineOpen = !t.endsWith("\n")
                  return Effect.andThen(endThinking, Output.writeDrained(t))
                }),
          onThinking: (t) =>
            o.json
              ? Effect.void
              : Effect.suspend(() => {
                  thinkingOpen = true
                  return Output.writeErr(Output.errColour.dim(t))
                })
        }).pipe(
          // A reply that failed or was stopped mid-way ends its partial lines, always (not only on a
          // terminal): the report then starts a line of its own, and piped output ends with a newline
          // as every complete reply does, so a line reader does not lose the last partial line.
          Effect.onError(() =>
            Effect.andThen(thinkingOpen ? Output.writeErr("\n") : Effect.void, lineOpen ? Output.line() : Effect.void)
          )
        )
        if (o.json) return yield* Output.json({ model: o.model, ...outcome })
        yield* Output.line()
        yield* Output.note(
          Output.errColour.dim(`[${outcome.family}] stop=${outcome.stop ?? "?"} ${usageText(outcome.usage)}`)
        )
      })
    )
  })
