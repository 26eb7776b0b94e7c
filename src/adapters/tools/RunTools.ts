/**
 * The tool loop on every text family, as a `Stream` of `ToolStep`s. It sends the body with the tools
 * declared, decodes each call's arguments with its tool's schema, runs the handlers (concurrently,
 * bounded), appends the model's turn and the results in the family's shape, and repeats until the
 * model stops or `maxSteps` (see docs/ARCHITECTURE.md; the shapes are the core's).
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Queue from "effect/Queue"
import * as Result from "effect/Result"
import * as Stream from "effect/Stream"
import type { Aborted, Family } from "../../core/errors/GatewayError.js"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import type { AnySchema, JsonSchemaObject } from "../../core/structured/AnySchema.js"
import type { SchemaNotExpressible } from "../../core/structured/StructuredErrors.js"
import { concurrency as concurrencyRange, settingOr } from "../../core/validation/Setting.js"
import { chatTools } from "../../core/tools/ChatTools.js"
import { messagesTools } from "../../core/tools/MessagesTools.js"
import { nativeTools, type NativeToolsRequest } from "../../core/tools/NativeTools.js"
import { responsesTools } from "../../core/tools/ResponsesTools.js"
import { type AnyTool, type PreparedTool, prepareTools, toolNames } from "../../core/tools/Tool.js"
import { outputContent, type ToolAnswer, type ToolCallRequest, type ToolShape } from "../../core/tools/ToolShape.js"
import {
  handlerFailed,
  invalidArguments,
  type LoopUsage,
  malformedArguments,
  outputNotJson,
  type ToolFailure,
  type ToolResultStep,
  type ToolStep,
  unknownTool
} from "../../core/tools/ToolStep.js"
import type { ChatBodyInput } from "../../core/text/chat/ChatBody.js"
import type { ChatCompletion } from "../../core/text/chat/ChatResponse.js"
import type { MessagesBodyInput } from "../../core/text/messages/Messages.js"
import type { Message } from "../../core/text/messages/MessagesResponse.js"
import type { GenerateContentResponse } from "../../core/text/native/NativeResponse.js"
import type { ResponsesBodyInput } from "../../core/text/responses/ResponsesBody.js"
import type { ResponsesResponse } from "../../core/text/responses/ResponsesResponse.js"
import { abortable, type CallOptions } from "../CallOptions.js"
import { usageOf } from "../internal/Telemetry.js"
import {
  chatOutput,
  messagesOutput,
  nativeOutput,
  type OutputError,
  type OutputPlan,
  responsesOutput
} from "./ToolOutput.js"

/** The loop's turns when `maxSteps` is not given. @category constants */
export const defaultMaxSteps = 8
/** The handlers run at once when `concurrency` is not given. @category constants */
export const defaultConcurrency = 4
/** The largest `maxSteps` and `concurrency` accepted. @category constants */
export const maxLoopBound = concurrencyRange.max

/**
 * A loop's settings: its `tools` (handlers needing the services `R`); `maxSteps` model turns at most
 * (default 8; the calls of the last allowed turn are still run and answered, then the loop ends with
 * `Done` reason `max-steps`); `concurrency`, the handlers running at once (default 4); and `output`, a
 * schema for a typed final value (`Done.value`), with `outputJsonSchema` the JSON Schema sent for it
 * when the schema offers none (a Standard Schema such as valibot's), as `parse`'s `jsonSchema`.
 * @category models
 */
export interface RunToolsConfig<A, R> {
  readonly tools: ReadonlyArray<AnyTool<R>>
  readonly maxSteps?: number | undefined
  readonly concurrency?: number | undefined
  readonly output?: AnySchema<A> | undefined
  readonly outputJsonSchema?: JsonSchemaObject | undefined
}

const bound = (
  config: RunToolsConfig<unknown, unknown>
): Result.Result<{ readonly maxSteps: number; readonly concurrency: number }, InvalidRequest> => {
  return Result.all({
    maxSteps: settingOr("maxSteps", config.maxSteps, { min: 1, max: maxLoopBound, whole: true }, defaultMaxSteps),
    concurrency: settingOr("concurrency", config.concurrency, concurrencyRange, defaultConcurrency)
  })
}

/** A call's answer and the step that shows it, from its failure. */
const failed = (step: number, call: ToolCallRequest, error: ToolFailure) => ({
  answer: { id: call.id, name: call.name, isError: true, content: error.message, output: undefined },
  shown: {
    _tag: "ToolResult",
    step,
    id: call.id,
    name: call.name,
    isError: true,
    error,
    content: error.message
  } satisfies ToolResultStep
})

/**
 * Runs one call: its tool found, its arguments decoded, its handler run. Whatever goes wrong becomes
 * the answer's error (never the loop's failure); only an interruption from outside stops it.
 */
