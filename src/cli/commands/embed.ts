/**
 * `umg embed`: embeddings of many texts through the library's `embedMany` (one request per text, E12,
 * backing off on a 429), with a progress bar on stderr and one JSON line per input, in input order.
 */
import { Effect, Option, Queue } from "effect"
import { Gateway } from "../../adapters/Gateway.js"
import { buildEmbeddingsBody } from "../../core/media/Embeddings.js"
import type { RequestError } from "../../core/errors/GatewayError.js"
import { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { checkSetting, concurrency as concurrencyRange } from "../../core/validation/Setting.js"
import * as Connection from "../support/Connection.js"
import { isStdin, readLines } from "../support/LocalFiles.js"
import * as Output from "../support/Output.js"

/** One embedded input, as written to stdout. @category models */
export interface EmbeddingLine {
  readonly index: number
  readonly input: string
  readonly dimensions: number
  readonly embedding: ReadonlyArray<number>
}

/**
 * Validates every text first (a bad text at line 900 must not cost 899 requests, and its error names
 * where it came from), then embeds them with `embedMany`, at most `concurrency` at a time (the
 * library's range, 1 to 1000, named `--concurrency`), calling `onProgress` after each answer and
 * `onLine` in input order as soon as every earlier input is answered.
 * @category constructors
 */
export const embedLines = (
  options: {
    readonly model: string
    readonly inputs: ReadonlyArray<string>
    /** Where input `i` came from, for its errors (default `input ${i + 1}`), e.g. `line 3 of notes.txt`. */
    readonly sourceOf?: (index: number) => string
    readonly dimensions?: number
    readonly concurrency: number
    /** Send a model id the catalog does not list (the gateway layer's `allowUnknownModels`). */
    readonly allowUnknownModels?: boolean
  },
  handlers: {
    readonly onLine: (line: EmbeddingLine) => Effect.Effect<void>
    readonly onProgress: (done: number, total: number) => Effect.Effect<void>
  }
): Effect.Effect<number, RequestError | InvalidRequest, Gateway> =>
  Effect.gen(function* () {
    const { inputs } = options
    if (inputs.length === 0) {
      return yield* Effect.fail(
        new InvalidRequest({
          field: "input",
          rule: "required",
          message: "input: give at least one text (TEXT… or --file lines.txt)"
        })
      )
    }
    const concurrency = yield* Effect.fromResult(checkSetting("--concurrency", options.concurrency, concurrencyRange))
    const dimensions = options.dimensions !== undefined ? { dimensions: options.dimensions } : {}
    yield* Effect.forEach(inputs, (input, i) =>
      buildEmbeddingsBody(
        { model: options.model, input, ...dimensions },
        { allowUnknownModels: options.allowUnknownModels === true }
      ).pipe(
        // Only an input's own error names where it came from; one about the model or the dimensions
        // is every input's, and is told once as it is.
        Effect.mapError((e) =>
          e.field === "input"
            ? new InvalidRequest({
                field: `input[${i}]`,
                rule: e.rule,
                message: `${options.sourceOf?.(i) ?? `input ${i + 1}`}: ${e.message}`
              })
            : e
        )
      )
    )
    const gateway = yield* Gateway
    // `embedMany` reports each vector as it arrives (completion order); the writer prints them in input order.
    const arrived = yield* Queue.unbounded<{ readonly index: number; readonly vector: Float32Array }>()
    const write = Effect.gen(function* () {
      const waiting = new Map<number, Float32Array>()
      let next = 0
      for (let done = 1; done <= inputs.length; done++) {
        const { index, vector } = yield* Queue.take(arrived)
        yield* handlers.onProgress(done, inputs.length)
        waiting.set(index, vector)
        for (let v = waiting.get(next); v !== undefined; v = waiting.get(next)) {
          waiting.delete(next)
          yield* handlers.onLine({ index: next, input: inputs[next]!, dimensions: v.length, embedding: Array.from(v) })
          next++
        }
      }
    })
    const embed = gateway.embeddings.embedMany({
      model: options.model,
      inputs,
      ...dimensions,
      concurrency,
      onEvent: (event) => {
        if (event.type === "result") Queue.offerUnsafe(arrived, { index: event.index, vector: event.result })
      }
    })
    yield* Effect.all([embed, write], { concurrency: 2, discard: true })
    return inputs.length
  })

/** The options of `umg embed`. @category models */
export interface EmbedOptions extends Connection.CommonOptions {
  readonly model: string
  readonly dimensions: Option.Option<number>
  readonly file: Option.Option<string>
  readonly concurrency: number
  readonly texts: ReadonlyArray<string>
}

/** Runs `umg embed`. @category commands */
export const runEmbed = (o: EmbedOptions) =>
  Effect.gen(function* () {
    const fromFile = Option.isSome(o.file) ? yield* readLines(o.file.value, "file") : []
    const inputs = [...o.texts, ...fromFile.map((line) => line.text)]
    const file = Option.getOrElse(o.file, () => "-")
    const sourceOf = (i: number) =>
      i < o.texts.length
        ? `TEXT ${i + 1}`
        : `line ${fromFile[i - o.texts.length]!.line} of ${isStdin(file) ? "standard input" : file}`
    const allowUnknownModels = (yield* Connection.routing(o)).allowUnknownModels === true
    yield* Connection.run(
      o,
      Effect.gen(function* () {
        const count = yield* embedLines(
          {
            model: o.model,
            inputs,
            sourceOf,
            concurrency: o.concurrency,
            allowUnknownModels,
            ...Option.match(o.dimensions, { onNone: () => ({}), onSome: (dimensions) => ({ dimensions }) })
          },
          {
            onLine: (line) => Output.json(line),
            onProgress: (done, total) => Output.progress(`embedding ${Output.bar(done, total)}`)
          }
        )
        yield* Output.endProgress
        yield* Output.note(Output.errColour.dim(`${count} embeddings`))
      })
    )
  })
