/** Asynchronous video (E1–E3): submit rules per family, the task state machine and the MP4 served. */
export * from "./Mp4.js"
export * from "./Video.js"
export * from "./VideoDeltaRules.js"
export * from "./VideoRules.js"
export * from "./VideoTasks.js"
export * from "./sampleMp4.js"
