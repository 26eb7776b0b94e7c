/** The gateway as a whole: the one model catalog, routing by it, the model list (E11) in its three formats, and the retry policy. */
export * from "./Catalog.js"
export * from "./Models.js"
export * as RetryPolicy from "./RetryPolicy.js"
export * from "./Routing.js"
