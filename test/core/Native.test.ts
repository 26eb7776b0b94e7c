import { Effect, Result } from "effect"
import { describe, expect, it } from "vitest"
import type { InvalidRequest } from "../../src/core/errors/InvalidRequest.js"
import { buildNativeBody, parseNativeModel } from "../../src/core/text/native/Native.js"

// A builder's effect, or the result of a synchronous check (`parseNativeModel`).
const outcome = <A>(
  run: Effect.Effect<A, InvalidRequest> | Result.Result<A, InvalidRequest>
): Result.Result<A, InvalidRequest> => (Result.isResult(run) ? run : Effect.runSync(Effect.result(run)))
const failure = <A>(run: Effect.Effect<A, InvalidRequest> | Result.Result<A, InvalidRequest>): InvalidRequest => {
  const result = outcome(run)
  if (Result.isSuccess(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.success)}`)
  return result.failure
}
const success = <A>(run: Effect.Effect<A, InvalidRequest> | Result.Result<A, InvalidRequest>): A => {
  const result = outcome(run)
  if (Result.isFailure(result)) throw new Error(`expected a success, got ${result.failure.message}`)
  return result.success
}

const contents = [{ role: "user", parts: [{ text: "Hello" }] }]
const base = { contents }
const withField = (extra: Record<string, unknown>) => ({ ...base, ...extra })
const gen = (generationConfig: Record<string, unknown>) => withField({ generationConfig })
const thinking = (thinkingConfig: Record<string, unknown>) => gen({ thinkingConfig })

describe("parseNativeModel", () => {
  it("reads the class from the id and finds no suffix on a plain id", () => {
    expect(success(parseNativeModel("zeta-2.5-pro"))).toEqual({
      id: "zeta-2.5-pro",
      base: "zeta-2.5-pro",
      modelClass: "2.5"
    })
    expect(success(parseNativeModel("zeta-3-pro-preview")).modelClass).toBe("3")
    expect(success(parseNativeModel("zeta-3.1-flash-lite")).modelClass).toBe("3")
    expect(success(parseNativeModel("zeta-2.0-flash")).modelClass).toBe("other")
  })

  it("parses the five suffixes", () => {
    expect(success(parseNativeModel("zeta-2.5-flash-thinking")).suffix).toEqual({ _tag: "thinking" })
    expect(success(parseNativeModel("zeta-2.5-flash-nothinking")).suffix).toEqual({ _tag: "nothinking" })
    const budget = success(parseNativeModel("zeta-2.5-pro-thinking-8192"))
    expect(budget).toEqual({
      id: "zeta-2.5-pro-thinking-8192",
      base: "zeta-2.5-pro",
      modelClass: "2.5",
      suffix: { _tag: "budget", budget: 8192 }
    })
    expect(success(parseNativeModel("zeta-3-pro-preview-thinking-low")).suffix).toEqual({ _tag: "level", level: "LOW" })
    expect(success(parseNativeModel("zeta-3-pro-preview-thinking-high")).suffix).toEqual({
      _tag: "level",
      level: "HIGH"
    })
  })

  it("refuses a level suffix on the 2.5 class and a budget suffix on the 3 class", () => {
    const a = failure(parseNativeModel("zeta-2.5-pro-thinking-low"))
    expect(a.field).toBe("model")
    expect(a.message).toContain("level suffixes are for the 3 class")
    expect(a.message).toContain("zeta-2.5-pro-thinking-<budget>")
    const b = failure(parseNativeModel("zeta-3-pro-preview-thinking-8192"))
    expect(b.message).toContain("budget suffixes are for the 2.5 class")
    expect(b.message).toContain("zeta-3-pro-preview-thinking-low")
  })

  it("checks a budget suffix against the model's range", () => {
    expect(success(parseNativeModel("zeta-2.5-pro-thinking-128")).suffix).toEqual({ _tag: "budget", budget: 128 })
    expect(failure(parseNativeModel("zeta-2.5-pro-thinking-100")).message).toContain("128 to 32768")
    expect(failure(parseNativeModel("zeta-2.5-flash-thinking-30000")).message).toContain("1 to 24576")
    expect(failure(parseNativeModel("zeta-2.5-flash-lite-thinking-256")).message).toContain("512 to 24576")
    expect(failure(parseNativeModel("zeta-2.5-flash-thinking-0")).field).toBe("model")
  })

  it("accepts -nothinking only where the model can turn thinking off", () => {
    expect(success(parseNativeModel("zeta-2.5-flash-nothinking")).suffix).toEqual({ _tag: "nothinking" })
    expect(success(parseNativeModel("zeta-3-flash-preview-nothinking")).suffix).toEqual({ _tag: "nothinking" })
    expect(failure(parseNativeModel("zeta-2.5-pro-nothinking")).message).toContain("cannot turn thinking off")
    expect(failure(parseNativeModel("zeta-3-pro-preview-nothinking")).message).toContain("cannot turn thinking off")
  })

  it("refuses an unknown -thinking-<word> suffix on a known class, naming the five", () => {
    const e = failure(parseNativeModel("zeta-3-pro-preview-thinking-max"))
    expect(e.message).toContain("-thinking, -thinking-<budget>, -nothinking, -thinking-low, -thinking-high")
  })

  it("refuses a model that is not a string", () => {
    expect(failure(parseNativeModel(undefined)).field).toBe("model")
  })
})

describe("buildNativeBody: contents", () => {
  it("builds the minimal body unchanged, without the model", () => {
    expect(success(buildNativeBody("zeta-2.5-pro", base))).toEqual(base)
  })

  it("refuses a model routed elsewhere: embeddings, live, messages", () => {
    expect(failure(buildNativeBody("zeta-embedding-001", base)).message).toContain("/v1/embeddings")
    expect(failure(buildNativeBody("zeta-live-2.5-flash-native-audio", base)).message).toContain("use live")
    expect(failure(buildNativeBody("epsilon-opus-4-5-20251101", base)).message).toContain("use messages")
  })

  it("drops a model field equal to the path's model and refuses a different one", () => {
    expect(success(buildNativeBody("zeta-2.5-pro", withField({ model: "zeta-2.5-pro" })))).toEqual(base)
    const e = failure(buildNativeBody("zeta-2.5-pro", withField({ model: "zeta-3-pro-preview" })))
    expect(e.field).toBe("model")
    expect(e.message).toContain("carries no model")
  })

  it("requires non-empty contents with user or model roles", () => {
    expect(failure(buildNativeBody("zeta-2.5-pro", {})).field).toBe("contents")
    expect(failure(buildNativeBody("zeta-2.5-pro", { contents: [] })).rule).toBe("non-empty")
    const e = failure(buildNativeBody("zeta-2.5-pro", { contents: [{ role: "assistant", parts: [{ text: "x" }] }] }))
    expect(e.field).toBe("contents[0].role")
    expect(e.message).toBe('contents[0].role: "assistant" is not allowed; allowed: user, model')
    expect(success(buildNativeBody("zeta-2.5-pro", { contents: [{ parts: [{ text: "x" }] }] })).contents).toHaveLength(
      1
    )
  })

  it("requires non-empty parts", () => {
    expect(failure(buildNativeBody("zeta-2.5-pro", { contents: [{ role: "user" }] })).field).toBe("contents[0].parts")
    expect(failure(buildNativeBody("zeta-2.5-pro", { contents: [{ role: "user", parts: [] }] })).field).toBe(
      "contents[0].parts"
    )
  })

  it("accepts the known part kinds and passes other kinds through", () => {
    const parts = [
      { text: "Describe" },
      { inlineData: { mimeType: "image/png", data: "iVBOR" } },
      { fileData: { mimeType: "video/mp4", fileUri: "https://x/v.mp4" } },
      { thought: true, text: "thinking", thoughtSignature: "sig" },
      { executableCode: { language: "PYTHON", code: "print(1)" } }
    ]
    const turns = [
      { role: "user", parts },
      { role: "model", parts: [{ functionCall: { name: "get_weather", args: { city: "Paris" } } }] },
      { role: "user", parts: [{ functionResponse: { name: "get_weather", response: { temp: 20 } } }] }
    ]
    expect(success(buildNativeBody("zeta-2.5-pro", { contents: turns })).contents).toEqual(turns)
  })

  it("checks the fields of each part kind with its path", () => {
    const one = (part: unknown) => ({ contents: [{ role: "user", parts: [{ text: "x" }, part] }] })
    expect(failure(buildNativeBody("zeta-2.5-pro", one({ inlineData: { data: "x" } }))).field).toBe(
      "contents[0].parts[1].inlineData.mimeType"
    )
    expect(failure(buildNativeBody("zeta-2.5-pro", one({ inlineData: { mimeType: "image/png" } }))).field).toBe(
      "contents[0].parts[1].inlineData.data"
    )
    expect(failure(buildNativeBody("zeta-2.5-pro", one({ fileData: { mimeType: "a/b" } }))).field).toBe(
      "contents[0].parts[1].fileData.fileUri"
    )
    expect(failure(buildNativeBody("zeta-2.5-pro", one({ functionCall: { args: {} } }))).field).toBe(
      "contents[0].parts[1].functionCall.name"
    )
    expect(failure(buildNativeBody("zeta-2.5-pro", one({ functionResponse: { name: "f" } }))).field).toBe(
      "contents[0].parts[1].functionResponse.response"
    )
    expect(failure(buildNativeBody("zeta-2.5-pro", one({ text: 5 }))).field).toBe("contents[0].parts[1].text")
  })

  it("refuses a part with two data kinds and an empty part", () => {
    const two = failure(
      buildNativeBody("zeta-2.5-pro", {
        contents: [{ role: "user", parts: [{ text: "a", inlineData: { mimeType: "a/b", data: "x" } }] }]
      })
    )
    expect(two.field).toBe("contents[0].parts[0]")
    expect(two.message).toContain("holds text and inlineData")
    expect(failure(buildNativeBody("zeta-2.5-pro", { contents: [{ role: "user", parts: [{}] }] })).rule).toBe(
      "non-empty"
    )
  })
})

describe("buildNativeBody: generationConfig", () => {
  it("accepts temperature from 0 to 2 and refuses above, naming the model and range", () => {
    expect(success(buildNativeBody("zeta-2.5-pro", gen({ temperature: 2 }))).generationConfig?.temperature).toBe(2)
    const e = failure(buildNativeBody("zeta-2.5-pro", gen({ temperature: 2.5 })))
    expect(e.field).toBe("generationConfig.temperature")
    expect(e.message).toBe("generationConfig.temperature: 2.5 is out of range for zeta-2.5-pro; allowed: 0 to 2")
  })

  it("checks topP, topK and maxOutputTokens", () => {
    expect(
      success(buildNativeBody("zeta-2.5-pro", gen({ topP: 0.9, topK: 40, maxOutputTokens: 1024 }))).generationConfig
    ).toEqual({
      topP: 0.9,
      topK: 40,
      maxOutputTokens: 1024
    })
    expect(failure(buildNativeBody("zeta-2.5-pro", gen({ topP: 1.5 }))).field).toBe("generationConfig.topP")
    expect(failure(buildNativeBody("zeta-2.5-pro", gen({ topK: 1.5 }))).field).toBe("generationConfig.topK")
    const e = failure(buildNativeBody("zeta-2.5-pro", gen({ maxOutputTokens: 0 })))
    expect(e.field).toBe("generationConfig.maxOutputTokens")
    expect(e.message).toContain("allowed: greater than 0")
  })

  it("accepts responseModalities in either case, sends them upper case, and refuses others", () => {
    expect(
      success(buildNativeBody("zeta-2.5-pro", gen({ responseModalities: ["text", "IMAGE"] }))).generationConfig
        ?.responseModalities
    ).toEqual(["TEXT", "IMAGE"])
    const e = failure(buildNativeBody("zeta-2.5-pro", gen({ responseModalities: ["VIDEO"] })))
    expect(e.field).toBe("generationConfig.responseModalities[0]")
    expect(e.message).toBe(
      'generationConfig.responseModalities[0]: "VIDEO" is not allowed; allowed: TEXT, IMAGE, AUDIO'
    )
  })

  it("accepts an imageConfig and refuses an unknown aspect ratio, size or MIME type", () => {
    const imageConfig = { aspectRatio: "16:9", imageSize: "2K", imageOutputOptions: { mimeType: "image/jpeg" } }
    expect(
      success(buildNativeBody("zeta-3-pro-preview", gen({ responseModalities: ["IMAGE"], imageConfig })))
        .generationConfig?.imageConfig
    ).toEqual(imageConfig)
    const ratio = failure(buildNativeBody("zeta-3-pro-preview", gen({ imageConfig: { aspectRatio: "7:3" } })))
    expect(ratio.field).toBe("generationConfig.imageConfig.aspectRatio")
    expect(ratio.message).toContain("allowed: 1:1, 2:3")
    expect(failure(buildNativeBody("zeta-3-pro-preview", gen({ imageConfig: { imageSize: "2k" } }))).field).toBe(
      "generationConfig.imageConfig.imageSize"
    )
    expect(
      failure(
        buildNativeBody("zeta-3-pro-preview", gen({ imageConfig: { imageOutputOptions: { mimeType: "text/plain" } } }))
      ).field
    ).toBe("generationConfig.imageConfig.imageOutputOptions.mimeType")
  })

  it("names the path of a known nested field given as null", () => {
    const e = failure(buildNativeBody("zeta-2.5-pro", gen({ temperature: null })))
    expect(e.field).toBe("generationConfig.temperature")
    expect(e.rule).toBe("type")
    expect(e.message).toBe("generationConfig.temperature: expected a number, got null")
  })

  it("passes the other known generationConfig fields through", () => {
    expect(
      success(buildNativeBody("zeta-2.5-pro", gen({ seed: 7, responseMimeType: "application/json" }))).generationConfig
    ).toEqual({
      seed: 7,
      responseMimeType: "application/json"
    })
  })

  it("refuses an unknown generationConfig, thinkingConfig or inlineData key naming the nearest known one (their members are a closed list)", () => {
    const e = failure(buildNativeBody("zeta-2.5-pro", gen({ temprature: 0.2 })))
    expect(e).toMatchObject({ field: "generationConfig.temprature", rule: "unknown-field" })
    expect(e.message).toBe("unknown field `temprature` in generationConfig; did you mean `temperature`?")
    const t = failure(buildNativeBody("zeta-2.5-pro", thinking({ thinkingBudgt: 2048 })))
    expect(t).toMatchObject({ field: "generationConfig.thinkingConfig.thinkingBudgt", rule: "unknown-field" })
    const parts = [{ inlineData: { mimeType: "image/png", data: "AAAA", mimetype: "x" } }]
    const i = failure(buildNativeBody("zeta-2.5-pro", { contents: [{ role: "user", parts }] }))
    expect(i).toMatchObject({ field: "contents[0].parts[0].inlineData.mimetype", rule: "unknown-field" })
    // A part itself stays open (upstream adds thought, thoughtSignature, …).
    expect(
      success(
        buildNativeBody("zeta-2.5-pro", {
          contents: [{ role: "user", parts: [{ text: "hi", thoughtSignature: "s" }] }]
        })
      ).contents
    ).toHaveLength(1)
  })
})

describe("buildNativeBody: thinkingConfig", () => {
  it("accepts thinkingBudget and includeThoughts on the 2.5 class within the model's range", () => {
    expect(
      success(buildNativeBody("zeta-2.5-pro", thinking({ thinkingBudget: 2048, includeThoughts: true })))
        .generationConfig?.thinkingConfig
    ).toEqual({
      thinkingBudget: 2048,
      includeThoughts: true
    })
    expect(
      success(buildNativeBody("zeta-2.5-pro", thinking({ thinkingBudget: -1 }))).generationConfig?.thinkingConfig
    ).toEqual({ thinkingBudget: -1 })
    expect(
      success(buildNativeBody("zeta-2.5-flash", thinking({ thinkingBudget: 0 }))).generationConfig?.thinkingConfig
    ).toEqual({ thinkingBudget: 0 })
  })

  it("refuses a budget outside the model's range, naming it", () => {
    const e = failure(buildNativeBody("zeta-2.5-pro", thinking({ thinkingBudget: 0 })))
    expect(e.field).toBe("generationConfig.thinkingConfig.thinkingBudget")
    expect(e.message).toBe(
      "generationConfig.thinkingConfig.thinkingBudget: 0 is out of range for zeta-2.5-pro; allowed: -1 (dynamic) or 128 to 32768"
    )
    expect(failure(buildNativeBody("zeta-2.5-flash-lite", thinking({ thinkingBudget: 100 }))).message).toContain(
      "0 (off) or 512 to 24576"
    )
    expect(failure(buildNativeBody("zeta-2.5-flash", thinking({ thinkingBudget: 30000 }))).message).toContain(
      "0 to 24576"
    )
    expect(failure(buildNativeBody("zeta-2.5-flash", thinking({ includeThoughts: "yes" }))).field).toBe(
      "generationConfig.thinkingConfig.includeThoughts"
    )
  })

  it("accepts thinkingLevel LOW or HIGH on the 3 class, in either case, sent upper case", () => {
    expect(
      success(buildNativeBody("zeta-3-pro-preview", thinking({ thinkingLevel: "low" }))).generationConfig
        ?.thinkingConfig
    ).toEqual({
      thinkingLevel: "LOW"
    })
    expect(
      success(buildNativeBody("zeta-3-pro-preview", thinking({ thinkingLevel: "HIGH" }))).generationConfig
        ?.thinkingConfig
    ).toEqual({
      thinkingLevel: "HIGH"
    })
    const e = failure(buildNativeBody("zeta-3-pro-preview", thinking({ thinkingLevel: "MEDIUM" })))
    expect(e.field).toBe("generationConfig.thinkingConfig.thinkingLevel")
    expect(e.message).toBe(
      'generationConfig.thinkingConfig.thinkingLevel: "MEDIUM" is not allowed for zeta-3-pro-preview; allowed: LOW, HIGH'
    )
  })

  it("refuses thinkingLevel on the 2.5 class; takes thinkingBudget alone on the 3 class (notes §2.6)", () => {
    const a = failure(buildNativeBody("zeta-2.5-pro", thinking({ thinkingLevel: "LOW" })))
    expect(a.field).toBe("generationConfig.thinkingConfig.thinkingLevel")
    expect(a.message).toContain("allowed: thinkingBudget")
    expect(
      success(buildNativeBody("zeta-3-pro-preview", thinking({ thinkingBudget: 1024 }))).generationConfig
        ?.thinkingConfig
    ).toEqual({ thinkingBudget: 1024 })
  })

  it("refuses a budget and a level together", () => {
    const e = failure(buildNativeBody("zeta-3-pro-preview", thinking({ thinkingBudget: 1024, thinkingLevel: "LOW" })))
    expect(e.field).toBe("generationConfig.thinkingConfig")
    expect(e.rule).toBe("exclusive")
  })

  it("accepts a thinkingConfig that agrees with the model suffix", () => {
    expect(
      success(buildNativeBody("zeta-2.5-pro-thinking-8192", thinking({ thinkingBudget: 8192, includeThoughts: true })))
        .generationConfig
    ).toBeDefined()
    expect(
      success(buildNativeBody("zeta-3-pro-preview-thinking-low", thinking({ thinkingLevel: "low" }))).generationConfig
    ).toBeDefined()
    expect(
      success(buildNativeBody("zeta-2.5-flash-thinking", thinking({ includeThoughts: true }))).generationConfig
    ).toBeDefined()
  })

  it("refuses a thinkingConfig that contradicts the model suffix", () => {
    const a = failure(buildNativeBody("zeta-2.5-pro-thinking-8192", thinking({ thinkingBudget: 1024 })))
    expect(a.field).toBe("generationConfig.thinkingConfig.thinkingBudget")
    expect(a.rule).toBe("contradiction")
    expect(a.message).toContain("allowed: 8192")
    expect(failure(buildNativeBody("zeta-3-pro-preview-thinking-low", thinking({ thinkingLevel: "HIGH" }))).rule).toBe(
      "contradiction"
    )
    expect(failure(buildNativeBody("zeta-2.5-flash-nothinking", thinking({ thinkingBudget: 1024 }))).rule).toBe(
      "contradiction"
    )
    expect(failure(buildNativeBody("zeta-2.5-flash-nothinking", thinking({ includeThoughts: true }))).rule).toBe(
      "contradiction"
    )
    expect(failure(buildNativeBody("zeta-2.5-flash-thinking", thinking({ thinkingBudget: 0 }))).rule).toBe(
      "contradiction"
    )
  })
})

describe("buildNativeBody: instructions, safety, tools, cache", () => {
  it("accepts systemInstruction parts of text and refuses others", () => {
    const systemInstruction = { parts: [{ text: "Be brief." }] }
    expect(success(buildNativeBody("zeta-2.5-pro", withField({ systemInstruction }))).systemInstruction).toEqual(
      systemInstruction
    )
    expect(failure(buildNativeBody("zeta-2.5-pro", withField({ systemInstruction: { parts: [{}] } }))).field).toBe(
      "systemInstruction.parts[0].text"
    )
    expect(failure(buildNativeBody("zeta-2.5-pro", withField({ systemInstruction: "Be brief." }))).field).toBe(
      "systemInstruction"
    )
  })

  it("accepts safetySettings of category and threshold and refuses an unknown threshold", () => {
    const safetySettings = [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "BLOCK_ONLY_HIGH" }]
    expect(success(buildNativeBody("zeta-2.5-pro", withField({ safetySettings }))).safetySettings).toEqual(
      safetySettings
    )
    const e = failure(
      buildNativeBody(
        "zeta-2.5-pro",
        withField({ safetySettings: [{ category: "HARM_CATEGORY_HARASSMENT", threshold: "LOW" }] })
      )
    )
    expect(e.field).toBe("safetySettings[0].threshold")
    expect(e.message).toContain("allowed: BLOCK_NONE")
    expect(failure(buildNativeBody("zeta-2.5-pro", withField({ safetySettings: [{ threshold: "OFF" }] }))).field).toBe(
      "safetySettings[0].category"
    )
  })

  const weather = {
    name: "get_weather",
    description: "Weather",
    parameters: { type: "OBJECT", properties: { city: { type: "STRING" } } }
  }

  it("accepts function declarations and vendorSearch as separate tools elements", () => {
    const tools = [{ functionDeclarations: [weather] }, { vendorSearch: {} }]
    expect(success(buildNativeBody("zeta-2.5-pro", withField({ tools }))).tools).toEqual(tools)
  })

  it("refuses vendorSearch mixed into the functionDeclarations element", () => {
    const e = failure(
      buildNativeBody("zeta-2.5-pro", withField({ tools: [{ functionDeclarations: [weather], vendorSearch: {} }] }))
    )
    expect(e.field).toBe("tools[0].vendorSearch")
    expect(e.message).toContain("must be its own tools element")
  })

  it("checks function declaration names and fields", () => {
    expect(
      failure(buildNativeBody("zeta-2.5-pro", withField({ tools: [{ functionDeclarations: [{ description: "x" }] }] })))
        .field
    ).toBe("tools[0].functionDeclarations[0].name")
    expect(
      failure(
        buildNativeBody("zeta-2.5-pro", withField({ tools: [{ functionDeclarations: [{ name: "get weather" }] }] }))
      ).field
    ).toBe("tools[0].functionDeclarations[0].name")
    expect(
      failure(buildNativeBody("zeta-2.5-pro", withField({ tools: [{ functionDeclarations: [weather, weather] }] })))
        .rule
    ).toBe("unique")
    expect(
      failure(
        buildNativeBody(
          "zeta-2.5-pro",
          withField({ tools: [{ functionDeclarations: [{ name: "f", parameters: "x" }] }] })
        )
      ).field
    ).toBe("tools[0].functionDeclarations[0].parameters")
  })

  it("accepts functionCallingConfig modes AUTO, ANY and NONE and refuses others", () => {
    for (const mode of ["AUTO", "ANY", "NONE"])
      expect(
        success(buildNativeBody("zeta-2.5-pro", withField({ toolConfig: { functionCallingConfig: { mode } } })))
          .toolConfig
      ).toEqual({
        functionCallingConfig: { mode }
      })
    const e = failure(
      buildNativeBody("zeta-2.5-pro", withField({ toolConfig: { functionCallingConfig: { mode: "REQUIRED" } } }))
    )
    expect(e.field).toBe("toolConfig.functionCallingConfig.mode")
    expect(e.message).toBe('toolConfig.functionCallingConfig.mode: "REQUIRED" is not allowed; allowed: AUTO, ANY, NONE')
  })

  it("accepts allowedFunctionNames of declared functions in ANY mode only", () => {
    const tools = [{ functionDeclarations: [weather] }]
    const ok = { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_weather"] } }
    expect(success(buildNativeBody("zeta-2.5-pro", withField({ tools, toolConfig: ok }))).toolConfig).toEqual(ok)
    const unknown = failure(
      buildNativeBody(
        "zeta-2.5-pro",
        withField({ tools, toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: ["get_time"] } } })
      )
    )
    expect(unknown.field).toBe("toolConfig.functionCallingConfig.allowedFunctionNames[0]")
    expect(unknown.message).toContain("allowed: get_weather")
    const auto = failure(
      buildNativeBody(
        "zeta-2.5-pro",
        withField({
          tools,
          toolConfig: { functionCallingConfig: { mode: "AUTO", allowedFunctionNames: ["get_weather"] } }
        })
      )
    )
    expect(auto.field).toBe("toolConfig.functionCallingConfig.allowedFunctionNames")
    expect(
      failure(
        buildNativeBody(
          "zeta-2.5-pro",
          withField({ toolConfig: { functionCallingConfig: { mode: "ANY", allowedFunctionNames: "f" } } })
        )
      ).field
    ).toBe("toolConfig.functionCallingConfig.allowedFunctionNames")
  })

  it("accepts cachedContent as a non-empty string", () => {
    expect(
      success(buildNativeBody("zeta-2.5-pro", withField({ cachedContent: "cachedContents/abc" }))).cachedContent
    ).toBe("cachedContents/abc")
    expect(failure(buildNativeBody("zeta-2.5-pro", withField({ cachedContent: 5 }))).field).toBe("cachedContent")
  })

  it("refuses unknown top-level fields and carries them in extra, leaving out unsafe keys", () => {
    const e = failure(
      buildNativeBody("zeta-2.5-pro", { contents: [{ role: "user", parts: [{ text: "x" }] }], generationConfg: {} })
    )
    expect(e).toMatchObject({ field: "generationConfg", rule: "unknown-field" })
    expect(e.message).toContain("did you mean `generationConfig`?")
    const input = JSON.parse(
      '{"contents":[{"role":"user","parts":[{"text":"x"}]}],"extra":{"labels":{"team":"a"},"__proto__":{"polluted":1}}}'
    )
    const body = success(buildNativeBody("zeta-2.5-pro", input)) as Record<string, unknown>
    expect(body.labels).toEqual({ team: "a" })
    expect(Object.hasOwn(body, "__proto__")).toBe(false)
  })
})
