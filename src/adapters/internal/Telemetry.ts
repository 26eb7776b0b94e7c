/**
 * Spans the Effect way, in one place. Every call of every group runs in a span named for it
 * (`umg.chat.create`, …) carrying the OpenTelemetry GenAI semantic-convention attributes —
 * `gen_ai.operation.name`, `gen_ai.system` (the family), `gen_ai.request.model`, and
 * `gen_ai.usage.input_tokens` / `output_tokens` when the answer has them (a stream's: its final
 * answer, read once as it ends); the transport adds the HTTP status and the gateway's request id. No
 * attribute ever holds a body, a key or a token: only the model id, counts, a status and an id are read.
 *
 * Spans are made for a tracer that can export them: under Effect's own tracer (what every fiber has
 * unless a tracer is provided, as `@effect/opentelemetry` does) no span leaves the process, so none is
 * made (a span costs fiber steps and allocation on every call) and nothing is annotated.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as Tracer from "effect/Tracer"
import { redactError } from "../../core/errors/Redact.js"
import { fromScopedOpen, type Opened, openedOf } from "../sse/Consume.js"

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

/** The family (`gen_ai.system`) of each group. */
const systems: Readonly<Record<string, string>> = {
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

/** Token counts of an answer in any family's usage shape, when it has them. @category accessors */
export const usageOf = (answer: unknown): { readonly input?: number; readonly output?: number } => {
  if (typeof answer !== "object" || answer === null) return {}
  const a = answer as Record<string, unknown>
  const found: unknown =
    a.usage ??
    a.usageMetadata ??
    (typeof a.message === "object" && a.message !== null ? (a.message as Record<string, unknown>).usage : undefined)
  if (typeof found !== "object" || found === null) return {}
  const usage = found as Record<string, unknown>
  const input = num(usage.input_tokens) ?? num(usage.prompt_tokens) ?? num(usage.promptTokenCount)
  const output = num(usage.output_tokens) ?? num(usage.completion_tokens) ?? num(usage.candidatesTokenCount)
  return { ...(input !== undefined ? { input } : {}), ...(output !== undefined ? { output } : {}) }
}

const modelOf = (args: ReadonlyArray<unknown>): string | undefined => {
  const first = args[0]
  if (typeof first === "string") return undefined
  if (typeof first === "object" && first !== null && typeof (first as { model?: unknown }).model === "string")
    return (first as { model: string }).model
  return undefined
}

/** The tracer every fiber has unless one is provided: Effect's own, whose spans nothing exports. */
const unexported: Tracer.Tracer = Effect.runSync(Effect.tracer)

/** `traced` under a tracer that exports spans, `untraced` under Effect's own. */
const whenExported = <A, E, R>(
  traced: () => Effect.Effect<A, E, R>,
  untraced: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> =>
  Effect.withFiber((fiber) => (fiber.getRef(Tracer.Tracer) === unexported ? untraced : traced()))

/**
 * Sets attributes on the current span, when there is one and a tracer exports it. (`Effect.annotateCurrentSpan` builds and
 * drops a `NoSuchElementException`, stack and all, on every untraced call.)
 * @category tracing
 */
export const annotate = (attributes: Readonly<Record<string, unknown>>): Effect.Effect<void> =>
  whenExported(
    () =>
      Effect.withFiber((fiber) => {
        const parent = Context.getOption(fiber.context, Tracer.ParentSpan)
        if (Option.isSome(parent) && parent.value._tag === "Span")
          for (const key in attributes) parent.value.attribute(key, attributes[key])
        return Effect.void
      }),
    Effect.void
  )

/** The usage attributes of an answer: none when it has no counts. */
const usageAttributes = (answer: unknown): Record<string, number> => {
  const usage = usageOf(answer)
  const attributes: Record<string, number> = {}
  if (usage.input !== undefined) attributes["gen_ai.usage.input_tokens"] = usage.input
  if (usage.output !== undefined) attributes["gen_ai.usage.output_tokens"] = usage.output
  return attributes
}

const annotateUsage = (answer: unknown) => {
  const attributes = usageAttributes(answer)
  return Object.keys(attributes).length === 0 ? Effect.void : annotate(attributes)
}

/** A call's span: its name and options (made only when a tracer exports the span). @category models */
export interface CallSpan {
  readonly name: string
  readonly options: () => Tracer.SpanOptions
}

const SpannableTypeId: unique symbol = Symbol.for("umg/adapters/Telemetry/Spannable")

/**
 * One run of a `spannable` stream under an exporting tracer: the span `inSpanScoped` opened for it,
 * which the run's usage goes on as the stream ends.
 */
interface SpanRun {
  span: Tracer.Span | undefined
}

/** The run's `SpanRun`, when a run of a `spannable` stream has put one in the context. */
const SpanRun = Context.Reference<SpanRun | undefined>("umg/adapters/Telemetry/SpanRun", {
  defaultValue: () => undefined
})

/**
 * `open` noting the span it opens (`inSpanScoped`), and, when it opened one, a finalizer in the
 * stream's scope that puts the final answer's usage on it: the scope's finalizers run last-added
 * first, so this runs before the span's own ends it. Nothing is read per event: the final answer is
 * the one the transport folded as the events went by (as `runToFinal` gives it), read once.
 */
const withStreamUsage = <A, E, Z, R>(
  open: Effect.Effect<Opened<A, E, Z>, E, R>
): Effect.Effect<Opened<A, E, Z>, E, R | Scope.Scope> => {
  const run: SpanRun = { span: undefined }
  return Effect.flatMap(Effect.provideService(open, SpanRun, run), (opened) => {
    const span = run.span
    if (span === undefined) return Effect.succeed(opened)
    const annotateSpan = Effect.map(Effect.exit(opened.result), (final) => {
      if (Exit.isFailure(final)) return
      const attributes = usageAttributes(final.value)
      for (const key in attributes) span.attribute(key, attributes[key])
    })
    return Effect.as(
      Effect.addFinalizer(() => annotateSpan),
      opened
    )
  })
}

/**
 * A stream that can open its call's span itself, when it starts: `build(span)` gives the stream, made
 * once, whose start reads `span()` — the call's span once `traceGroup` has set it, else `undefined`.
 * `traceGroup` uses it instead of `Stream.withSpan`, which puts the stream inside two more stream
 * layers (an acquire-use-release around it) — memory that every open stream pays. A streaming call's
 * own stream (a `ResultStream`) is remade over the same opening, so that its final answer's usage
 * goes on the span as it ends (`withStreamUsage`): still one stream layer, nothing more per event.
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
      : (fromScopedOpen(whenExported(() => (span === undefined ? open : withStreamUsage(open)), open)) as unknown as S)
  return Object.assign(stream, {
    [SpannableTypeId]: (call: CallSpan) => {
      span = call
    }
  })
}

/**
 * `effect` run with the call's span (`span()`, read when it starts) as its parent, the span ending
 * when the scope closes (with the scope's exit); `effect` itself when there is no span or no tracer
 * exports it.
 * @category combinators
 */
export const inSpanScoped = <A, E, R>(
  span: () => CallSpan | undefined,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R | Scope.Scope> =>
  whenExported<A, E, R | Scope.Scope>(() => {
    const call = span()
    return call === undefined
      ? effect
      : Effect.flatMap(Effect.makeSpanScoped(call.name, call.options()), (made) =>
          Effect.withFiber((fiber) => {
            // A run of a `spannable` stream notes its span, for the usage of its final answer.
            const run = fiber.getRef(SpanRun)
            if (run !== undefined) run.span = made
            return Effect.withParentSpan(effect, made)
          })
        )
  }, effect)

/**
 * The group with every call wrapped in its span. Effects get the span around them (usage annotated
 * from the answer); streams get it around the whole stream.
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
      // Every error a call ends with has the secrets taken out, inside its span.
      const result: unknown = Effect.isEffect(made)
        ? Effect.mapError(made, redact)
        : Stream.isStream(made) && (made as { [SpannableTypeId]?: unknown })[SpannableTypeId] === undefined
          ? Stream.mapError(made, redact)
          : made
      const attributes = () => {
        const model = modelOf(args)
        return {
          "gen_ai.operation.name": operation,
          "gen_ai.system": systems[group] ?? group,
          ...(model !== undefined ? { "gen_ai.request.model": model } : {})
        }
      }
      if (Effect.isEffect(result))
        return whenExported(
          () =>
            Effect.withSpan(Effect.tap(result, annotateUsage), name, {
              kind: "client",
              attributes: attributes(),
              captureStackTrace: false
            }),
          result
        )
      if (Stream.isStream(result)) {
        const options = (): Tracer.SpanOptions => ({
          kind: "client",
          attributes: attributes(),
          captureStackTrace: false
        })
        const setSpan = (result as { [SpannableTypeId]?: (span: CallSpan) => void })[SpannableTypeId]
        if (setSpan !== undefined) {
          setSpan({ name, options })
          return result
        }
        const stream = result
        // Streams not made by `spannable` (speech, video polls: few elements each) get `Stream.withSpan`.
        return Stream.unwrap(
          whenExported(() => Effect.succeed(Stream.withSpan(stream, name, options())), Effect.succeed(stream))
        )
      }
      return result
    }
  }
  return out as G
}
