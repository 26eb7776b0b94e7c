/**
 * Spans and metrics the Effect way, in one place. Every call of every group runs in a span named for it
 * (`umg.chat.create`, …) of kind `client`, carrying the OpenTelemetry GenAI semantic-convention
 * attributes (open-telemetry/semantic-conventions-genai, "client inference"): `gen_ai.operation.name`,
 * `gen_ai.provider.name` (the family; also under its deprecated name `gen_ai.system`),
 * `gen_ai.request.model` and the request's numeric parameters (`gen_ai.request.max_tokens`,
 * `temperature`, …, `gen_ai.request.stream`, `gen_ai.output.type`); from the answer (a stream's: its
 * final answer, read once as it ends) `gen_ai.response.id` / `model` / `finish_reasons` and
 * `gen_ai.usage.input_tokens` / `output_tokens`; `error.type` (the error's tag) when the call fails. The
 * transport adds the HTTP status, `server.address` / `server.port` and the gateway's request id. No
 * attribute ever holds a body, a prompt, a key or a token: only the model id, numbers, known enum values,
 * statuses and ids are read, and every text the server sends back is redacted of the call's secrets.
 *
 * Spans are made for a tracer that can export them: under Effect's own tracer (what every fiber has
 * unless a tracer is provided, as `@effect/opentelemetry` does) no span leaves the process, so none is
 * made (a span costs fiber steps and allocation on every call) and nothing is annotated.
 *
 * Every call also records the conventions' client metrics (`Metrics`), once, as it ends, whatever the
 * tracer: `gen_ai.client.operation.duration`, `gen_ai.client.token.usage` and, for an event stream whose
 * transport notes its first event (`Opened.firstEventAt`), `gen_ai.client.operation.time_to_first_chunk`,
 * with the span's own values for the attributes the conventions give them (operation, provider,
 * requested and answering model, server, `error.type`). They are Effect metrics, in the call's
 * `Metric.MetricRegistry`, for whatever exporter reads it; a record is a few map lookups, and nothing is
 * done per event. An untraced call builds no attributes until it ends (the transport only notes the URL
 * that answered), and a stream's metrics are recorded by its transport's own finalizer (`Opened.onClose`).
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as Option from "effect/Option"
import * as Result from "effect/Result"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import { hostShown, redactError, redactText } from "../../core/errors/Redact.js"
import { fromScopedOpen, type Opened, openedOf } from "../sse/Consume.js"
import * as Metrics from "./Metrics.js"

/** The GenAI operation name of each call, by `group.method` (the convention's well-known names where one fits). */
const operations: Readonly<Record<string, string>> = {
  "messages.create": "chat",
  "messages.stream": "chat",
  "messages.countTokens": "count_tokens",
  "native.generate": "generate_content",
  "native.stream": "generate_content",
  "chat.create": "chat",
  "chat.stream": "chat",
  "responses.create": "chat",
  "responses.stream": "chat",
  "embeddings.create": "embeddings",
  "embeddings.embedMany": "embeddings",
  "rerank.create": "rerank",
  "speech.create": "text_to_speech",
  "speech.stream": "text_to_speech",
  "images.generate": "image_generation",
  "video.submit": "video_generation",
  "video.get": "video_generation",
  "video.download": "video_generation",
  "video.poll": "video_generation",
  "video.wait": "video_generation",
  "video.waitAll": "video_generation",
  "video.follow": "video_generation",
  "video.generate": "video_generation",
  "realtime.connect": "realtime",
  "live.connect": "realtime",
  "models.list": "list_models",
  "models.has": "list_models"
}

/** The provider (`gen_ai.provider.name`, formerly `gen_ai.system`) of each group: the family it speaks. */
const providers: Readonly<Record<string, string>> = {
  messages: "epsilon",
  native: "zeta",
  chat: "openai",
  responses: "openai",
  embeddings: "openai",
  rerank: "rerank",
  speech: "openai",
  images: "zeta",
  video: "video",
  realtime: "openai",
  live: "zeta",
  models: "gateway",
  platform: "platform"
}

const num = (v: unknown): number | undefined => (typeof v === "number" && Number.isFinite(v) ? v : undefined)

