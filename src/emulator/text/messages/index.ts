/** Messages-style text (epsilon, E8/E9): validation, token counting, prompt caching and replies. */
export * from "./CountTokens.js"
export * from "./MessageTokens.js"
export * from "./Messages.js"
export * from "./MessagesValidation.js"
export * from "./PromptCache.js"
