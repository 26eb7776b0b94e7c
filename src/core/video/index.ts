/** Asynchronous video (E1–E3): the catalog of video models, each family's body, delta marker flags, task records and the polling rule. */
export * from "./MarkerFlags.js"
export * from "./PollingRule.js"
export * from "./VideoBody.js"
export * from "./VideoCatalog.js"
export * from "./VideoTask.js"
