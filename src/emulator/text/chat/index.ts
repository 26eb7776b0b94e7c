/** OpenAI-style chat completions (E16), the server side. */
export * from "./OpenAiText.js"
