/**
 * A `TextRequest` sent through umg's `Gateway` to the family its model routes to. The family's body
 * is built and validated, sent with the call's options (signal, headers, retries, `onResponse`), and
 * the answer or the stream read the frameworks' way (`TextAnswer`, `TextStreamPart`); retries, errors
 * and telemetry are the gateway's own.
 */
import type * as Arr from "effect/Array"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Pull from "effect/Pull"
import * as Result from "effect/Result"
import type * as Stream from "effect/Stream"
import type * as Scope from "effect/Scope"
import type { CallOptions } from "../../adapters/CallOptions.js"
import type { GatewayService } from "../../adapters/Gateway.js"
import { openedOf } from "../../adapters/sse/Consume.js"
import type { RequestError, StreamError } from "../../core/errors/GatewayError.js"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import type { RoutingOptions } from "../../core/gateway/Catalog.js"
import { nativePaths, routeFor } from "../../core/gateway/Routing.js"
import type { TokenEvent } from "../../core/text/TokenEvent.js"
import { chatBody } from "./ChatRequest.js"
import { messagesBody } from "./MessagesRequest.js"
import { nativeRequest } from "./NativeRequest.js"
import { responsesBody } from "./ResponsesRequest.js"
import { type FamilyResponse, type TextAnswer, textAnswer } from "./TextAnswer.js"
import type { TextFamily, TextRequest } from "./TextRequest.js"
import type { Built, TextWarning } from "./Turns.js"
import { makeTextStreamReader, type TextStreamPart } from "./TextStream.js"

const TEXT_FAMILIES: ReadonlyArray<TextFamily> = ["messages", "chat", "responses", "native"]

/**
 * The text family a model routes to, as umg routes it (the first text capability of its catalog
 * entry; an id the catalog does not know is a chat model), or `undefined` for a model of no text
 * family (an embedding, speech or video model).
 * @category routing
 */
export const textFamilyOf = (model: string, options: RoutingOptions = {}): TextFamily | undefined =>
  routeFor(model, options).capabilities.find((c): c is TextFamily =>
    (TEXT_FAMILIES as ReadonlyArray<string>).includes(c)
  )

/** The gateway path a family's call goes to. @category routing */
export const textPath = (family: TextFamily, model: string, stream: boolean): string => {
  switch (family) {
    case "messages":
      return "/v1/messages"
    case "chat":
      return "/v1/chat/completions"
    case "responses":
      return "/v1/responses"
    case "native":
      return stream ? nativePaths(model).stream : nativePaths(model).generate
  }
}

/** A request made ready for its family: the body (native: with its model), and what could not be sent. @category models */
export interface TextCall {
  readonly family: TextFamily
  readonly body: Readonly<Record<string, unknown>>
  readonly warnings: ReadonlyArray<TextWarning>
}

/**
 * The family body of a request, for the family given (see `textFamilyOf`). Refuses, before anything
 * is sent, what the family cannot take (a file type, a structured output with thinking on).
 * @category constructors
 */
export const textCall = (
  family: TextFamily,
  request: TextRequest,
  stream: boolean
): Result.Result<TextCall, InvalidRequest> => {
  const built: Result.Result<Built<Readonly<Record<string, unknown>>>, InvalidRequest> = family === "messages"
    ? messagesBody(request)
    : family === "chat"
      ? chatBody(request, stream)
      : family === "responses"
        ? responsesBody(request)
        : nativeRequest(request)
  return Result.map(built, ({ body, warnings }) => ({ family, body, warnings }))
}

/** Ids for the calls a family sent without one (native): unique per answer, drawn at the first such call. @category constructors */
export const callIds = (): ((index: number) => string) => {
  let prefix: string | undefined
  return (index) => `${(prefix ??= `call_${globalThis.crypto.randomUUID().slice(0, 8)}_`)}${index}`
}

/** A family's two calls on the gateway, for a body built for it: the whole answer and the stream. */
interface FamilyCalls {
  readonly create: (body: never, options?: CallOptions) => Effect.Effect<FamilyResponse, RequestError | InvalidRequest>
  readonly stream: (body: never, options?: CallOptions) => Stream.Stream<TokenEvent, StreamError | InvalidRequest>
}

