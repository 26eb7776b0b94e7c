/** Text generation in four families: messages (epsilon), chat, responses and native content (zeta), with their stream events and pure accumulators. */
export type { Accumulator, Folder, Step } from "./Accumulator.js"
export * from "./TokenEvent.js"
export * from "./chat/index.js"
export * from "./messages/index.js"
export * from "./native/index.js"
export * from "./responses/index.js"