const runCall = <R>(
  tools: ReadonlyMap<string, PreparedTool<R>>,
  known: string,
  step: number,
  call: ToolCallRequest
): Effect.Effect<{ readonly answer: ToolAnswer; readonly shown: ToolResultStep }, never, R> => {
  const prepared = tools.get(call.name)
  if (prepared === undefined) return Effect.succeed(failed(step, call, unknownTool(call.name, known)))
  if (call.malformed !== undefined)
    return Effect.succeed(failed(step, call, malformedArguments(call.name, call.malformed)))
  return prepared.decodeArguments(call.input).pipe(
    Effect.matchEffect({
      onFailure: (mismatch) => Effect.succeed(failed(step, call, invalidArguments(call.name, mismatch.issue))),
      onSuccess: (input) =>
        // Suspended: a handler that throws rather than returning an effect is a defect of its call, not of the loop.
        Effect.map(Effect.exit(Effect.suspend(() => prepared.tool.handler(input))), (exit) => {
          if (Exit.isFailure(exit)) {
            const error = Cause.findErrorOption(exit.cause)
            return failed(
              step,
              call,
              error._tag === "Some"
                ? handlerFailed(call.name, error.value, false)
                : handlerFailed(call.name, Cause.squash(exit.cause), true)
            )
          }
          const content = outputContent(exit.value)
          if (Result.isFailure(content)) return failed(step, call, outputNotJson(call.name, content.failure))
          const answer = { id: call.id, name: call.name, isError: false, content: content.success, output: exit.value }
          return {
            answer,
            shown: { _tag: "ToolResult", step, ...answer, isError: false } satisfies ToolResultStep
          }
        })
    })
  )
}

/** What the loop needs of a family besides its shapes: the model call and its error family. */
interface FamilyRun<Body, Response, E> {
  readonly shape: ToolShape<Body, Response>
  readonly family: Family
  readonly call: (body: Body, options: CallOptions | undefined) => Effect.Effect<Response, E>
}

/** The loop's tokens, summed over the model turns (`usageOf` reads every family's usage shape). */
const usageTally = () => {
  let inputTokens: number | undefined
  let outputTokens: number | undefined
  return {
    add: (response: unknown) => {
      const { input, output } = usageOf(response)
      if (input !== undefined) inputTokens = (inputTokens ?? 0) + input
      if (output !== undefined) outputTokens = (outputTokens ?? 0) + output
    },
    total: (): LoopUsage => ({ inputTokens, outputTokens })
  }
}

/**
 * The loop as a stream of steps. Runs in a fiber of the stream's scope: ending or interrupting the
 * stream interrupts it, and so the handlers running; the call's `signal` aborting fails it with
 * `Aborted` and interrupts them too.
 */
const loop = <Body, Response, A, E, R>(
  run: FamilyRun<Body, Response, E>,
  body: Body,
  config: RunToolsConfig<A, R>,
  outputPlan: Result.Result<OutputPlan<Body, Response, A> | undefined, SchemaNotExpressible | InvalidRequest>,
  options: CallOptions | undefined
): Stream.Stream<ToolStep<A, Response>, E | RunToolsOutputError, R> =>
  Stream.callback<ToolStep<A, Response>, E | RunToolsOutputError, R>(
    (queue) => {
      const emit = (step: ToolStep<A, Response>) => Queue.offer(queue, step)
      const steps = Effect.gen(function* () {
        const { maxSteps, concurrency } = yield* Effect.fromResult(bound(config))
        const prepared = yield* Effect.fromResult(prepareTools(config.tools, run.shape.declaredNames(body)))
        const plan = yield* Effect.fromResult(outputPlan)
        const byName = new Map(prepared.map((p) => [p.declaration.name, p]))
        const known = toolNames(config.tools)
        const declared = run.shape.declare(
          body,
          prepared.map((p) => p.declaration)
        )
        let current = plan === undefined ? declared : yield* Effect.fromResult(plan.prepare(declared))
        const ask = (b: Body) => run.call(b, options)
        const usage = usageTally()
        for (let step = 1; ; step++) {
          const response = yield* ask(current)
          usage.add(response)
          yield* emit({ _tag: "ModelTurn", step, response, output: false })
          const calls = run.shape.calls(response, step)
          if (calls.length === 0) {
            const final = plan === undefined ? undefined : yield* plan.final(current, response, ask)
            if (final?.extra !== undefined) {
              usage.add(final.extra)
              yield* emit({ _tag: "ModelTurn", step: step + 1, response: final.extra, output: true })
            }
            const text = run.shape.text(response)
            return yield* emit({
              _tag: "Done",
              reason: "stop",
              steps: step,
              text,
              value: final?.value,
              response,
              usage: usage.total()
            })
          }
          for (const call of calls)
            yield* emit({ _tag: "ToolCall", step, id: call.id, name: call.name, input: call.input })
          const answers = yield* Effect.forEach(
            calls,
            (call) => Effect.tap(runCall(byName, known, step, call), ({ shown }) => emit(shown)),
            { concurrency }
          )
          current = yield* run.shape.append(
            current,
            response,
            answers.map((a) => a.answer)
          )
          if (step >= maxSteps) {
            const text = run.shape.text(response)
            return yield* emit({
              _tag: "Done",
              reason: "max-steps",
              steps: step,
              text,
              value: undefined,
              response,
              usage: usage.total()
            })
          }
        }
      })
      return Effect.andThen(abortable(steps, run.family, options?.signal), Queue.end(queue))
    },
    { bufferSize: 16 }
  )

