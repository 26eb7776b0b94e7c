/**
 * Closed bodies: a body's known fields are its Schema's fields. An unknown top-level field is refused
 * naming the nearest known one, and fields the gateway accepts that umg does not know yet travel in
 * one explicit, typed escape hatch, `extra`, merged into the body when it is built. The last step of
 * every builder (`seal`) also checks that the body is plain JSON that can be sent unchanged.
 */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { findUnsendable } from "../wire/JsonSafety.js"
import { refuseNestedUnknown } from "./NestedFields.js"
import { at, copyFields, describe, fail, isRecord, type Json, optional, sanitize } from "./Rules.js"
import { conform } from "./Conform.js"
import { NonBlank } from "./FieldRules.js"
import * as DidYouMean from "./DidYouMean.js"

/** The name of the escape hatch. @category models */
export const extraField = "extra"

/**
 * A body as callers write it: the closed body plus `extra`, fields the gateway accepts that umg does
 * not know yet (merged into the body as they are; a key that names a known field is refused). A
 * top-level field given as `undefined` is left out (see `pick`), so each optional one also takes
 * `undefined` (`{ temperature: options.temperature }` under `exactOptionalPropertyTypes`); nested
 * objects keep their own fields as the Schema has them.
 * @category models
 */
export type WithExtra<B> = { [K in keyof B]: Pick<B, K> extends Required<Pick<B, K>> ? B[K] : B[K] | undefined } & {
  readonly extra?: Readonly<Record<string, unknown>> | undefined
}

/** A `Schema.Struct`, checked by rules across its fields (`acrossFields`) or not. @category models */
export type StructLike = { readonly fields: Readonly<Record<string, unknown>> } | { readonly from: StructLike }

/** The known top-level fields of a body Schema (a `Schema.Struct`, checked or not). @category constructors */
export const fieldsOf = (schema: StructLike): ReadonlyArray<string> =>
  "fields" in schema ? Object.keys(schema.fields) : fieldsOf(schema.from)

/**
 * The known name closest to `name`, when it is close enough to be a likely misspelling (the one
 * "did you mean" rule, `DidYouMean.nearestName`), else `undefined`.
 * @category constructors
 */
export const nearestName: (name: string, known: ReadonlyArray<string>) => string | undefined = DidYouMean.nearestName

const shown = (key: string): string => (key.length > 40 ? `${key.slice(0, 37)}...` : key)

// A key that is not a plain name is written as `["…"]` so the field path is never empty or ambiguous.
const keyPath = (path: string, key: string): string =>
  /^[A-Za-z_$][\w$-]*$/.test(key) ? at(path, key) : `${path}[${JSON.stringify(shown(key))}]`

/**
 * Refuses the first top-level field of `obj` that is neither known nor `extra`:
 * "unknown field `temprature`; did you mean `temperature`?".
 * @category validators
 */
export const refuseUnknownFields = (
  obj: Json,
  known: ReadonlyArray<string>,
  path = "",
  what = "this body",
  /** Whether this object may carry the `extra` escape hatch (the top level of a body does). */
  extraAllowed = path === ""
): Result.Result<void, InvalidRequest> => {
  for (const key of Object.keys(obj)) {
    if (key === extraField && extraAllowed) continue
    if (known.includes(key)) continue
    const near = nearestName(key, known)
    const field = keyPath(path, key)
    return fail(
      field,
      "unknown-field",
      `unknown field \`${shown(key)}\`${path === "" ? "" : ` in ${path}`}; ${
        near !== undefined ? `did you mean \`${near}\`?` : `${what} takes: ${known.join(", ")}`
      }${extraAllowed ? ` (fields umg does not know yet go in \`${path === "" ? extraField : at(path, extraField)}\`)` : ""}`
    )
  }
  return Result.void
}

/**
 * The `extra` object of a caller's body: a plain object whose keys name no known field, its values
 * copied without unsafe keys. Empty when absent.
 * @category validators
 */
export const readExtra = (obj: Json, known: ReadonlyArray<string>, path = ""): Result.Result<Json, InvalidRequest> => {
  const extra = optional(obj, extraField)
  if (extra === undefined) return Result.succeed({})
  const field = at(path, extraField)
  if (!isRecord(extra))
    return fail(field, "type", `${field}: expected an object of fields to send as they are, got ${describe(extra)}`)
  for (const key of Object.keys(extra)) {
    if (known.includes(key))
      return fail(
        keyPath(field, key),
        "extra-known",
        `${keyPath(field, key)}: \`${shown(key)}\` is a field umg knows; set it on ${path === "" ? "the body" : path} itself so it is checked`
      )
  }
  return Result.succeed(copyFields(extra))
}

/** A body's `model`: a non-blank id (the catalog then says which family it belongs to). @category schemas */
export const ModelId = NonBlank

const ModelOnly = Schema.Struct({ model: ModelId })
const isModelId = Schema.is(ModelId)

/**
 * The `model` of a body, read before the rest so that routing can refuse a model of another family
 * first: "model is required", "model: expected a string, got 5". Null means absent.
 * @category validators
 */
export const readModel = (input: Json): Result.Result<string, InvalidRequest> => {
  const model = optional(input, "model")
  // The common case without building an object; a failure is reported through the Schema as usual.
  if (isModelId(model)) return Result.succeed(model)
  return Result.map(conform(ModelOnly, model === undefined ? {} : { model }, ""), (valid) => valid.model)
}

/**
 * The last line of defence of every builder: untrusted input whose reading throws (a getter, a
 * revoked Proxy) is a malformed request, an `InvalidRequest`, never a defect.
 * @category combinators
 */
export const guardReads = <A>(effect: Effect.Effect<A, InvalidRequest>): Effect.Effect<A, InvalidRequest> =>
  Effect.catchDefect(effect, () => Effect.fromResult(malformed()))

