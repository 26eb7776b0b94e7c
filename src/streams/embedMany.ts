/** `embedMany$`: many texts embedded through `mapConcurrent` — one request per text, results with their index and progress, 429s respected. */
import { Effect, Either } from "effect"
import { defer, map, type Observable, throwError } from "rxjs"
import { buildEmbeddingsBody, type DecodedEmbeddings, type EmbeddingsBodyInput } from "../core/media/Embeddings.js"
import { mapConcurrent, type MapConcurrentEvent, type MapConcurrentOptions } from "./mapConcurrent.js"

/** Options of `embedMany$`: the embeddings body without `input`, plus the batch settings. @category models */
export type EmbedManyRxOptions = Omit<EmbeddingsBodyInput, "input"> & Partial<MapConcurrentOptions>

/**
 * Embeds every input with `create` (one request each), at most `concurrency` at a time (default
 * `defaultConcurrency`), emitting `mapConcurrent` events whose results are the vectors. Every input
 * is validated before the first request: a bad text at position 900 must not cost 899 paid requests.
 * @category constructors
 */
export const embedMany$ = (
  create: (body: EmbeddingsBodyInput) => Observable<DecodedEmbeddings>,
  inputs: ReadonlyArray<string>,
  options: EmbedManyRxOptions,
  defaultConcurrency = 4
): Observable<MapConcurrentEvent<string, Float32Array>> =>
  defer(() => {
    const { concurrency, maxRetries, scheduler, ...body } = options
    // `buildEmbeddingsBody` is pure core validation, so running it synchronously is safe.
    const checked = Effect.runSync(Effect.either(Effect.forEach(inputs, (input) => buildEmbeddingsBody({ ...body, input } as EmbeddingsBodyInput))))
    if (Either.isLeft(checked)) return throwError(() => checked.left)
    const bodies = checked.right
    return mapConcurrent(
      inputs,
      (_, index) =>
        create(bodies[index]!).pipe(
          map((answer) => {
            const vector = answer.data[0]?.embedding
            if (vector === undefined) throw new TypeError(`the embeddings answer for input ${index} holds no vector`)
            return vector
          })
        ),
      {
        concurrency: concurrency ?? defaultConcurrency,
        ...(maxRetries === undefined ? {} : { maxRetries }),
        ...(scheduler === undefined ? {} : { scheduler })
      }
    )
  })