/** What `runTools` needs of the messages group. @category models */
export interface MessagesCaller<E> {
  readonly create: (body: MessagesBodyInput, options?: CallOptions) => Effect.Effect<Message, E>
}
/** What `runTools` needs of the chat group. @category models */
export interface ChatCaller<E> {
  readonly create: (body: ChatBodyInput, options?: CallOptions) => Effect.Effect<ChatCompletion, E>
}
/** What `runTools` needs of the responses group. @category models */
export interface ResponsesCaller<E> {
  readonly create: (body: ResponsesBodyInput, options?: CallOptions) => Effect.Effect<ResponsesResponse, E>
}
/** What `runTools` needs of the native group. @category models */
export interface NativeCaller<E> {
  readonly generate: (request: NativeToolsRequest, options?: CallOptions) => Effect.Effect<GenerateContentResponse, E>
}

/** The errors of a loop besides the model calls' own. @category models */
export type RunToolsError = InvalidRequest | SchemaNotExpressible | Aborted

/**
 * The errors of a loop besides the model calls' own, with an `output` schema: its answer refused or
 * not matching (`OutputRefused`, `OutputMismatch`), or a body its mechanism cannot be added to.
 * @category models
 */
export type RunToolsOutputError = RunToolsError | OutputError

type Steps<A, Response, E, R> = Stream.Stream<ToolStep<A, Response>, E | RunToolsOutputError, R>

/**
 * The tool loop on the messages group: `create` at each step with `options`, the tools declared as
 * `tools[{name, description, input_schema}]`, failures answered with `is_error: true`.
 * @category constructors
 */
export const messagesRunTools = <A = undefined, R = never, E = never>(
  group: MessagesCaller<E>,
  body: MessagesBodyInput,
  config: RunToolsConfig<A, R>,
  options?: CallOptions
): Steps<A, Message, E, R> =>
  loop(
    { shape: messagesTools, family: "messages", call: (b, o) => group.create(b, o) },
    body,
    config,
    messagesOutput(config.output, config.outputJsonSchema),
    options
  )

/**
 * The tool loop on the chat group: `create` at each step with `options`, the tools declared as
 * `tools[{type: "function", function}]`, each result a `role: "tool"` message.
 * @category constructors
 */
export const chatRunTools = <A = undefined, R = never, E = never>(
  group: ChatCaller<E>,
  body: ChatBodyInput,
  config: RunToolsConfig<A, R>,
  options?: CallOptions
): Steps<A, ChatCompletion, E, R> =>
  loop(
    { shape: chatTools, family: "openai", call: (b, o) => group.create(b, o) },
    body,
    config,
    chatOutput(config.output, config.outputJsonSchema),
    options
  )

/**
 * The tool loop on the responses group: `create` at each step with `options`, the tools declared as
 * `tools[{type: "function", name, …}]`, the output items and `function_call_output` items appended
 * to `input`.
 * @category constructors
 */
export const responsesRunTools = <A = undefined, R = never, E = never>(
  group: ResponsesCaller<E>,
  body: ResponsesBodyInput,
  config: RunToolsConfig<A, R>,
  options?: CallOptions
): Steps<A, ResponsesResponse, E, R> =>
  loop(
    { shape: responsesTools, family: "openai", call: (b, o) => group.create(b, o) },
    body,
    config,
    responsesOutput(config.output, config.outputJsonSchema),
    options
  )

/**
 * The tool loop on the native group: `generate` at each step with `options`, the tools declared as
 * one `functionDeclarations` element, each result a `functionResponse` part.
 * @category constructors
 */
export const nativeRunTools = <A = undefined, R = never, E = never>(
  group: NativeCaller<E>,
  request: NativeToolsRequest,
  config: RunToolsConfig<A, R>,
  options?: CallOptions
): Steps<A, GenerateContentResponse, E, R> =>
  loop(
    { shape: nativeTools, family: "native", call: (b, o) => group.generate(b, o) },
    request,
    config,
    nativeOutput(config.output, config.outputJsonSchema),
    options
  )

/**
 * A group's `runTools` method, as the groups take it (`gateway.chat.runTools(body, config, options?)`):
 * the loop on that group, `E` the group's call errors.
 * @category models
 */
export type RunToolsMethod<Body, Response, E> = <A = undefined, R = never>(
  body: Body,
  config: RunToolsConfig<A, R>,
  options?: CallOptions
) => Stream.Stream<ToolStep<A, Response>, E | RunToolsOutputError, R>
