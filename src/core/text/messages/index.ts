/** Messages-style text (epsilon, E8/E9): bodies, the response, stream events and their accumulator. */
export * from "./Messages.js"
export * from "./MessagesAccumulator.js"
export * from "./MessagesEvents.js"
export * from "./MessagesResponse.js"
