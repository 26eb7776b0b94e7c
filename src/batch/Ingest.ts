/**
 * A batch's input as a stream, read twice in bounded memory. First it is digested (the default batch
 * id, and the check that an id keeps its inputs), then every line is checked as `video.submit` would
 * and stored in chunks while the first ones already run. The first line that fails its
 * check stops the batch before it is submitted: the lines before it are stored (and may run), it and
 * the lines after it are not. A JSON Lines file is read in chunks, a line at most 8 MiB long.
 */
import { Effect, Result, Stream } from "effect"
import { createHash, type Hash } from "node:crypto"
import { open } from "node:fs/promises"
import type { SqlClient } from "effect/sql"
import type { VideoInput } from "../adapters/groups/Video.js"
import type { InvalidRequest } from "../core/errors/InvalidRequest.js"
import { BatchInvalidInput, type BatchStoreError } from "./BatchError.js"
import * as Store from "./Store.js"

/** An input with the line it came from (1-based, as in a JSON Lines file). @category models */
export interface NumberedInput {
  readonly _tag: "NumberedInput"
  readonly line: number
  readonly input: VideoInput
}

/** An input with its line number. @category constructors */
export const numbered = (line: number, input: VideoInput): NumberedInput => ({ _tag: "NumberedInput", line, input })

const isNumbered = (value: VideoInput | NumberedInput): value is NumberedInput =>
  (value as { _tag?: unknown })._tag === "NumberedInput"

/** Longest line of a JSON Lines file, in bytes. @category constants */
export const maxLineBytes = 8 * 1024 * 1024

// Bytes read from a file at once.
const readChunkBytes = 1024 * 1024

const invalidLine = (line: number, message: string) =>
  new BatchInvalidInput({ line, field: "(json)", rule: "json-object", message: `line ${line}: ${message}` })

/** One text line of a file as an input, or the reason it is not one; blank lines give `undefined`. */
const parseLine = (text: string, line: number): NumberedInput | undefined => {
  const row = text.trim()
  if (row === "") return undefined
  let value: unknown
  try {
    value = JSON.parse(row)
  } catch (e) {
    throw invalidLine(line, `not JSON (${(e as Error).message.slice(0, 120)})`)
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw invalidLine(line, 'not a JSON object; each line is one video input such as {"model": …, "prompt": …}')
  return numbered(line, value as VideoInput)
}

/** The inputs of a file, a chunk of lines at a time. */
async function* readInputs(path: string): AsyncGenerator<ReadonlyArray<NumberedInput>> {
  const handle = await open(path, "r")
  try {
    const buffer = Buffer.allocUnsafe(readChunkBytes)
    let rest: Buffer = Buffer.alloc(0)
    let line = 0
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, readChunkBytes, null)
      const data =
        rest.length === 0 ? buffer.subarray(0, bytesRead) : Buffer.concat([rest, buffer.subarray(0, bytesRead)])
      const out: Array<NumberedInput> = []
      let start = 0
      for (let end = data.indexOf(10, start); end !== -1; end = data.indexOf(10, start)) {
        line++
        if (end - start > maxLineBytes) throw invalidLine(line, `longer than ${maxLineBytes} bytes`)
        const input = parseLine(data.toString("utf8", start, end), line)
        if (input !== undefined) out.push(input)
        start = end + 1
      }
      // The line not ended yet is kept (a copy: the read buffer is reused).
      rest = Buffer.from(data.subarray(start))
      if (rest.length > maxLineBytes) throw invalidLine(line + 1, `longer than ${maxLineBytes} bytes`)
      if (bytesRead === 0) {
        if (rest.length > 0) {
          const input = parseLine(rest.toString("utf8"), line + 1)
          if (input !== undefined) out.push(input)
        }
        if (out.length > 0) yield out
        return
      }
      if (out.length > 0) yield out
    }
  } finally {
    await handle.close()
  }
}

/**
 * The inputs of a JSON Lines file (one object per non-blank line), read in chunks each time the
 * stream runs. A line that is not a JSON object fails the stream with `BatchInvalidInput` naming it.
 * @category constructors
 */
export const jsonLines = (path: string): Stream.Stream<NumberedInput, BatchInvalidInput> =>
  Stream.fromAsyncIterable({ [Symbol.asyncIterator]: () => readInputs(path) }, (e) =>
    e instanceof BatchInvalidInput
      ? e
      : new BatchInvalidInput({
          line: 0,
          // The option it came from (`umg batch` shows it as its FILE argument).
          field: "inputs",
          rule: "readable",
          message: `inputs: cannot read ${path} (${e instanceof Error ? e.message : String(e)})`
        })
  ).pipe(Stream.flattenIterable)

/** Inputs as a stream of numbered inputs: plain ones numbered 1, 2, 3… in stream order. @category constructors */
export const numberedStream = <E, R>(
  inputs: Stream.Stream<VideoInput | NumberedInput, E, R>
): Stream.Stream<NumberedInput, E, R> =>
  Stream.mapAccum(
    inputs,
    () => 0,
    (n, value) => {
      const entry = isNumbered(value) ? value : numbered(n + 1, value)
      return [n + 1, [entry]]
    }
  )

