/** Text generation in four families, the server side: deterministic reply text and each family's endpoint. */
export * from "./TextGen.js"
export * from "./chat/index.js"
export * from "./messages/index.js"
export * from "./native/index.js"
export * from "./responses/index.js"
