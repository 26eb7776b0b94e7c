/** Embeddings (E12), rerank (E13), speech (E14) and images (E15), with real audio and PNG bytes. */
export * from "./Audio.js"
export * from "./Embeddings.js"
export * from "./Images.js"
export * from "./Pcm.js"
export * from "./Png.js"
export * from "./Rerank.js"
export * from "./Speech.js"
export * from "./samplePng.js"
