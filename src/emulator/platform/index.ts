/** The platform-style endpoints (E4–E7): token, submits and envelopes. */
export * from "./Platform.js"