/** The usage record of an answer in any family's shape, when it has one. */
const usageRecordOf = (answer: unknown): Record<string, unknown> | undefined => {
  if (typeof answer !== "object" || answer === null) return undefined
  const a = answer as Record<string, unknown>
  const found: unknown =
    a.usage ??
    a.usageMetadata ??
    (typeof a.message === "object" && a.message !== null ? (a.message as Record<string, unknown>).usage : undefined)
  return typeof found === "object" && found !== null ? (found as Record<string, unknown>) : undefined
}

/**
 * Token counts of an answer in any family's usage shape, when it has them, in the family's own terms
 * (messages-style `input_tokens` leaves out the tokens read from or written to the cache).
 * @category accessors
 */
export const usageOf = (answer: unknown): { readonly input?: number; readonly output?: number } => {
  const usage = usageRecordOf(answer)
  if (usage === undefined) return {}
  const input = num(usage.input_tokens) ?? num(usage.prompt_tokens) ?? num(usage.promptTokenCount)
  const output = num(usage.output_tokens) ?? num(usage.completion_tokens) ?? num(usage.candidatesTokenCount)
  return { ...(input !== undefined ? { input } : {}), ...(output !== undefined ? { output } : {}) }
}

const record = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined

const text = (v: unknown): string | undefined => (typeof v === "string" && v.length > 0 ? v : undefined)

/** The sampling parameters the conventions name, from a messages, chat, responses or native body: numbers only. */
const parametersOf = (body: Record<string, unknown>): Record<string, number> => {
  const config = record(body.generationConfig) ?? {}
  const found: Record<string, number | undefined> = {
    "gen_ai.request.max_tokens":
      num(body.max_tokens) ??
      num(body.max_completion_tokens) ??
      num(body.max_output_tokens) ??
      num(config.maxOutputTokens),
    "gen_ai.request.temperature": num(body.temperature) ?? num(config.temperature),
    "gen_ai.request.top_p": num(body.top_p) ?? num(config.topP),
    "gen_ai.request.top_k": num(body.top_k) ?? num(config.topK),
    "gen_ai.request.seed": num(body.seed) ?? num(config.seed),
    "gen_ai.request.frequency_penalty": num(body.frequency_penalty) ?? num(config.frequencyPenalty),
    "gen_ai.request.presence_penalty": num(body.presence_penalty) ?? num(config.presencePenalty)
  }
  // The convention records the number of choices only when it is not the default, 1.
  const choices = num(body.n) ?? num(config.candidateCount)
  if (choices !== 1) found["gen_ai.request.choice.count"] = choices
  const out: Record<string, number> = {}
  for (const key in found) if (found[key] !== undefined) out[key] = found[key]
  return out
}

/** The output modality asked for (`gen_ai.output.type`), when the body names one. */
const outputTypeOf = (group: string, body: Record<string, unknown>): string | undefined => {
  if (group === "speech") return "speech"
  if (group === "images") return "image"
  const format =
    record(body.response_format)?.type ??
    record(record(body.text)?.format)?.type ??
    record(body.generationConfig)?.responseMimeType
  if (format === "json_object" || format === "json_schema" || format === "application/json") return "json"
  if (format === "text" || format === "text/plain") return "text"
  return undefined
}

const textOperations = new Set(["chat", "generate_content"])

/**
 * What the call is: its operation, provider and requested model (from the body, its first argument).
 * The span's first attributes, and every metric's.
 */
const callAttributes = (group: string, operation: string, args: ReadonlyArray<unknown>): Record<string, string> => {
  const provider = providers[group] ?? group
  const out: Record<string, string> = {
    "gen_ai.operation.name": operation,
    "gen_ai.provider.name": provider,
    // Deprecated by the conventions for `gen_ai.provider.name`; still what dashboards built on older ones read.
    "gen_ai.system": provider
  }
  const model = record(args[0])?.model
  if (typeof model === "string") out["gen_ai.request.model"] = model
  return out
}

/** The request's attributes, from the call's body (its first argument): the model id, numbers and known values only. */
const requestAttributes = (
  group: string,
  method: string,
  operation: string,
  args: ReadonlyArray<unknown>
): Record<string, unknown> => {
  const out: Record<string, unknown> = callAttributes(group, operation, args)
  const body = record(args[0])
  if (body === undefined) return out
  if (method === "stream") out["gen_ai.request.stream"] = true
  if (textOperations.has(operation)) Object.assign(out, parametersOf(body))
  if (operation === "embeddings" && num(body.dimensions) !== undefined)
    out["gen_ai.embeddings.dimension.count"] = body.dimensions
  const output = outputTypeOf(group, body)
  if (output !== undefined) out["gen_ai.output.type"] = output
  return out
}

