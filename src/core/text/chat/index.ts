/** OpenAI-style chat completions (E16): bodies, the response, stream chunks and their accumulator. */
export * from "./ChatAccumulator.js"
export * from "./ChatBody.js"
export * from "./ChatResponse.js"
