/**
 * `umg/ai-sdk`: umg as a Vercel AI SDK provider. `createUmg({ baseURL, apiKey })` gives language
 * models for every text family umg routes to, and embedding, image, speech and reranking models.
 * Requires `@ai-sdk/provider` (a peer dependency of this entry point only).
 */
export { createUmg, gatewayBaseUrl, type UmgProvider, type UmgProviderSettings } from "./UmgProvider.js"
export { providerKey } from "./Prompt.js"
export { toSdkError, type CallSite } from "./Errors.js"