/** The finish reason of each generation of an answer, in any text family's shape; `error` where one is missing. */
const finishReasonsOf = (answer: Record<string, unknown>): ReadonlyArray<unknown> | undefined => {
  const each = (items: unknown, key: string) =>
    Array.isArray(items) ? items.slice(0, 64).map((item) => record(item)?.[key] ?? "error") : undefined
  if (answer.object === "response") return [record(answer.incomplete_details)?.reason ?? answer.status]
  if (answer.type === "message") return answer.stop_reason === null ? undefined : [answer.stop_reason]
  return each(answer.choices, "finish_reason") ?? each(answer.candidates, "finishReason")
}

/** The model that answered (`gen_ai.response.model`), redacted of the call's secrets: the span's and the metrics'. */
const responseModelOf = (a: Record<string, unknown>, secrets: ReadonlyArray<string>): string | undefined => {
  const model = text(a.model) ?? text(a.modelVersion)
  return model === undefined ? undefined : redactText(model, secrets, 200)
}

/**
 * The answer's id, model and finish reasons: text the server chose, so each is redacted of the call's
 * secrets and cut short (a hostile server may echo a key into an id).
 */
const responseAttributes = (answer: unknown, secrets: ReadonlyArray<string>): Record<string, unknown> => {
  const a = record(answer)
  if (a === undefined) return {}
  const out: Record<string, unknown> = {}
  const id = text(a.id) ?? text(a.responseId)
  const model = responseModelOf(a, secrets)
  if (id !== undefined) out["gen_ai.response.id"] = redactText(id, secrets, 200)
  if (model !== undefined) out["gen_ai.response.model"] = model
  const reasons = finishReasonsOf(a)
  if (reasons !== undefined && reasons.every((r) => text(r) !== undefined))
    out["gen_ai.response.finish_reasons"] = reasons.map((r) => redactText(r as string, secrets, 64))
  return out
}

/**
 * The failure a call ended with, as `error.type`: its tag (`RateLimited`, `IncompleteStream`, …), an
 * error's name, or `_OTHER`; none when it was only interrupted (a cancelled call did not fail).
 */
const errorTypeOf = (cause: Cause.Cause<unknown>): string | undefined => {
  if (Cause.hasInterruptsOnly(cause)) return undefined
  const error = Cause.squash(cause)
  const tag = record(error)?._tag
  if (typeof tag === "string" && tag.length > 0) return tag
  return error instanceof Error ? error.name : "_OTHER"
}

/** The secrets a call's answer could echo: the gateway's, and the values of the call's own headers. */
const secretsOfCall = (secrets: ReadonlyArray<string>, args: ReadonlyArray<unknown>): ReadonlyArray<string> => {
  const headers = args.length > 1 ? record(record(args[args.length - 1])?.headers) : undefined
  return headers === undefined ? secrets : [...secrets, ...Object.values(headers).filter((v) => typeof v === "string")]
}

/** The server attributes of each origin seen, so that a URL is parsed once per origin rather than per call. */
const servers = new Map<string, Readonly<Record<string, string | number>>>()

/**
 * `server.address` and `server.port` of a request's URL: the host, without brackets or credentials,
 * and the port, the scheme's when the URL names none. Read for every call (its metrics carry them), so
 * each origin is parsed once.
 * @category tracing
 */
export const serverAttributes = (url: string): Readonly<Record<string, string | number>> => {
  const slash = url.indexOf("/", url.indexOf("//") + 2)
  const origin = slash === -1 ? url : url.slice(0, slash)
  const known = servers.get(origin)
  if (known !== undefined) return known
  const parsed = URL.parse(origin)
  const found =
    parsed === null
      ? {}
      : {
          "server.address": parsed.hostname.replace(/^\[|\]$/g, ""),
          "server.port":
            parsed.port !== ""
              ? Number(parsed.port)
              : parsed.protocol === "https:" || parsed.protocol === "wss:"
                ? 443
                : 80
        }
  if (servers.size >= 64) servers.clear()
  servers.set(origin, found)
  return found
}

/**
 * Set by a face whose framework's span already carries the call's usage (umg/ai: Effect AI's
 * `LanguageModel` span, which umg annotates): the gateway call's span inside it then leaves
 * `gen_ai.usage.*` out, so a backend that sums usage over a trace (Langfuse, Datadog) counts it once.
 * The call's metrics keep its tokens: Effect AI records no metric, so they are counted once there too.
 * @category tracing
 */
