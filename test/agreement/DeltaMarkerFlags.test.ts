// A delta prompt's `--word`s, on both sides. The contract passes a delta's parameters only as marker
// flags in the text item (E1 delta table), and upstream reads any `--name value` there as a command
// (protocol notes §6.4), so a `--word` of letters standing alone that names no flag of the contract is
// refused by the client's builder, naming the field and the flags, and by the emulator; a word that
// only starts like a flag is prompt text to both.
import { Effect, Result } from "effect"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseMarkerFlags } from "../../src/core/video/MarkerFlags.js"
import { buildVideoBody } from "../../src/core/video/VideoBody.js"
import { readFlags } from "../../src/emulator/video/VideoDeltaRules.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

const SUBMIT = "/v1/video/generations"
const model = "delta-1-5-pro-251215"

/** The client's verdict on a prompt, and the emulator's answer to the body built (else the input as given). */
const verdicts = async (prompt: string) => {
  // The family's own body (E1 delta: the text item, the top-level prompt repeating it), as both sides take it.
  const input = { model, prompt, metadata: { content: [{ type: "text", text: prompt }] } }
  const built = Effect.runSync(Effect.result(buildVideoBody(input)))
  const res = await fetch(`${emu.url}${SUBMIT}`, {
    method: "POST",
    headers: { authorization: `Bearer ${emu.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(Result.isSuccess(built) ? built.success : input)
  })
  const json = (await res.json()) as { error?: { message?: string; param?: string } }
  return { built, status: res.status, error: json.error }
}

const unknownFlags = [
  "a calm sea --frames 49",
  "a calm sea --resolutoin 720p",
  "--cinematic a calm sea",
  "a calm sea --dur 5 --Seedling 3",
  "a calm sea --x"
]
const promptText = [
  "a calm sea",
  "a calm sea --rs 720p --dur 5",
  "a calm sea --RT 16:9",
  "a calm sea x--frames 49",
  "a calm sea --4k",
  "a calm sea --no-audio",
  "a calm sea -- at dusk",
  "a calm sea —frames 49"
]

describe("a delta prompt's --words: the client builds it exactly when the emulator takes it", () => {
  it("a --word in a flag's place that names no flag: both refuse, naming the field and the flags", async () => {
    for (const prompt of unknownFlags) {
      const { built, status, error } = await verdicts(prompt)
      expect(Result.isFailure(built), prompt).toBe(true)
      if (Result.isFailure(built)) {
        expect(built.failure).toMatchObject({ field: "prompt", rule: "marker-flag" })
        expect(built.failure.message).toMatch(
          /^prompt: --[A-Za-z]+ is not a marker flag; allowed: --rs, --resolution, /
        )
      }
      expect(status, prompt).toBe(400)
      expect(error?.message).toMatch(/unknown marker flag --[A-Za-z]+; allowed: --rs, --resolution, /)
    }
  })

  it("known flags and words that only start like a flag: both take them", async () => {
    for (const prompt of promptText) {
      const { built, status } = await verdicts(prompt)
      expect({ prompt, built: Result.isSuccess(built), status }).toEqual({ prompt, built: true, status: 200 })
    }
  })
})

it("the client's reader finds a --word that names no flag exactly where the emulator's reader does", () => {
  const word = fc.oneof(
    fc.stringMatching(/^[a-zA-Z0-9:]{1,6}$/),
    fc.constantFrom("--", "--x", "--frames", "--Seedling", "--rsx", "--4k", "--no-audio", "x--rs", "—rs", "\t")
  )
  // Known flags with values, each at most once: then an unknown --word is the only refusal either reader makes.
  const known = fc.subarray(["--rs 720p", "--RT 9:16", "--dur 5", "--fps 24", "--seed 7", "--wm false", "--CF true"])
  const text = fc
    .tuple(fc.array(word, { maxLength: 8 }), known)
    .chain(([words, flags]) => fc.shuffledSubarray([...words, ...flags], { minLength: words.length + flags.length }))
    .map((parts) => parts.join(" "))
  fc.assert(
    fc.property(text, (t) => {
      const client = Effect.runSync(Effect.result(parseMarkerFlags(t)))
      const emulator = readFlags(t)
      expect(Result.isFailure(client) && client.failure.message.includes("is not a marker flag")).toBe(
        "error" in emulator
      )
      if ("error" in emulator) expect(emulator.error).toMatch(/^unknown marker flag /)
    })
  )
})
