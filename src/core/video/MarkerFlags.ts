/** The delta family's marker flags (`--rs 720p --dur 5 …`): parsed out of a prompt, checked, and rendered back once each. */
import * as Effect from "effect/Effect"
import * as Result from "effect/Result"
import * as Schema from "effect/Schema"
import type { InvalidRequest } from "../errors/InvalidRequest.js"
import { describe, fail, listAllowed } from "../validation/Rules.js"

/** Resolutions a flag may name (E1 delta table). @category models */
export const markerResolutions = ["480p", "720p", "1080p"] as const
/** Ratios a flag may name (E1 delta table; the contract's list, so no 21:9). @category models */
export const markerRatios = ["16:9", "9:16", "1:1", "4:3", "3:4", "adaptive"] as const
/** Frame rates a flag may name. @category models */
export const markerFrameRates = [24, 30] as const

/** The settings a delta prompt carries, keyed by the long flag names. @category models */
export const MarkerFlags = Schema.Struct({
  resolution: Schema.optionalKey(Schema.Literals(markerResolutions)),
  ratio: Schema.optionalKey(Schema.Literals(markerRatios)),
  duration: Schema.optionalKey(Schema.Int),
  framespersecond: Schema.optionalKey(Schema.Literals(markerFrameRates)),
  seed: Schema.optionalKey(Schema.Int),
  watermark: Schema.optionalKey(Schema.Boolean),
  camerafixed: Schema.optionalKey(Schema.Boolean)
})
/** @category models */
export type MarkerFlags = typeof MarkerFlags.Type
/** A long flag name. @category models */
export type MarkerFlagName = keyof MarkerFlags

type Mutable<T> = { -readonly [K in keyof T]: T[K] }

/** How each flag is spelled (short first, the rendered form) and how its value is read. */
const flagSpecs: ReadonlyArray<{
  readonly name: MarkerFlagName
  readonly spellings: ReadonlyArray<string>
  readonly allowed: string
  readonly read: (raw: string) => string | number | boolean | undefined
}> = [
  {
    name: "resolution",
    spellings: ["rs", "resolution"],
    allowed: listAllowed(markerResolutions),
    read: (r) => ((markerResolutions as ReadonlyArray<string>).includes(r) ? r : undefined)
  },
  {
    name: "ratio",
    spellings: ["ratio", "rt"],
    allowed: listAllowed(markerRatios),
    read: (r) => ((markerRatios as ReadonlyArray<string>).includes(r) ? r : undefined)
  },
  { name: "duration", spellings: ["dur", "duration"], allowed: "an integer", read: (r) => readInteger(r) },
  {
    name: "framespersecond",
    spellings: ["fps", "framespersecond"],
    allowed: listAllowed(markerFrameRates),
    read: (r) => (r === "24" ? 24 : r === "30" ? 30 : undefined)
  },
  { name: "seed", spellings: ["seed"], allowed: "an integer", read: (r) => readInteger(r) },
  {
    name: "watermark",
    spellings: ["wm", "watermark"],
    allowed: "true, false",
    read: (r) => (r === "true" ? true : r === "false" ? false : undefined)
  },
  {
    name: "camerafixed",
    spellings: ["cf", "camerafixed"],
    allowed: "true, false",
    read: (r) => (r === "true" ? true : r === "false" ? false : undefined)
  }
]

const readInteger = (raw: string): number | undefined => {
  if (!/^-?\d{1,15}$/.test(raw)) return undefined
  const n = Number(raw)
  // "-0" would render back as "0": keep the text canonical so parse ∘ render stays the identity.
  return Object.is(n, -0) ? undefined : n
}

const specBySpelling = new Map(flagSpecs.flatMap((spec) => spec.spellings.map((s) => [s, spec] as const)))
const spellingAlternation = [...specBySpelling.keys()].sort((a, b) => b.length - a.length).join("|")
// A flag is `--name` at the start or after whitespace, ending at whitespace or the end; its value is the next word.
// Names match in any letter case (`--RS` is `--rs`): nothing says upstream reads them case-sensitively, and a
// gateway that takes `--RS 1080p` as the flag must not get it unchecked. Rendered back once, in lower case, which
// every reading takes; values keep their case (`--rs 1080P` is refused).
const flagPattern = new RegExp(`(^|\\s+)--(${spellingAlternation})(?=\\s|$)(?:\\s+(?!--)(\\S+))?`, "gi")
// Any `--word` of letters standing alone (at the start or after whitespace, before whitespace or the end) is in a
// flag's place: the contract passes a delta's parameters only as marker flags, so a word there that names none
// of them (`--frames 49`, a misspelt `--resolutoin 720p`) is refused rather than sent as prompt text.
const anyFlagPattern = /(?:^|\s)--([A-Za-z]+)(?=\s|$)/g
/** Every spelling a flag takes, for the message of an unknown one: `--rs, --resolution, --ratio, --rt, …`. */
const allSpellings = flagSpecs.flatMap((spec) => spec.spellings.map((s) => `--${s}`)).join(", ")