export const UsageOnOuterSpan = Context.Reference<boolean>("umg/adapters/Telemetry/UsageOnOuterSpan", {
  defaultValue: () => false
})

/** The tracer every fiber has unless one is provided: Effect's own, whose spans nothing exports. */
const unexported: Tracer.Tracer = Effect.runSync(Effect.tracer)

const isExported = (fiber: Fiber.Fiber<unknown, unknown>): boolean => fiber.getRef(Tracer.Tracer) !== unexported

/** `traced` under a tracer that exports spans, `untraced` under Effect's own. */
const whenExported = <A, E, R>(
  traced: () => Effect.Effect<A, E, R>,
  untraced: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => Effect.withFiber((fiber) => (isExported(fiber) ? traced() : untraced))

/** Sets `attributes` on `span`. */
const setAll = (span: Tracer.Span, attributes: Readonly<Record<string, unknown>>): void => {
  for (const key in attributes) span.attribute(key, attributes[key])
}

/**
 * A call's span: its name and options, the attributes of its answer (made only when a tracer exports
 * the span), and what its metrics carry. @category models
 */
export interface CallSpan {
  readonly name: string
  readonly options: () => Tracer.SpanOptions
  /** The answer's attributes; with `usage` false (`UsageOnOuterSpan`), without its token counts. */
  readonly answer: (answer: unknown, usage: boolean) => Readonly<Record<string, unknown>>
  /** What the call is: the span's operation, provider and requested model, made afresh. */
  readonly identity: () => Record<string, string>
  /** Every secret the call's answers could echo (the gateway's, the call's own headers'). */
  readonly secrets: () => ReadonlyArray<string>
}

/**
 * One run of a call (an effect's run, a stream's), as its span and metrics see it: when it started, the
 * server that answered (noted by `annotate` as the transport reads the answer), and for a streaming call
 * its span and its opening (whose final answer and first event are read once, as it ends).
 */
interface CallRun {
  readonly call: CallSpan
  /** The context the call runs in: its metrics go to its registry, with its metric attributes. */
  readonly context: Context.Context<never>
  readonly clock: Clock.Clock
  readonly startedNs: bigint
  /** A stream's start on the clock its transport notes its first event by (milliseconds). */
  startedMs: number | undefined
  /** The URL that answered (its last hop), noted by `annotate`: the metrics' server, read as the run ends. */
  answeredBy: string | undefined
  span: Tracer.Span | undefined
  opened: Opened<unknown, unknown, unknown> | undefined
  final: Exit.Exit<unknown, unknown> | undefined
}

/** The run of the call a fiber is in (`traceGroup`), the innermost one. */
const CurrentCall = Context.Reference<CallRun | undefined>("umg/adapters/Telemetry/CurrentCall", {
  defaultValue: () => undefined
})

const startRun = (fiber: Fiber.Fiber<unknown, unknown>, call: CallSpan): CallRun => {
  const clock = fiber.getRef(Clock.Clock)
  return {
    call,
    context: fiber.context,
    clock,
    startedNs: clock.monotonicTimeNanosUnsafe(),
    startedMs: undefined,
    answeredBy: undefined,
    span: undefined,
    opened: undefined,
    final: undefined
  }
}

/**
 * Sets attributes on the current span, when there is one and a tracer exports it; given a function, it
 * is called only then. `answeredBy`, the URL that answered, is noted for the metrics of the call it runs
 * in (their `server.address` and `server.port`, read from it once as the call ends), whatever the
 * tracer: an untraced call builds nothing here. (`Effect.annotateCurrentSpan` builds and drops a
 * `NoSuchElementException`, stack and all, on every untraced call.)
 * @category tracing
 */
export const annotate = (
  attributes: Readonly<Record<string, unknown>> | (() => Readonly<Record<string, unknown>>),
  answeredBy?: string
): Effect.Effect<void> =>
  Effect.withFiber((fiber) => {
    if (answeredBy !== undefined) {
      const run = fiber.getRef(CurrentCall)
      if (run !== undefined) run.answeredBy = answeredBy
    }
    if (!isExported(fiber)) return Effect.void
    const parent = Context.getOption(fiber.context, Tracer.ParentSpan)
    if (Option.isNone(parent) || parent.value._tag !== "Span") return Effect.void
    const span = parent.value
    const given = typeof attributes === "function" ? attributes() : attributes
    const run = fiber.getRef(CurrentCall)
    setAll(span, run === undefined ? given : withServerShown(given, run.call.secrets))
    return Effect.void
  })

/**
 * `attributes` with their `server.address` as a span or a metric may show it: the answering host is
 * the server's choice when a redirect named it, and a hostile one may hold a secret. A host name is
 * lower-cased by the URL parser, so a secret is looked for whatever its case, and the whole host is
 * hidden when it holds one.
 */
const withServerShown = (
  attributes: Readonly<Record<string, unknown>>,
  secrets: () => ReadonlyArray<string>
): Readonly<Record<string, unknown>> => {
  const host = attributes["server.address"]
  if (typeof host !== "string") return attributes
  const shown = hostShown(host, secrets())
  return shown === host ? attributes : { ...attributes, "server.address": shown }
}

/** The usage attributes of an answer: none when it has no counts. */
const usageAttributes = (answer: unknown): Record<string, number> => {
  const usage = usageRecordOf(answer)
  if (usage === undefined) return {}
  const { input, output } = usageOf(answer)
  // Cached input: messages-style counts it apart from `input_tokens`; the others count it within.
  const written = num(usage.cache_creation_input_tokens)
  const read =
    num(usage.cache_read_input_tokens) ??
    num(record(usage.prompt_tokens_details)?.cached_tokens) ??
    num(record(usage.input_tokens_details)?.cached_tokens) ??
    num(usage.cachedContentTokenCount)
  const apart = (num(usage.cache_read_input_tokens) ?? 0) + (written ?? 0)
  const attributes: Record<string, number> = {}
  // The conventions' input count includes the cached tokens, whatever the family's own terms.
  if (input !== undefined) attributes["gen_ai.usage.input_tokens"] = input + apart
  if (output !== undefined) attributes["gen_ai.usage.output_tokens"] = output
  if (read !== undefined) attributes["gen_ai.usage.cache_read.input_tokens"] = read
  if (written !== undefined) attributes["gen_ai.usage.cache_creation.input_tokens"] = written
  return attributes
}

/** `error.type` of a failed call on the current span; nothing for an interruption. */
const annotateError = (cause: Cause.Cause<unknown>): Effect.Effect<void> => {
  const type = errorTypeOf(cause)
  return type === undefined ? Effect.void : annotate({ "error.type": type })
}

/**
 * A bound on the answering models (or servers) the metrics tell apart, made by `modelSeries`: past
 * `max` names, a new one counts as `_OTHER` (OpenTelemetry's word for a value past a bound). The model
 * is the server's text, and every name is a series kept for the life of the process in Effect's
 * registry: a server naming a new model in each answer would otherwise grow it without end.
 * @internal
 */
export const modelSeries = (max: number): ((model: string) => string) => {
  const seen = new Set<string>()
  return (model) => {
    if (seen.has(model)) return model
    if (seen.size >= max) return "_OTHER"
    seen.add(model)
    return model
  }
}

/** The answering models of this process's metrics: at most 256 apart. */
const responseModelSeries = modelSeries(256)

/**
 * The servers of this process's metrics: at most 64 hosts apart, and 1024 ports of those hosts. The
 * answering server is the last hop's, which a redirect chooses: a gateway redirecting each call to a
 * new host (or port) would otherwise grow the registry without end, as a new model name would.
 */
const serverHosts = modelSeries(64)
const serverPorts = modelSeries(1024)

/**
 * The attributes of a call's metrics: the span's, for the keys the conventions give the metrics (what
 * the call is, the model that answered, the server), as strings, as Effect's metrics hold them.
 */
const metricAttributes = (run: CallRun, answer: Record<string, unknown> | undefined): Record<string, string> => {
  const out = run.call.identity()
  // The call's secrets, made once for the model and the server alike.
  const secrets = run.call.secrets()
  const model = answer === undefined ? undefined : responseModelOf(answer, secrets)
  if (model !== undefined) out["gen_ai.response.model"] = responseModelSeries(model)
  const server =
    run.answeredBy === undefined ? undefined : withServerShown(serverAttributes(run.answeredBy), () => secrets)
  if (server !== undefined && server["server.address"] !== undefined) {
    const host = serverHosts(String(server["server.address"]))
    out["server.address"] = host
    const port = server["server.port"]
    if (port !== undefined)
      out["server.port"] =
        host === "_OTHER" ? host : serverPorts(`${host}:${String(port)}`) === "_OTHER" ? "_OTHER" : String(port)
  }
  return out
}

const inputTokens = ["gen_ai.token.type", "input"] as const
const outputTokens = ["gen_ai.token.type", "output"] as const

/**
 * A call's metrics, recorded once as it ends, whatever ran it: its duration (`error.type` when it
 * failed: the span's, from the same rule); its answer's tokens, counted as the span counts them, when
 * it ended with one and without failing (the conventions record no token histogram for a failed call);
 * a stream's time to its first event. A cancelled call did not fail: its duration has no `error.type`,
 * as its span has none, and without an answer it counts no tokens.
 */
const recordRun = (run: CallRun, failure: Cause.Cause<unknown> | undefined, answer: unknown): void => {
  const seconds = Number(run.clock.monotonicTimeNanosUnsafe() - run.startedNs) / 1e9
  const a = record(answer)
  const series = Metrics.seriesOf(metricAttributes(run, a))
  const errorType = failure === undefined ? undefined : errorTypeOf(failure)
  const failed = errorType === undefined ? undefined : (["error.type", errorType] as const)
  Metrics.record(Metrics.operationDuration, series, seconds, run.context, failed)
  if (a !== undefined && errorType === undefined) {
    const usage = usageAttributes(a)
    const input = usage["gen_ai.usage.input_tokens"]
    const output = usage["gen_ai.usage.output_tokens"]
    if (input !== undefined) Metrics.record(Metrics.tokenUsage, series, input, run.context, inputTokens)
    if (output !== undefined) Metrics.record(Metrics.tokenUsage, series, output, run.context, outputTokens)
  }
  const first = run.opened?.firstEventAt?.()
  // In whole milliseconds of the wall clock (the duration is in nanoseconds of the monotonic one).
  if (first !== undefined && run.startedMs !== undefined)
    Metrics.record(Metrics.timeToFirstChunk, series, Math.max(0, first - run.startedMs) / 1000, run.context)
}

/** A final answer's value, when it has one. */
const finalValue = (final: Exit.Exit<unknown, unknown>): unknown => (Exit.isSuccess(final) ? final.value : undefined)

/** A streaming call's final answer, read once however many read it, from the transport's `resultNow`. */
const finalNow = (run: CallRun, resultNow: () => Result.Result<unknown, unknown>): Exit.Exit<unknown, unknown> => {
  if (run.final === undefined) {
    const final = resultNow()
    run.final = Result.isSuccess(final) ? Exit.succeed(final.success) : Exit.fail(final.failure)
  }
  return run.final
}

/** A streaming call's final answer (its `result`), read once however many read it. */
const finalOf = (
  run: CallRun,
  opened: Opened<unknown, unknown, unknown>
): Effect.Effect<Exit.Exit<unknown, unknown>> => {
  if (run.final !== undefined) return Effect.succeed(run.final)
  const resultNow = opened.resultNow
  return resultNow !== undefined
    ? Effect.sync(() => finalNow(run, resultNow))
    : Effect.map(Effect.exit(opened.result), (final) => (run.final = final))
}

/**
 * A stream's span as it ends: its final answer's attributes (usage, id, model, finish reasons). A
 * stream that ends without one (stopped early, cut, failed) has the finish reason `error`, as the
 * conventions ask for a generation that ended before its finish reason came.
 */
const annotateStreamSpan = (
  span: Tracer.Span,
  run: CallRun,
  opened: Opened<unknown, unknown, unknown>,
  usage: boolean
): Effect.Effect<void> =>
  Effect.map(finalOf(run, opened), (final) =>
    Exit.isFailure(final)
      ? span.attribute("gen_ai.response.finish_reasons", ["error"])
      : setAll(span, run.call.answer(final.value, usage))
  )

/** A stream's metrics as it ends (`recordRun`), with its scope's exit and its final answer. */
const recordStream = (run: CallRun, exit: Exit.Exit<unknown, unknown>): Effect.Effect<void> => {
  const failure = Exit.isFailure(exit) ? exit.cause : undefined
  const opened = run.opened
  if (opened === undefined) return Effect.sync(() => recordRun(run, failure, undefined))
  return Effect.map(finalOf(run, opened), (final) => recordRun(run, failure, finalValue(final)))
}

/**
 * `open` as one run of a call, in the stream's scope. Its metrics are recorded as it ends: when `open`
 * fails (or is interrupted), at once; once it has opened, as the scope closes, by the transport's own
 * finalizer (`Opened.onClose`: a finalizer of their own cost a short stream about a tenth of its CPU),
 * else by a finalizer. When `open` opened a span (`inSpanScoped`), a finalizer added after it puts the
 * final answer's attributes on it before it ends (the scope's finalizers run last-added first).
 * Nothing is read per event: the final answer is the one the transport folded as the events went by
 * (as `runToFinal` gives it), and the time of the first event the one it noted.
 */
const openRun = <A, E, Z, R>(
  fiber: Fiber.Fiber<unknown, unknown>,
  call: CallSpan,
  open: Effect.Effect<Opened<A, E, Z>, E, R>
): Effect.Effect<Opened<A, E, Z>, E, R | Scope.Scope> => {
  const run = startRun(fiber, call)
  run.startedMs = run.clock.currentTimeMillisUnsafe()
  const usage = !fiber.getRef(UsageOnOuterSpan)
  const opening = Effect.onError(Effect.provideService(open, CurrentCall, run), (cause) =>
    Effect.sync(() => recordRun(run, cause, undefined))
  )
  return Effect.flatMap(opening, (opened) => {
    const seen = opened as Opened<unknown, unknown, unknown>
    run.opened = seen
    const { onClose, resultNow } = seen
    const hooked = onClose !== undefined && resultNow !== undefined
    if (hooked)
      onClose((exit) =>
        recordRun(run, Exit.isFailure(exit) ? exit.cause : undefined, finalValue(finalNow(run, resultNow)))
      )
    let finalizers: Effect.Effect<void, never, Scope.Scope> | undefined = hooked
      ? undefined
      : Effect.addFinalizer((exit) => recordStream(run, exit))
    const span = run.span
    if (span !== undefined) {
      const annotated = Effect.addFinalizer(() => annotateStreamSpan(span, run, seen, usage))
      finalizers = finalizers === undefined ? annotated : Effect.andThen(finalizers, annotated)
    }
    return finalizers === undefined ? Effect.succeed(opened) : Effect.as(finalizers, opened)
  })
}

const SpannableTypeId: unique symbol = Symbol.for("umg/adapters/Telemetry/Spannable")

/**
 * A stream that can open its call's span itself, when it starts: `build(span)` gives the stream, made
 * once, whose start reads `span()` — the call's span once `traceGroup` has set it, else `undefined`.
 * `traceGroup` uses it instead of `Stream.withSpan`, which puts the stream inside two more stream
 * layers (an acquire-use-release around it) — memory that every open stream pays. A streaming call's
 * own stream (a `ResultStream`) is remade over the same opening, run as one run of the call
 * (`openRun`), so that its final answer's attributes go on the span and its metrics are recorded as it
 * ends: still one stream layer, nothing more per event.
 * @category constructors
 */
export const spannable = <S extends Stream.Stream<unknown, unknown, unknown>>(
  build: (span: () => CallSpan | undefined) => S
): S => {
  // A stream's making only describes it (nothing runs until it is run): the span it will open is set
  // on it afterwards, by `traceGroup`, rather than the stream being made a second time with it.
  let span: CallSpan | undefined
  const built = build(() => span)
  const open = openedOf(built)
  const stream: S =
    open === undefined
      ? built
      : (fromScopedOpen(
          Effect.withFiber((fiber) => (span === undefined ? open : openRun(fiber, span, open)))
        ) as unknown as S)
  return Object.assign(stream, {
    [SpannableTypeId]: (call: CallSpan) => {
      span = call
    }
  })
}

/**
 * `effect` run with the call's span (`span()`, read when it starts) as its parent, the span ending
 * when the scope closes (with the scope's exit, and `error.type` when that is a failure); `effect`
 * itself when there is no span or no tracer exports it.
 * @category combinators
 */
export const inSpanScoped = <A, E, R>(
  span: () => CallSpan | undefined,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R | Scope.Scope> =>
  whenExported<A, E, R | Scope.Scope>(() => {
    const call = span()
    if (call === undefined) return effect
    return Effect.flatMap(Effect.makeSpanScoped(call.name, call.options()), (made) =>
      Effect.withFiber((fiber) => {
        // The run of a `spannable` stream notes its span, for the attributes of its final answer.
        const run = fiber.getRef(CurrentCall)
        if (run !== undefined && run.call === call) run.span = made
        // Added after the span's own finalizer, so run before it: the span ends with its error's type.
        const errorType = Effect.addFinalizer((exit) =>
          Effect.sync(() => {
            const type = Exit.isFailure(exit) ? errorTypeOf(exit.cause) : undefined
            if (type !== undefined) made.attribute("error.type", type)
          })
        )
        return Effect.andThen(errorType, Effect.withParentSpan(effect, made))
      })
    )
  }, effect)

/**
 * A call's effect as one run of the call: in its span when a tracer exports it (the answer's attributes
 * set from its value, `error.type` from its failure), its metrics recorded as it ends.
 */
const tracedEffect = <A, E, R>(effect: Effect.Effect<A, E, R>, call: CallSpan): Effect.Effect<A, E, R> =>
  Effect.withFiber((fiber) => {
    const run = startRun(fiber, call)
    const spanned = isExported(fiber)
      ? Effect.withSpan(
          Effect.onError(
            Effect.tap(effect, (answer) => annotate(() => call.answer(answer, !fiber.getRef(UsageOnOuterSpan)))),
            annotateError
          ),
          call.name,
          call.options()
        )
      : effect
    return Effect.onExitPrimitive(Effect.provideService(spanned, CurrentCall, run), (exit) => {
      if (Exit.isSuccess(exit)) recordRun(run, undefined, exit.value)
      else recordRun(run, exit.cause, undefined)
      return undefined
    })
  })

/**
 * A call's stream in its span: a `spannable` one opens it itself (and records its metrics); any other
 * (speech, video polls: few elements each) runs as one run of the call, its metrics recorded as it
 * ends, in `Stream.withSpan` when a tracer exports it, with `error.type` from its failure.
 */
const tracedStream = <A, E, R>(stream: Stream.Stream<A, E, R>, call: CallSpan): Stream.Stream<A, E, R> => {
  const setSpan = (stream as { [SpannableTypeId]?: (span: CallSpan) => void })[SpannableTypeId]
  if (setSpan !== undefined) {
    setSpan(call)
    return stream
  }
  return Stream.unwrap(
    Effect.withFiber((fiber) => {
      const run = startRun(fiber, call)
      const measured = Stream.onExit(Stream.provideService(stream, CurrentCall, run), (exit) =>
        Effect.sync(() => recordRun(run, Exit.isFailure(exit) ? exit.cause : undefined, undefined))
      )
      return Effect.succeed(
        isExported(fiber)
          ? Stream.withSpan(Stream.onError(measured, annotateError), call.name, call.options())
          : measured
      )
    })
  )
}

/**
 * The group with every call wrapped in its span and recording its metrics. Effects get the span around
 * them (the answer's attributes read from it); streams get it around the whole stream.
 * @category combinators
 */
export const traceGroup = <G extends object>(
  group: string,
  calls: G,
  secrets: () => ReadonlyArray<string> = () => []
): G => {
  const redact = <E>(error: E): E => redactError(error, secrets())
  const out: Record<string, unknown> = {}
  for (const [method, call] of Object.entries(calls)) {
    if (typeof call !== "function") {
      out[method] = call
      continue
    }
    const name = `umg.${group}.${method}`
    const operation = operations[`${group}.${method}`] ?? method
    out[method] = (...args: Array<unknown>) => {
      const made: unknown = (call as (...a: Array<unknown>) => unknown)(...args)
      const callSecrets = () => secretsOfCall(secrets(), args)
      const span: CallSpan = {
        name,
        options: () => ({
          kind: "client",
          attributes: requestAttributes(group, method, operation, args),
          captureStackTrace: false
        }),
        answer: (answer, usage) => ({
          ...(usage ? usageAttributes(answer) : {}),
          ...responseAttributes(answer, callSecrets())
        }),
        identity: () => callAttributes(group, operation, args),
        secrets: callSecrets
      }
      // Every error a call ends with has the secrets taken out, inside its span.
      if (Effect.isEffect(made)) return tracedEffect(Effect.mapError(made, redact), span)
      if (Stream.isStream(made))
        return tracedStream(
          (made as { [SpannableTypeId]?: unknown })[SpannableTypeId] === undefined
            ? Stream.mapError(made, redact)
            : made,
          span
        )
      return made
    }
  }
  return out as G
}
