/**
 * `umg embed`: embeddings of many texts (one request per text, E12) with bounded concurrency, a
 * progress bar on stderr and one JSON line per input on stdout, in input order.
 */
import { Effect, Option, Stream } from "effect"
import { Gateway } from "../../adapters/Gateway.js"
import { buildEmbeddingsBody, type EmbeddingsBody } from "../../core/media/Embeddings.js"
import type { RequestError } from "../../core/errors/GatewayError.js"
import { InvalidRequest } from "../../core/errors/InvalidRequest.js"
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
 * Validates every text first (a bad text at line 900 must not cost 899 requests), then embeds them
 * `concurrency` at a time, calling `onLine` in input order and `onProgress` after each answer.
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
    if (options.inputs.length === 0) {
      return yield* Effect.fail(
        new InvalidRequest({
          field: "input",
          rule: "required",
          message: "input: give at least one text (TEXT… or --file lines.txt)"
        })
      )
    }
    if (!Number.isInteger(options.concurrency) || options.concurrency < 1) {
      return yield* Effect.fail(
        new InvalidRequest({
          field: "concurrency",
          rule: "range",
          message: `concurrency: ${options.concurrency} is not allowed; allowed: an integer ≥ 1`
        })
      )
    }
    const bodies: ReadonlyArray<EmbeddingsBody> = yield* Effect.forEach(options.inputs, (input, i) =>
      buildEmbeddingsBody(
        {
          model: options.model,
          input,
          ...(options.dimensions !== undefined ? { dimensions: options.dimensions } : {})
        },
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
    let done = 0
    yield* Stream.fromIterable(bodies.map((body, index) => ({ body, index }))).pipe(
      // `mapEffect` with concurrency keeps input order on output.
      Stream.mapEffect(
        ({ body, index }) =>
          gateway.embeddings.create(body).pipe(
            Effect.tap(() => {
              done++
              return handlers.onProgress(done, bodies.length)
            }),
            Effect.map((answer) => {
              const vector = answer.data[0]!.embedding // `decodeEmbeddings` answers at least one item
              return {
                index,
                input: body.input,
                dimensions: vector.length,
                embedding: Array.from(vector)
              } satisfies EmbeddingLine
            })
          ),
        { concurrency: options.concurrency }
      ),
      Stream.runForEach(handlers.onLine)
    )
    return bodies.length
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
