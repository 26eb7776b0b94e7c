/** The emulator's HTTP and WebSocket server: routing, the request context, auth, replies, error envelopes per family and fault injection. */
export * from "./Auth.js"
export * from "./Context.js"
export * from "./Family.js"
export * from "./Respond.js"
export * from "./Route.js"
export * from "./Router.js"
export * from "./Server.js"
export * from "./WsSender.js"
