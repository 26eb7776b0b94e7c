/**
 * `umg/core`: the pure core. Schemas, builders and validators of every body, the model catalog and
 * routing, the SSE parser, stream accumulators and typed errors. Imports `effect` only.
 */
export * from "./InvalidRequest.js"
export * from "./GatewayError.js"
export * as Rules from "./Rules.js"
