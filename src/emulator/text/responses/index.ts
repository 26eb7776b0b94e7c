/** OpenAI-style responses (E16), the server side. */
export * from "./Responses.js"
