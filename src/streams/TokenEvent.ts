/** The token-stream event union and its family, re-exported from the core for the cross-family operators. */
export { type TokenEvent, type TokenFamily, tokenFamilyOf } from "../core/text/TokenEvent.js"
