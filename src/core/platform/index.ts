/** The platform-style endpoints (E4–E7): bodies and the response envelope. */
export * from "./Platform.js"
