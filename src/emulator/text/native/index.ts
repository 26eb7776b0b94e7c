/** Native-content text and images (zeta, E10), the server side. */
export * from "./Native.js"
export * from "./NativeRequest.js"
