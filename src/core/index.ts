/**
 * `umg/core`: the pure core. Schemas, builders and validators of every body, the model catalog and
 * routing, the SSE parser, stream accumulators and typed errors. Imports `effect` only.
 * One folder per capability; each folder's index says what it holds.
 */
export * from "./errors/index.js"
export * from "./validation/index.js"
export * from "./wire/index.js"
export * from "./gateway/index.js"
export * from "./text/index.js"
export * from "./media/index.js"
export * from "./realtime/index.js"
export * from "./video/index.js"
export * from "./platform/index.js"
