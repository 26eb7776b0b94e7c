/** OpenAI-style responses (E16): the response, stream events and their accumulator. */
export * from "./ResponsesAccumulator.js"
export * from "./ResponsesBody.js"
export * from "./ResponsesResponse.js"
