/**
 * The tool loop on umg/rx: `tool()` and `runTools$`, adding no rule of their own. `tool()` defines a
 * tool with a Promise (or plain) handler that gets an `AbortSignal`; `runTools$` runs the adapters'
 * loop as an Observable of steps from the gateway's groups. Unsubscribing stops the loop, cancels the
 * model call in flight and aborts the running handlers' signals.
 */
import * as Effect from "effect/Effect"
import type { Observable } from "rxjs"
import type { CallOptions } from "../adapters/CallOptions.js"
import {
  chatRunTools,
  messagesRunTools,
  nativeRunTools,
  responsesRunTools,
  type RunToolsConfig,
  type RunToolsOutputError
} from "../adapters/tools/RunTools.js"
import type { AnySchema, JsonSchemaObject, TypeOf } from "../core/structured/AnySchema.js"
import type { ChatBodyInput } from "../core/text/chat/ChatBody.js"
import type { ChatCompletion } from "../core/text/chat/ChatResponse.js"
import type { MessagesBodyInput } from "../core/text/messages/Messages.js"
import type { Message } from "../core/text/messages/MessagesResponse.js"
import type { GenerateContentResponse } from "../core/text/native/NativeResponse.js"
import type { ResponsesBodyInput } from "../core/text/responses/ResponsesBody.js"
import type { ResponsesResponse } from "../core/text/responses/ResponsesResponse.js"
import type { NativeToolsRequest } from "../core/tools/NativeTools.js"
import * as Tool from "../core/tools/Tool.js"
import type { ToolStep } from "../core/tools/ToolStep.js"
import { firstValueEffect, fromStream, type Runner } from "./Bridge.js"
import type { GatewayDisposed } from "./GatewayDisposed.js"
import type { TypedObservable } from "./TypedObservable.js"

/** What a Promise handler gets besides its input: `signal` aborts when the loop is stopped (unsubscribed). @category models */
export interface ToolContext {
  readonly signal: AbortSignal
}

/** What `tool` takes: as `Tool.make`'s, with a handler returning a Promise or a value. @category models */
export interface RxToolDefinition<S extends AnySchema<unknown>, O> {
  readonly name: string
  readonly description: string
  readonly parameters: S
  readonly handler: (input: TypeOf<S>, context: ToolContext) => Promise<O> | O
  readonly jsonSchema?: JsonSchemaObject | undefined
  readonly strict?: boolean | undefined
}

/**
 * A tool whose handler is a Promise (or plain) function. A throw or a rejection goes back to the model
 * as the tool's error; `signal` aborts when the loop stops while the handler runs.
 * @category constructors
 */
export const tool = <S extends AnySchema<unknown>, O>(
  definition: RxToolDefinition<S, O>
): Tool.Tool<TypeOf<S>, O, unknown> =>
  Tool.make({
    ...definition,
    handler: (input: TypeOf<S>) =>
      Effect.tryPromise({
        try: (signal) => Promise.resolve(definition.handler(input, { signal })),
        catch: (error) => error
      })
  })

/** A loop's settings on umg/rx: its tools' handlers need no services. @category models */
export type RxRunToolsConfig<A> = RunToolsConfig<A, never>

/**
 * The Observable form of a group's `runTools` (as `createGateway` would wire it: `runTools$(body,
 * config, options?)`), `E` the group's call errors.
 * @category models
 */
export type RxRunTools<Body, Response, E> = <A = undefined>(
  body: Body,
  config: RxRunToolsConfig<A>,
  options?: CallOptions
) => TypedObservable<ToolStep<A, Response>, E | RunToolsOutputError | GatewayDisposed>

// The loop itself needs nothing but the calls it is handed: it runs on its own fiber.
const runDetached: Runner<never> = (effect) => Effect.runFork(effect)

// A model call of the Rx face as an effect: its first value, its typed error; interrupted, it unsubscribes.
const firstOf = <A, E>(call: () => Observable<A>): Effect.Effect<A, E> =>
  firstValueEffect(call, "the model call") as Effect.Effect<A, E>

/** The `create$` of an `RxGateway`'s messages group. @category models */
export interface RxMessagesCaller<E> {
  readonly create$: (body: MessagesBodyInput, options?: CallOptions) => TypedObservable<Message, E>
}
/** The `create$` of an `RxGateway`'s chat group. @category models */
export interface RxChatCaller<E> {
  readonly create$: (body: ChatBodyInput, options?: CallOptions) => TypedObservable<ChatCompletion, E>
}
/** The `create$` of an `RxGateway`'s responses group. @category models */
export interface RxResponsesCaller<E> {
  readonly create$: (body: ResponsesBodyInput, options?: CallOptions) => TypedObservable<ResponsesResponse, E>
}
/** The `generate$` of an `RxGateway`'s native group. @category models */
export interface RxNativeCaller<E> {
  readonly generate$: (
    request: NativeToolsRequest,
    options?: CallOptions
  ) => TypedObservable<GenerateContentResponse, E>
}

type Steps<A, Response, E> = TypedObservable<ToolStep<A, Response>, E | RunToolsOutputError>

/**
 * The tool loop as a cold Observable, per family, from an `RxGateway`'s group
 * (`runTools$.chat(gateway.chat, body, { tools, output }, options?)`): each subscription runs its own
 * loop and emits its steps — `ModelTurn`, `ToolCall`, `ToolResult`, then `Done` — and completes.
 * Unsubscribing stops the loop: the model call in flight is cancelled and the running handlers are
 * interrupted (their `signal` aborts). The errors are the calls' own and the loop's (`RunToolsError`,
 * and with `output` the structured-output ones); bad arguments and handler failures are not errors:
 * they go back to the model.
 * @category constructors
 */
export const runTools$ = {
  messages: <A = undefined, E = never>(
    group: RxMessagesCaller<E>,
    body: MessagesBodyInput,
    config: RxRunToolsConfig<A>,
    options?: CallOptions
  ): Steps<A, Message, E> =>
    fromStream(
      runDetached,
      messagesRunTools({ create: (b, o) => firstOf<Message, E>(() => group.create$(b, o)) }, body, config, options)
    ),
  chat: <A = undefined, E = never>(
    group: RxChatCaller<E>,
    body: ChatBodyInput,
    config: RxRunToolsConfig<A>,
    options?: CallOptions
  ): Steps<A, ChatCompletion, E> =>
    fromStream(
      runDetached,
      chatRunTools({ create: (b, o) => firstOf<ChatCompletion, E>(() => group.create$(b, o)) }, body, config, options)
    ),
  responses: <A = undefined, E = never>(
    group: RxResponsesCaller<E>,
    body: ResponsesBodyInput,
    config: RxRunToolsConfig<A>,
    options?: CallOptions
  ): Steps<A, ResponsesResponse, E> =>
    fromStream(
      runDetached,
      responsesRunTools(
        { create: (b, o) => firstOf<ResponsesResponse, E>(() => group.create$(b, o)) },
        body,
        config,
        options
      )
    ),
  native: <A = undefined, E = never>(
    group: RxNativeCaller<E>,
    request: NativeToolsRequest,
    config: RxRunToolsConfig<A>,
    options?: CallOptions
  ): Steps<A, GenerateContentResponse, E> =>
    fromStream(
      runDetached,
      nativeRunTools(
        { generate: (r, o) => firstOf<GenerateContentResponse, E>(() => group.generate$(r, o)) },
        request,
        config,
        options
      )
    )
}
