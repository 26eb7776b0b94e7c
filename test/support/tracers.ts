// The one recording tracer of the tests: Effect's native spans, made through a tracer object of the
// test's own (so umg counts them as exported: it makes none under Effect's own tracer), each recorded
// as umg handles it — name, kind and parent; every attribute set, in order and by key (one set after
// the span ended too, which the native span drops); the attributes as they were when it ended (what an
// exporter sends); its events; whether and how it ended (its Exit).
import { Cause, Exit, type Option, Tracer } from "effect"

export interface RecordedSpan {
  readonly name: string
  readonly kind: Tracer.SpanKind
  readonly parent: Option.Option<Tracer.AnySpan>
  /** The span umg was handed (Effect's native one): its ids, status and links. */
  readonly span: Tracer.Span
  /** Every attribute set on the span, each key's latest value, one set after the span ended too. */
  readonly attributes: Map<string, unknown>
  /** Every attribute set on the span, in order, [key, value]: a value later overwritten too. */
  readonly attributeLog: Array<readonly [key: string, value: unknown]>
  /** Every event added to the span, in order, one added after the span ended too. */
  readonly events: Array<{ readonly name: string; readonly attributes: Readonly<Record<string, unknown>> }>
  /** The attributes as they were when the span ended (what an exporter sends); undefined until then. */
  atEnd: ReadonlyMap<string, unknown> | undefined
  /** Whether the span has ended. */
  ended: boolean
  /** The Exit the span ended with (its first `end`, the one the native span keeps); undefined until then. */
  exit: Exit.Exit<unknown, unknown> | undefined
  /** The Exit of every `end` called on the span, in order: one, unless umg ends a span twice. */
  readonly exits: Array<Exit.Exit<unknown, unknown>>
}

/** A tracer that records every span made through it, in `spans`, in the order they start. */
export const recordingTracer = (): { readonly tracer: Tracer.Tracer; readonly spans: Array<RecordedSpan> } => {
  const spans: Array<RecordedSpan> = []
  const tracer = Tracer.make({
    span: (options) => {
      const span = Tracer.nativeTracer.span(options)
      const recorded: RecordedSpan = {
        name: options.name,
        kind: options.kind,
        parent: options.parent,
        span,
        attributes: new Map(span.attributes),
        attributeLog: [...span.attributes],
        events: [],
        atEnd: undefined,
        ended: false,
        exit: undefined,
        exits: []
      }
      spans.push(recorded)
      const attribute = span.attribute.bind(span)
      const event = span.event.bind(span)
      const end = span.end.bind(span)
      span.attribute = (key, value) => {
        recorded.attributes.set(key, value)
        recorded.attributeLog.push([key, value])
        attribute(key, value)
      }
      span.event = (name, startTime, attributes) => {
        recorded.events.push({ name, attributes: attributes ?? {} })
        event(name, startTime, attributes)
      }
      span.end = (endTime, exit) => {
        recorded.exits.push(exit)
        if (!recorded.ended) {
          recorded.ended = true
          recorded.exit = exit
          recorded.atEnd = new Map(recorded.attributes)
        }
        end(endTime, exit)
      }
      return span
    }
  })
  return { tracer, spans }
}

/**
 * Everything `spans` show, as one text to search for a secret: the name and every attribute value ever
 * set of each, its events, and the printed cause of every failed `end`.
 */
export const shownBy = (spans: ReadonlyArray<RecordedSpan>): string =>
  JSON.stringify(
    spans.map((s) => [
      s.name,
      s.attributeLog,
      s.events,
      s.exits.filter(Exit.isFailure).map((exit) => Cause.pretty(exit.cause))
    ])
  )
