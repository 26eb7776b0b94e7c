// A video duration checked on both sides: E1's generic `duration` and each family's own duration
// field are integers (alpha's `seconds` alone is a string or an integer), so a duration written as a
// string is refused by the client's builder, naming the field, and by the emulator, which is sent the
// input as given; the same duration as a number is built by the client and taken by the emulator.
import { Effect, Result } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildVideoBody } from "../../src/core/video/VideoBody.js"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { postStatus } from "../support/emulatorStatus.js"

let emu: Emulator
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
})
afterAll(() => emu.close())

const SUBMIT = "/v1/video/generations"

/** What the client does with `input`, and what the emulator answers (the body built, else the input). */
const verdicts = async (input: Record<string, unknown>) => {
  const built = Effect.runSync(Effect.result(buildVideoBody(input)))
  const status = await postStatus(emu, SUBMIT, Result.isSuccess(built) ? built.success : input)
  return { built, status }
}

// One model of each family, with a duration it allows and the field that carries it.
const cases = [
  { family: "alpha", model: "alpha-2", field: "duration", seconds: 8 },
  { family: "alpha", model: "alpha-2", field: "seconds", seconds: 8 },
  { family: "beta", model: "beta-3.1-fast-generate-001", field: "duration", seconds: 8 },
  { family: "beta", model: "beta-3.1-fast-generate-001", field: "durationSeconds", seconds: 8 },
  { family: "gamma", model: "gamma2.5-t2v-preview", field: "duration", seconds: 10 },
  { family: "delta", model: "delta-1-5-pro-251215", field: "duration", seconds: 8 }
] as const

describe("a video duration written as a string", () => {
  for (const { family, model, field, seconds } of cases) {
    // Alpha's `seconds` is "string or integer" in the E1 alpha table; every other duration is an integer.
    const takesString = field === "seconds"
    it(`${family} ${field}: the client ${takesString ? "builds" : "refuses"} "${seconds}" as the emulator ${
      takesString ? "takes" : "refuses"
    } it, and both take ${seconds}`, async () => {
      const asString = await verdicts({ model, prompt: "a calm sea", [field]: String(seconds) })
      if (takesString) {
        expect(Result.isSuccess(asString.built)).toBe(true)
        expect(asString.status).toBe(200)
      } else {
        expect(Result.isFailure(asString.built) && asString.built.failure).toMatchObject({ field, rule: "one-of" })
        expect(asString.status).toBe(400)
      }
      const asNumber = await verdicts({ model, prompt: "a calm sea", [field]: seconds })
      expect(Result.isSuccess(asNumber.built)).toBe(true)
      expect(asNumber.status).toBe(200)
    })
  }
})