/** The text a line adds to a batch's digest (`Batch.digestOf` hashes the same). @category getters */
export const digestText = (line: number, input: string): string => `${line}\n${input}\n`

/** What the first reading of a batch's input found. @category models */
export interface Digested {
  readonly digest: string
  readonly total: number
  /** The digest of the first `n` lines, for each `n` asked for (that the input has). */
  readonly prefixes: ReadonlyMap<number, string>
}

const copyDigest = (hash: Hash): string => hash.copy().digest("hex")

/** The highest line number (the journal's lines are 32-bit integers). @category constants */
export const maxLine = 2_147_483_647

/**
 * Reads the inputs once: their digest, how many there are, and the digests of the first `n` lines
 * for each `n` of `checkpoints` (to recognise a refused batch whose input was corrected). Line
 * numbers must increase, from 1 to `maxLine`.
 * @category getters
 */
export const digest = <E, R>(
  inputs: Stream.Stream<NumberedInput, E, R>,
  checkpoints: ReadonlyArray<number>
): Effect.Effect<Digested, E | BatchInvalidInput, R> =>
  Effect.suspend(() => {
    const hash = createHash("sha256")
    const wanted = new Set(checkpoints)
    const prefixes = new Map<number, string>()
    let total = 0
    let last = 0
    if (wanted.has(0)) prefixes.set(0, copyDigest(hash))
    return Stream.runForEachArray(inputs, (entries) =>
      Effect.suspend(() => {
        for (const entry of entries) {
          if (!Number.isInteger(entry.line) || entry.line <= last || entry.line > maxLine)
            return Effect.fail(
              new BatchInvalidInput({
                line: entry.line,
                field: "(line)",
                rule: "increasing",
                message: `line ${entry.line}: line numbers must be whole numbers that increase, from 1 to ${maxLine} (the one before was ${last})`
              })
            )
          last = entry.line
          hash.update(digestText(entry.line, JSON.stringify(entry.input)))
          total++
          if (wanted.has(total)) prefixes.set(total, copyDigest(hash))
        }
        return Effect.void
      })
    ).pipe(Effect.map(() => ({ digest: hash.digest("hex"), total, prefixes })))
  })

/** What storing a batch's input needs. @category models */
export interface IngestOptions<E, R> {
  readonly batch: Store.BatchRecord
  readonly inputs: Stream.Stream<NumberedInput, E, R>
  /** Lines already stored (by an earlier run): read again for the digest, not stored again. */
  readonly from: number
  readonly check: (input: VideoInput) => Effect.Effect<unknown, InvalidRequest>
}

// Lines per stored chunk (one transaction each).
const chunkLines = 1_000

/**
 * Checks and stores the lines of a batch from line `from` on, in chunks, until the input ends
 * (the batch is then complete) or a line fails its check (the lines before it are stored and the
 * batch is refused at it). An input that no longer has the digest the batch was made with (the
 * file changed meanwhile) refuses it at its last line.
 * @category constructors
 */
export const ingest = <E, R>(
  options: IngestOptions<E, R>
): Effect.Effect<void, E | BatchStoreError, R | SqlClient.SqlClient> =>
  Effect.gen(function* () {
    const { batch, from } = options
    const hash = createHash("sha256")
    let position = 0
    let lastLine = 0
    let chunk: Array<Store.Entry> = []
    // Set by `refuse`, read after the stream (a closure's write the narrowing cannot see).
    const stop = { refused: false }
    const refuse = (refusal: Store.Refusal) =>
      Effect.andThen(Store.storeChunk(batch.id, chunk, position, false), () => {
        stop.refused = true
        chunk = []
        return Store.refuse(batch.id, refusal, copyDigest(hash))
      })
    yield* Stream.runForEachArray(options.inputs, (entries) =>
      Effect.gen(function* () {
        for (const entry of entries) {
          if (stop.refused) return
          const input = JSON.stringify(entry.input)
          if (position >= from) {
            const checked = yield* Effect.result(options.check(entry.input))
            if (Result.isFailure(checked)) {
              const f = checked.failure
              return yield* refuse({
                line: entry.line,
                field: f.field,
                rule: f.rule,
                message: `line ${entry.line}: ${f.message}`
              })
            }
            chunk.push({ line: entry.line, input })
          }
          hash.update(digestText(entry.line, input))
          position++
          lastLine = entry.line
          if (chunk.length >= chunkLines) {
            yield* Store.storeChunk(batch.id, chunk, position, false)
            chunk = []
            yield* Effect.yieldNow
          }
        }
      })
    )
    if (stop.refused) return
    if (hash.digest("hex") !== batch.digest || position !== batch.lines) {
      chunk = []
      return yield* Store.refuse(
        batch.id,
        {
          line: lastLine,
          field: "(input)",
          rule: "unchanged",
          message: `the input changed while its batch was being stored (it now has ${position} lines); run the batch again with the input it was made with`
        },
        ""
      )
    }
    yield* Store.storeChunk(batch.id, chunk, position, true)
  })