const callsOf = (gateway: GatewayService, family: TextFamily): FamilyCalls => {
  switch (family) {
    case "messages":
      return gateway.messages
    case "chat":
      return gateway.chat
    case "responses":
      return gateway.responses
    case "native":
      return { create: gateway.native.generate, stream: gateway.native.stream }
  }
}

/**
 * Sends a call and reads its whole answer.
 * @category calls
 */
export const generate = (
  gateway: GatewayService,
  call: TextCall,
  request: TextRequest,
  options?: CallOptions
): Effect.Effect<{ readonly answer: TextAnswer; readonly raw: FamilyResponse }, RequestError | InvalidRequest> => {
  const sent = callsOf(gateway, call.family).create(call.body as never, options)
  const ids = callIds()
  return Effect.map(sent, (raw) => ({ answer: textAnswer(call.family, raw, request.output, ids), raw }))
}

/** A text stream's pull: its parts chunk by chunk, `Cause.Done` once the finish part was given. @category models */
export type TextPull = Pull.Pull<Arr.NonEmptyReadonlyArray<TextStreamPart>, StreamError | InvalidRequest>

/**
 * An opened text stream: the pull of its parts, and `pending`, the ends of what is under way (see
 * `TextStreamReader.close`), for a stream whose pull failed.
 * @category models
 */
export interface OpenedText {
  readonly pull: TextPull
  readonly pending: () => ReadonlyArray<TextStreamPart>
}

/**
 * Sends a streaming call and opens it in the caller's scope: the effect ends once the answer's
 * headers arrived (an error answer fails it), giving the pull of the stream's parts. Closing the scope
 * closes the connection. A chunk whose reading fails gives the parts read before the failure first.
 * @category calls
 */
export const openStream = (
  gateway: GatewayService,
  call: TextCall,
  request: TextRequest,
  options?: CallOptions
): Effect.Effect<OpenedText, StreamError | InvalidRequest, Scope.Scope> => {
  const stream = callsOf(gateway, call.family).stream(call.body as never, options)
  const open = openedOf<TokenEvent, StreamError | InvalidRequest, never>(stream)
  if (open === undefined) return Effect.die(new Error("openStream: the group's stream has no final answer"))
  // Plain `map`, not `Effect.gen`: every stream of both providers opens here.
  return Effect.map(open, ({ pull, result }): OpenedText => {
    const reader = makeTextStreamReader(call.family, request.output, callIds())
    let ended = false
    // A reading that failed after some parts of its chunk: they are given, the failure comes next.
    let failed: StreamError | InvalidRequest | undefined
    const finish = Effect.map(result as Effect.Effect<FamilyResponse, StreamError | InvalidRequest>, (final) => {
      const out: Array<TextStreamPart> = []
      reader.end(final, out)
      return out as unknown as Arr.NonEmptyReadonlyArray<TextStreamPart>
    })
    // One array of parts per chunk of events, filled by the reader.
    const matched = {
      onSuccess: (events: Arr.NonEmptyReadonlyArray<TokenEvent>): TextPull => {
        const out: Array<TextStreamPart> = []
        for (let i = 0; i < events.length; i++) {
          const failure = reader.read(events[i]!, out)
          if (failure === undefined) continue
          if (out.length === 0) return Effect.fail(failure)
          failed = failure
          return Effect.succeed(out as unknown as Arr.NonEmptyReadonlyArray<TextStreamPart>)
        }
        return out.length > 0 ? Effect.succeed(out as unknown as Arr.NonEmptyReadonlyArray<TextStreamPart>) : next
      },
      onFailure: (cause: Cause.Cause<StreamError | InvalidRequest>): TextPull => Effect.failCause(cause),
      onDone: (): TextPull => {
        ended = true
        return finish
      }
    }
    const next: TextPull = Effect.suspend(() =>
      failed !== undefined ? Effect.fail(failed) : ended ? Cause.done() : Pull.matchEffect(pull, matched)
    )
    const pending = () => {
      const out: Array<TextStreamPart> = []
      reader.close(out)
      return out
    }
    return { pull: next, pending }
  })
}
