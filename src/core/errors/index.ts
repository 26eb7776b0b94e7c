/** Typed errors of the core: client-side validation failures (InvalidRequest) and the gateway error union. */
export * from "./GatewayError.js"
export * from "./InvalidRequest.js"
export * from "./Redact.js"
