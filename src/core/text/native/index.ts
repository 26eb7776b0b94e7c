/** Native-content text and images (zeta, E10): bodies, the response, stream chunks and their accumulator. */
export * from "./Native.js"
export * from "./NativeAccumulator.js"
export * from "./NativeResponse.js"
