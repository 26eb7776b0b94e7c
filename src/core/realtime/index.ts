/** The WebSocket sessions: realtime v1/v2 events and the live setup and messages. */
export * from "./Live.js"
export * from "./Realtime.js"
