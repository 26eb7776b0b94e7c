/**
 * Structured output on the text groups: `parse` and `parseStream`, built from a group's own
 * `create`/`stream`. `parse` sends a body with the family's structured-output mechanism and gives the
 * decoded, typed value with the raw answer; `parseStream` gives the growing value as the answer
 * streams, then the decoded value. A group gets them in one line (`parse: chatParse(create)`)
 * (docs/ARCHITECTURE.md, structured output).
 */
import * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Pull from "effect/Pull"
import * as Result from "effect/Result"
import type * as Stream from "effect/Stream"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { answerValue, partialReader, Unchanged } from "../../core/structured/Answer.js"
import { type AnySchema, type PreparedSchema, prepareSchema } from "../../core/structured/AnySchema.js"
import {
  chatMechanism,
  type Mechanism,
  messagesMechanism,
  nativeMechanism,
  responsesMechanism,
  type SchemaTarget,
  schemaTarget,
  type StructuredOptions
} from "../../core/structured/Mechanisms.js"
import type { OutputMismatch, OutputRefused, SchemaNotExpressible } from "../../core/structured/StructuredErrors.js"
import type { CallOptions } from "../CallOptions.js"
import { fromScopedPull } from "../http/ByteSource.js"
import { openedOf, type ResultStream } from "../sse/Consume.js"

/** The options of `parse` and `parseStream`: the structured-output options and the per-call options. @category models */
export interface ParseOptions extends StructuredOptions, CallOptions {}

/** A structured answer: the decoded value, the family's raw response and the answer's JSON text. @category models */
export interface Parsed<A, Response> {
  readonly value: A
  readonly raw: Response
  readonly text: string
}

/**
 * What `parseStream` emits: `Partial` with the growing value (not decoded; see `partialReader`) each
 * time it changes, then one `Final` with the decoded value, the answer's JSON text and the raw response.
 * @category models
 */
export type StructuredEvent<A, Response> =
  | { readonly _tag: "Partial"; readonly value: unknown }
  | { readonly _tag: "Final"; readonly value: A; readonly text: string; readonly raw: Response }

/** The failures structured output adds to a call's own. @category models */
export type StructuredError = InvalidRequest | SchemaNotExpressible | OutputMismatch | OutputRefused

/** A group's one-answer call (`chat.create`, `responses.create`, `native.generate`, `messages.create`). @category models */
export type CreateCall<Body, Response, E> = (body: Body, options?: CallOptions) => Effect.Effect<Response, E>

/** A group's streaming call (`chat.stream`, …): its own stream, with its final answer. @category models */
export type StreamCall<Body, Event, Response, E> = (
  body: Body,
  options?: CallOptions
) => ResultStream<Event, E, Response>

interface Request<Body, A> {
  readonly body: Body
  readonly prepared: PreparedSchema<A>
  readonly target: SchemaTarget
  readonly call: CallOptions
}

// The schema fitted, the name checked and the body given its mechanism: all before anything is sent.
const request = <Family, Body extends Family, Response, Event, A>(
  mechanism: Mechanism<Family, Response, Event>,
  body: Body,
  schema: AnySchema<A>,
  options: ParseOptions = {}
): Result.Result<Request<Body, A>, InvalidRequest | SchemaNotExpressible> => {
  const { name, description, strict, jsonSchema, ...call } = options
  const structured: StructuredOptions = {
    ...(name === undefined ? {} : { name }),
    ...(description === undefined ? {} : { description }),
    ...(strict === undefined ? {} : { strict })
  }
  return Result.gen(function* () {
    const prepared = yield* prepareSchema(schema, jsonSchema)
    const target = yield* schemaTarget(prepared, structured)
    const sent = yield* mechanism.request(body, target)
    return { body: sent, prepared, target, call }
  })
}

/**
 * `parse` for one family: `(create) => (body, schema, options?)` sends `body` with the structured-output
 * mechanism through the group's one-answer call and decodes the answer. Fails, before sending, with
 * `SchemaNotExpressible` or `InvalidRequest` (a bad name, a body setting the mechanism's fields
 * itself); after, with the call's own errors, `OutputRefused` or `OutputMismatch` (raw text kept).
 * @category constructors
 */