/**
 * Takes the marker flags out of a delta prompt: `"a cat --rs 720p --dur 5"` → prompt `"a cat"`, flags
 * `{ resolution: "720p", duration: 5 }`. Both spellings parse, in any letter case (`--RS 720p` too). A `--word`
 * of letters standing alone that names no flag (`--frames 49`) fails on `field`, naming the flags (the contract
 * passes a delta's parameters only as marker flags, and the gateway reads any `--word` there as one); a word
 * that only starts like one (`x--rs`, `--4k`, `--no-audio`) stays in the prompt. A bad value, a flag without
 * value, or one flag given twice with different values fails on `field` too.
 * @category parsing
 */
export const parseMarkerFlags = (
  text: string,
  field = "prompt"
): Effect.Effect<{ readonly prompt: string; readonly flags: MarkerFlags }, InvalidRequest> =>
  Effect.suspend(() => Effect.fromResult(parseMarkerFlagsResult(text, field)))

/** `parseMarkerFlags` as a synchronous `Result` (what the delta builder runs). @internal */
export const parseMarkerFlagsResult = (
  text: string,
  field = "prompt"
): Result.Result<{ readonly prompt: string; readonly flags: MarkerFlags }, InvalidRequest> =>
  Result.gen(function* () {
    const flags: Mutable<MarkerFlags> = {}
    const given: Partial<Record<MarkerFlagName, string>> = {}
    for (const match of text.matchAll(anyFlagPattern)) {
      const name = match[1]!
      if (!specBySpelling.has(name.toLowerCase()))
        return yield* fail(
          field,
          "marker-flag",
          `${field}: --${name.slice(0, 40)} is not a marker flag; allowed: ${allSpellings}`
        )
    }
    for (const match of text.matchAll(flagPattern)) {
      const spelling = match[2]!
      const raw = match[3]
      const spec = specBySpelling.get(spelling.toLowerCase())!
      if (raw === undefined)
        return yield* fail(field, "marker-flag", `${field}: --${spelling} needs a value; allowed: ${spec.allowed}`)
      const value = spec.read(raw)
      if (value === undefined)
        return yield* fail(
          field,
          "marker-flag",
          `${field}: --${spelling} ${describe(raw)} is not allowed; allowed: ${spec.allowed}`
        )
      const before = flags[spec.name]
      if (before !== undefined && before !== value)
        return yield* fail(
          field,
          "marker-flag-conflict",
          `${field}: --${spelling} ${raw} contradicts ${given[spec.name]} given earlier; give each flag once`
        )
      ;(flags as Record<string, unknown>)[spec.name] = value
      given[spec.name] = `--${spelling} ${raw}`
    }
    // A flag takes its leading whitespace with it, so "a --seed 1 b" leaves "a b".
    const prompt = text.replace(flagPattern, "").trim()
    return { prompt, flags }
  })

/**
 * Appends the flags to a prompt, each once, short spellings in a fixed order:
 * `renderMarkerFlags("a cat", { duration: 5 })` → `"a cat --dur 5"`. `parseMarkerFlags` reads it back.
 * @category rendering
 */
export const renderMarkerFlags = (prompt: string, flags: MarkerFlags): string => {
  const parts: Array<string> = []
  for (const spec of flagSpecs) {
    const value = flags[spec.name]
    if (value !== undefined) parts.push(`--${spec.spellings[0]} ${String(value)}`)
  }
  const text = parts.join(" ")
  return prompt === "" ? text : text === "" ? prompt : `${prompt} ${text}`
}

/** The flag each generic E1 field becomes (`aspect_ratio` → `--ratio`). @category models */
export const markerFlagOfField: Readonly<Record<string, MarkerFlagName>> = {
  resolution: "resolution",
  aspect_ratio: "ratio",
  duration: "duration",
  fps: "framespersecond",
  seed: "seed",
  watermark: "watermark",
  camera_fixed: "camerafixed"
}

/**
 * Joins flags from two sources (the prompt and the request's fields). A setting given by both must agree;
 * the failure names the field of the second source and what the first said.
 * @category combinators
 */
export const mergeMarkerFlags = (
  first: MarkerFlags,
  second: MarkerFlags,
  fieldOf: (name: MarkerFlagName) => string,
  firstSource = "the prompt"
): Effect.Effect<MarkerFlags, InvalidRequest> =>
  Effect.suspend(() => Effect.fromResult(mergeMarkerFlagsResult(first, second, fieldOf, firstSource)))

/** `mergeMarkerFlags` as a synchronous `Result` (what the delta builder runs). @internal */
export const mergeMarkerFlagsResult = (
  first: MarkerFlags,
  second: MarkerFlags,
  fieldOf: (name: MarkerFlagName) => string,
  firstSource = "the prompt"
): Result.Result<MarkerFlags, InvalidRequest> =>
  Result.gen(function* () {
    const out: Mutable<MarkerFlags> = { ...first }
    for (const spec of flagSpecs) {
      const a = first[spec.name]
      const b = second[spec.name]
      if (b === undefined) continue
      if (a !== undefined && a !== b) {
        const field = fieldOf(spec.name)
        return yield* fail(
          field,
          "marker-flag-conflict",
          `${field}: ${describe(b)} disagrees with --${spec.spellings[0]} ${String(a)} in ${firstSource}`
        )
      }
      ;(out as Record<string, unknown>)[spec.name] = b
    }
    return out
  })
