// A tracer of the test's own, so that umg counts its spans as exported (umg makes none under Effect's
// own tracer): Effect's native spans, made through another tracer object, each name reported.
import { Effect, Tracer } from "effect"

export const exportingTracer = (onSpan: (name: string) => void = () => undefined): Tracer.Tracer => {
  const native = Effect.runSync(Effect.tracer)
  return Tracer.make({
    span(options) {
      onSpan(options.name)
      return native.span(options)
    }
  })
}
