/** Non-text media endpoints: embeddings (E12), rerank (E13), speech (E14) and images (E15). */
export * from "./Embeddings.js"
export * from "./Images.js"
export * from "./Rerank.js"
export * from "./Speech.js"