const malformed = (): Result.Result<never, InvalidRequest> =>
  fail("(body)", "malformed", "the request could not be read as JSON data (a property threw when read)")

/**
 * A synchronous builder as the effect that runs it — each time it runs, so a body changed between
 * two runs (a retry) is checked again — with `guardReads`'s guard: whatever reading the input
 * throws is an `InvalidRequest`. The validators are `Result`s, so a builder written with `Result.gen`
 * costs one step of its caller's fiber, where `Effect.gen` costs one per validator it runs.
 * @category combinators
 */
export const buildWith = <A>(build: () => Result.Result<A, InvalidRequest>): Effect.Effect<A, InvalidRequest> =>
  Effect.suspend(() => {
    try {
      return Effect.fromResult(build())
    } catch {
      return Effect.fromResult(malformed())
    }
  })

/**
 * Checks what a builder built as well as what it was given: a message that wraps its input (a
 * `session.update` around a session) nests one or two levels deeper than the input did.
 * @category combinators
 */
export const sendableResult = <A>(effect: Effect.Effect<A, InvalidRequest>): Effect.Effect<A, InvalidRequest> =>
  Effect.tap(effect, (out) => Effect.fromResult(sendable(out)))

/** Fails with an `InvalidRequest` on the first part of `value` that is not plain, sendable JSON. @category validators */
export const sendable = (value: unknown, path = ""): Result.Result<void, InvalidRequest> => {
  const problem = findUnsendable(value)
  if (problem === undefined) return Result.void
  const field =
    problem.path === ""
      ? path === ""
        ? "(body)"
        : path
      : path === ""
        ? problem.path
        : problem.path.startsWith("[")
          ? `${path}${problem.path}`
          : `${path}.${problem.path}`
  return fail(field, "json", `${field}: ${problem.reason}`)
}

/**
 * The shared steps of a closed builder: `open` checks that the input is an object of plain JSON
 * values (`findUnsendable`, once) with only known fields (plus `extra`) and nothing unknown inside the
 * nested objects its Schema closes; `pick` copies the known fields given; `seal` checks the built body
 * against its Schema, where the body's rules live (no cast), and merges `extra` into it; `build` runs
 * them in order with the model's route, as a routed builder does.
 * @category constructors
 */
export const closedBody = <S extends Schema.Top & StructLike>(
  schema: S,
  what: string,
  /** Input fields the builder reads that the built body does not carry (e.g. the native body's `model`). */
  alsoAccepted: ReadonlyArray<string> = []
) => {
  const known = [...fieldsOf(schema), ...alsoAccepted]
  // Plain checks in order, each only once the one before passed (not `Result.gen`: every request
  // of every family passes here).
  const open = (input: unknown): Result.Result<Json, InvalidRequest> => {
    if (!isRecord(input)) return fail("(body)", "type", `the request: expected an object, got ${describe(input)}`)
    let check = sendable(input)
    if (Result.isSuccess(check)) check = refuseUnknownFields(input, known, "", what)
    // Inside: the objects the Schema closes (no index signature) take only their own keys.
    if (Result.isSuccess(check))
      check = refuseNestedUnknown(schema, input, (obj, keys, path) => refuseUnknownFields(obj, keys, path, path, false))
    return Result.isFailure(check) ? Result.fail(check.failure) : Result.succeed(input)
  }
  const pick = (input: Json): Record<string, unknown> => {
    const out: Record<string, unknown> = {}
    for (const key of fieldsOf(schema)) {
      const value = optional(input, key)
      if (value !== undefined) out[key] = sanitize(value)
    }
    return out
  }
  const seal = (input: Json, body: unknown, context?: string): Result.Result<S["Type"], InvalidRequest> => {
    const valid = conform(schema, body, "", context)
    if (Result.isFailure(valid)) return valid
    const extra = readExtra(input, known)
    if (Result.isFailure(extra)) return Result.fail(extra.failure)
    return Object.keys(extra.success).length === 0
      ? valid
      : Result.succeed(Object.assign({}, valid.success, extra.success))
  }
  return {
    known,
    open,
    /** The known fields of the input that are given (null means absent), copied without unsafe keys. */
    pick,
    /** The body checked against the Schema (its rules; `context`, the model, is named where a rule depends on it) with `extra` merged. */
    seal,
    /**
     * A routed body's whole build, the steps in order: `open`, the `model` read and given to `route`
     * (which refuses a model the endpoint does not serve), `pick`, the builder's own `adjust` of the
     * picked fields, then `seal` — naming the model where a rule depends on it, unless `nameModel` is
     * false (a body whose rules hold for every model). `open` replaces the body's own when the input
     * is opened against another body's fields (count tokens takes a whole create body). Plain code
     * rather than `Result.gen`: its generator cost a sequential chat call about 6 % of its CPU
     * (1 December 2026, loopback).
     */
    build: (
      input: unknown,
      route: (model: string) => Result.Result<unknown, InvalidRequest>,
      options: {
        readonly adjust?: ((picked: Record<string, unknown>) => void) | undefined
        readonly nameModel?: boolean | undefined
        readonly open?: ((input: unknown) => Result.Result<Json, InvalidRequest>) | undefined
      } = {}
    ): Result.Result<S["Type"], InvalidRequest> => {
      const opened = (options.open ?? open)(input)
      if (Result.isFailure(opened)) return opened
      const model = readModel(opened.success)
      if (Result.isFailure(model)) return model
      const routed = route(model.success)
      if (Result.isFailure(routed)) return Result.fail(routed.failure)
      const out = pick(opened.success)
      options.adjust?.(out)
      return seal(opened.success, out, options.nameModel === false ? undefined : model.success)
    }
  }
}
