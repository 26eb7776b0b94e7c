/** The gateway as a whole: model routing, the model list (E11) in its three formats, and the retry policy. */
export * from "./Models.js"
export * as RetryPolicy from "./RetryPolicy.js"
export * from "./Routing.js"
