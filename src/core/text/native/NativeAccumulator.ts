/**
 * The native-content (zeta) stream accumulator: a pure fold of stream chunks into one
 * `GenerateContentResponse`. Adjacent text parts are joined, other parts kept whole (fields umg does
 * not know included), and the latest cumulative usage kept; a blocked prompt ends as the unary answer
 * does (its `promptFeedback`, no candidate); an error chunk or a stream without `finishReason` is an
 * `IncompleteStream`.
 */
import * as Result from "effect/Result"
import { type Accumulator, foldAll, incomplete, replaceAt, type Step } from "../Accumulator.js"
import type { GenerateContentResponse, NativeCandidate, NativeChunk, NativePart } from "./NativeResponse.js"

/**
 * The accumulated response. Chunks carry only their new parts, so the snapshot is itself a
 * `GenerateContentResponse`; each candidate's `index` is set (to its position when a chunk omits it).
 * @category models
 */
export type NativeSnapshot = GenerateContentResponse

/** The snapshot before any chunk. @category constructors */
export const initialNativeSnapshot: NativeSnapshot = {}

/**
 * A part that is only text (perhaps a thought, perhaps with a signature): such parts are joined. A
 * part with any other field, one umg does not know included, is kept whole: joining would drop the
 * later part's field.
 */
const isTextPart = (part: NativePart): part is NativePart & { readonly text: string } => {
  if (typeof part.text !== "string") return false
  for (const key in part) if (key !== "text" && key !== "thought" && key !== "thoughtSignature") return false
  return true
}

/**
 * Appends a chunk's parts: a text part joins the previous one when both are text of the same kind
 * (thought or not) and at most one of them carries a `thoughtSignature` (a signature is per part).
 */
const mergeParts = (parts: ReadonlyArray<NativePart>, added: ReadonlyArray<NativePart>): ReadonlyArray<NativePart> => {
  if (added.length === 0) return parts
  const out = parts.slice()
  for (const part of added) {
    const last = out[out.length - 1]
    if (
      last !== undefined &&
      isTextPart(last) &&
      isTextPart(part) &&
      (last.thought === true) === (part.thought === true) &&
      (last.thoughtSignature === undefined || part.thoughtSignature === undefined)
    ) {
      const signature = last.thoughtSignature ?? part.thoughtSignature
      out[out.length - 1] = {
        ...last,
        text: last.text + part.text,
        ...(signature === undefined ? {} : { thoughtSignature: signature })
      }
    } else out.push(part)
  }
  return out
}

/** The later value when present, else the earlier one (optional fields stay absent, not undefined). */
const later = <K extends keyof NativeCandidate>(key: K, prev: NativeCandidate, next: NativeCandidate) =>
  next[key] !== undefined ? { [key]: next[key] } : prev[key] !== undefined ? { [key]: prev[key] } : {}

/** Merges one candidate fragment into the accumulated candidate. */
const mergeCandidate = (prev: NativeCandidate, next: NativeCandidate): NativeCandidate => {
  const parts = mergeParts(prev.content?.parts ?? [], next.content?.parts ?? [])
  const role = next.content?.role ?? prev.content?.role
  return {
    ...prev,
    content: { ...(role === undefined ? {} : { role }), parts },
    ...later("finishReason", prev, next),
    ...later("safetyRatings", prev, next),
    ...later("citationMetadata", prev, next),
    ...later("groundingMetadata", prev, next),
    ...later("avgLogprobs", prev, next),
    ...later("finishMessage", prev, next)
  }
}

/**
 * One fold step: a fresh snapshot, or an `IncompleteStream` whose `partial` is the snapshot before
 * `chunk` — `error-event` for a chunk with a top-level `error` (its status is the `errorType`),
 * `out-of-order` for new parts on a candidate that had finished. A blocked prompt
 * (`promptFeedback.blockReason`) is not a failure: it is the answer, as in a unary call. Never throws.
 * @category folding
 */
export const stepNative = (snapshot: NativeSnapshot, chunk: NativeChunk): Step<NativeSnapshot> => {
  if (chunk.error !== undefined) {
    const type = chunk.error.status ?? (chunk.error.code === undefined ? "error" : String(chunk.error.code))
    return incomplete(
      "native",
      "error-event",
      `stream error ${type}: ${chunk.error.message ?? "(no message)"}`,
      snapshot,
      type
    )
  }
  let candidates = snapshot.candidates ?? []
  const added = chunk.candidates ?? []
  for (let position = 0; position < added.length; position++) {
    const fragment = added[position]!
    const index = fragment.index ?? position
    const at = candidates.findIndex((c) => c.index === index)
    const prev = candidates[at]
    if (prev === undefined) {
      candidates = [...candidates, mergeCandidate({ index }, fragment)]
      continue
    }
    if (prev.finishReason !== undefined && (fragment.content?.parts?.length ?? 0) > 0) {
      return incomplete("native", "out-of-order", `new parts for candidate ${index} after its finishReason`, snapshot)
    }
    candidates = replaceAt(candidates, at, mergeCandidate(prev, fragment))
  }
  const next: { -readonly [K in keyof NativeSnapshot]: NativeSnapshot[K] } = { ...snapshot }
  if (added.length > 0) next.candidates = candidates
  if (chunk.usageMetadata !== undefined) next.usageMetadata = chunk.usageMetadata
  if (chunk.promptFeedback !== undefined) next.promptFeedback = chunk.promptFeedback
  if (chunk.modelVersion !== undefined) next.modelVersion = chunk.modelVersion
  if (chunk.createTime !== undefined) next.createTime = chunk.createTime
  if (chunk.responseId !== undefined) next.responseId = chunk.responseId
  return Result.succeed(next)
}

/**
 * Whether a snapshot is a whole answer: a prompt blocked (`promptFeedback.blockReason`, no candidate:
 * none will come), or at least `candidates` candidates (default 1), every one with its `finishReason`.
 * The native group's stream ends on it; not exported from `umg/core`.
 * @category folding
 */
export const isNativeComplete = (snapshot: NativeSnapshot, candidates = 1): boolean => {
  const got = snapshot.candidates ?? []
  if (got.length === 0) return snapshot.promptFeedback?.blockReason !== undefined
  if (got.length < candidates) return false
  for (let i = 0; i < got.length; i++) if (got[i]!.finishReason === undefined) return false
  return true
}

/**
 * The final response — every candidate finished, or the prompt blocked (then the response carries its
 * `promptFeedback` and no candidate, as the unary answer does) — else `ended-early`.
 * @category folding
 */
export const finishNative = (snapshot: NativeSnapshot): Step<GenerateContentResponse> =>
  isNativeComplete(snapshot)
    ? Result.succeed(snapshot)
    : incomplete("native", "ended-early", "the stream ended before a finishReason", snapshot)

/** The native-content accumulator, for `scanStep` and `foldAll`. @category folding */
export const nativeAccumulator: Accumulator<NativeChunk, NativeSnapshot, GenerateContentResponse> = {
  family: "native",
  initial: initialNativeSnapshot,
  step: stepNative,
  finish: finishNative
}

/** Folds a whole list of chunks into the final response. @category folding */
export const accumulateNative = (chunks: Iterable<NativeChunk>): Step<GenerateContentResponse> =>
  foldAll(nativeAccumulator, chunks)
