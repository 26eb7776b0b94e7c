/** Typed errors of the core: client-side validation failures (InvalidRequest) and the gateway error union. Redaction (Redact.ts) is the transports' and stays internal. */
export * from "./GatewayError.js"
export * from "./InvalidRequest.js"
