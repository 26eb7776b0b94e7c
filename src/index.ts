/**
 * `umg`: the Effect face of the Unified Model Gateway client. Re-exports the pure core.
 */
export * from "./core/index.js"