export const parseWith =
  <Family, Response, Event>(mechanism: Mechanism<Family, Response, Event>) =>
  <Body extends Family, E>(create: CreateCall<Body, Response, E>) =>
  <A>(
    body: Body,
    schema: AnySchema<A>,
    options?: ParseOptions
  ): Effect.Effect<Parsed<A, Response>, E | StructuredError> =>
    Effect.flatMap(Effect.fromResult(request(mechanism, body, schema, options)), (req) =>
      Effect.flatMap(create(req.body, req.call), (raw) =>
        Effect.map(answerValue(mechanism, req.prepared, req.target, raw), ({ value, text }) => ({ value, raw, text }))
      )
    )

/**
 * `parseStream` for one family: `(stream) => (body, schema, options?)` streams `body` with the
 * structured-output mechanism through the group's streaming call, emitting `Partial` as the value grows and
 * one `Final` with the value decoded from the stream's final answer, read as `parse` reads it. Refused
 * before sending as `parse`; a cut stream fails as the group's stream does.
 * @category constructors
 */
export const parseStreamWith =
  <Family, Response, Event>(mechanism: Mechanism<Family, Response, Event>) =>
  <Body extends Family, E>(stream: StreamCall<Body, Event, Response, E>) =>
  <A>(
    body: Body,
    schema: AnySchema<A>,
    options?: ParseOptions
  ): Stream.Stream<StructuredEvent<A, Response>, E | StructuredError> =>
    fromScopedPull(
      Effect.gen(function* () {
        const req = yield* Effect.fromResult(request(mechanism, body, schema, options))
        const open = openedOf(stream(req.body, req.call))
        if (open === undefined)
          return yield* Effect.die(new Error("parseStream: the group's stream has no final answer"))
        const { pull, result: untyped } = yield* open
        // The group's own stream: its result is its final answer.
        const result = untyped as Effect.Effect<Response, E>
        const read = partialReader(mechanism, req.prepared, req.target)
        let ended = false
        const final = Effect.flatMap(result, (raw) =>
          Effect.map(
            answerValue(mechanism, req.prepared, req.target, raw),
            ({ value, text }): Arr.NonEmptyReadonlyArray<StructuredEvent<A, Response>> => [
              { _tag: "Final", value, text, raw }
            ]
          )
        )
        const next: Pull.Pull<
          Arr.NonEmptyReadonlyArray<StructuredEvent<A, Response>>,
          E | StructuredError
        > = Effect.suspend(() =>
          ended
            ? Cause.done()
            : Pull.matchEffect(pull, {
                onSuccess: (events) => {
                  const out: Array<StructuredEvent<A, Response>> = []
                  for (const event of events) {
                    const value = read(event)
                    if (value !== Unchanged) out.push({ _tag: "Partial", value })
                  }
                  return Arr.isArrayNonEmpty(out) ? Effect.succeed(out) : next
                },
                onFailure: Effect.failCause,
                onDone: () => {
                  ended = true
                  return final
                }
              })
        )
        return next
      })
    )

/** `parse` and `parseStream` of the chat group. @category constructors */
export const chatParse = parseWith(chatMechanism)
/** @category constructors */
export const chatParseStream = parseStreamWith(chatMechanism)
/** `parse` and `parseStream` of the responses group. @category constructors */
export const responsesParse = parseWith(responsesMechanism)
/** @category constructors */
export const responsesParseStream = parseStreamWith(responsesMechanism)
/** `parse` and `parseStream` of the native group. @category constructors */
export const nativeParse = parseWith(nativeMechanism)
/** @category constructors */
export const nativeParseStream = parseStreamWith(nativeMechanism)
/** `parse` and `parseStream` of the messages group. @category constructors */
export const messagesParse = parseWith(messagesMechanism)
/** @category constructors */
export const messagesParseStream = parseStreamWith(messagesMechanism)
