/**
 * How a tool loop gets its typed final value, through the families' structured-output mechanisms and
 * answer reading (core/structured). Chat and responses send their format at every step (a model may
 * call tools or answer in the format) and read the value from the answer that stops the loop;
 * messages-style (whose mechanism forces a tool) and native (where function calling and a JSON answer
 * may not go together) ask once more when the model stopped, with the conversation so far.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { answerValue } from "../../core/structured/Answer.js"
import {
  type AnySchema,
  type JsonSchemaObject,
  type PreparedSchema,
  prepareSchema
} from "../../core/structured/AnySchema.js"
import {
  chatMechanism,
  type Mechanism,
  messagesMechanism,
  nativeMechanism,
  responsesMechanism,
  type SchemaTarget,
  schemaTarget
} from "../../core/structured/Mechanisms.js"
import type { OutputMismatch, OutputRefused, SchemaNotExpressible } from "../../core/structured/StructuredErrors.js"
import type { GenerateContentResponse, NativeChunk } from "../../core/text/native/NativeResponse.js"
import type { NativeToolsRequest } from "../../core/tools/NativeTools.js"

/** What reading the final value can fail with besides the model call's own errors. @category models */
export type OutputError = InvalidRequest | OutputMismatch | OutputRefused

/**
 * How a family gets the typed final value: `prepare` makes the loop's body (adding what is sent at
 * every step, or only checking that the final request can be made, so that nothing is sent when it
 * cannot); `final` reads the value once the model stopped — from that answer, or from one more call
 * (`extra`, shown as a `ModelTurn` with `output: true`).
 * @category models
 */
export interface OutputPlan<Body, Response, A> {
  readonly prepare: (body: Body) => Result.Result<Body, InvalidRequest>
  readonly final: <E>(
    body: Body,
    response: Response,
    call: (body: Body) => Effect.Effect<Response, E>
  ) => Effect.Effect<{ readonly value: A; readonly extra: Response | undefined }, E | OutputError>
}

type Plan<Body, Response, A> = Result.Result<
  OutputPlan<Body, Response, A> | undefined,
  SchemaNotExpressible | InvalidRequest
>

const targetOf = <A>(
  schema: AnySchema<A>,
  jsonSchema: JsonSchemaObject | undefined
): Result.Result<
  { readonly prepared: PreparedSchema<A>; readonly target: SchemaTarget },
  SchemaNotExpressible | InvalidRequest
> =>
  Result.flatMap(prepareSchema(schema, jsonSchema), (prepared) =>
    Result.map(schemaTarget(prepared), (target) => ({ prepared, target }))
  )

/** The format sent at every step; the value read from the answer that stops the loop. */
const everyStep = <Body, Response, Event, A>(
  mechanism: Mechanism<Body, Response, Event>,
  schema: AnySchema<A> | undefined,
  jsonSchema: JsonSchemaObject | undefined
): Plan<Body, Response, A> =>
  schema === undefined
    ? Result.succeed(undefined)
    : Result.map(targetOf(schema, jsonSchema), ({ prepared, target }) => ({
        prepare: (body) => mechanism.request(body, target),
        final: (_body, response) =>
          Effect.map(answerValue(mechanism, prepared, target, response), ({ value }) => ({ value, extra: undefined }))
      }))

/** One more call once the model stopped: the conversation so far with the mechanism (and `adjust`) added. */
const finalCall = <Body, Response, Event, A>(
  mechanism: Mechanism<Body, Response, Event>,
  schema: AnySchema<A> | undefined,
  jsonSchema: JsonSchemaObject | undefined,
  adjust: (body: Body) => Body = (body) => body
): Plan<Body, Response, A> =>
  schema === undefined
    ? Result.succeed(undefined)
    : Result.map(targetOf(schema, jsonSchema), ({ prepared, target }) => ({
        prepare: (body) => Result.map(mechanism.request(body, target), () => body),
        final: (body, _response, call) =>
          Effect.flatMap(Effect.fromResult(mechanism.request(body, target)), (asked) =>
            Effect.flatMap(call(adjust(asked)), (extra) =>
              Effect.map(answerValue(mechanism, prepared, target, extra), ({ value }) => ({ value, extra }))
            )
          )
      }))

/** Messages-style: the forced tool of the mechanism, asked once the model stopped. @category constructors */
export const messagesOutput = <A>(schema: AnySchema<A> | undefined, jsonSchema?: JsonSchemaObject) =>
  finalCall(messagesMechanism, schema, jsonSchema)

/** Chat: `response_format` at every step. @category constructors */
export const chatOutput = <A>(schema: AnySchema<A> | undefined, jsonSchema?: JsonSchemaObject) =>
  everyStep(chatMechanism, schema, jsonSchema)

/** Responses: `text.format` at every step. @category constructors */
export const responsesOutput = <A>(schema: AnySchema<A> | undefined, jsonSchema?: JsonSchemaObject) =>
  everyStep(responsesMechanism, schema, jsonSchema)

/**
 * Native: the JSON answer asked once the model stopped, with function calling off for that call
 * (`toolConfig` mode `NONE`; the declarations stay, as the conversation holds their calls).
 * @category constructors
 */
export const nativeOutput = <A>(
  schema: AnySchema<A> | undefined,
  jsonSchema?: JsonSchemaObject
): Plan<NativeToolsRequest, GenerateContentResponse, A> =>
  // The mechanism keeps the body's other members (`model` among them).
  finalCall(
    nativeMechanism as unknown as Mechanism<NativeToolsRequest, GenerateContentResponse, NativeChunk>,
    schema,
    jsonSchema,
    (request) => ({
      ...request,
      toolConfig: { functionCallingConfig: { mode: "NONE" } }
    })
  )
