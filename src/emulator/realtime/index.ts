/** The realtime v1/v2 and live WebSocket endpoints. */
export * from "./Live.js"
export * from "./Realtime.js"
export * from "./RealtimeEvents.js"
