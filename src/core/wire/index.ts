/** What travels on the wire whatever the capability: the SSE parser, JSON helpers, Base64 and each family's error envelope. */
export * as Base64 from "./Base64.js"
export * from "./ErrorEnvelope.js"
export * from "./Sse.js"
export * as WireJson from "./WireJson.js"
export * from "./JsonSafety.js"
