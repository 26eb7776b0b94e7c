/** `GatewayDisposed`: what a subscriber of umg/rx gets when the gateway is disposed under it, and what calls made afterwards fail with. */
import * as Data from "effect/Data"

/**
 * The Rx gateway was disposed: its calls in flight were interrupted (their connections and sockets
 * released) and calls made afterwards fail with this at once.
 * @category errors
 */
export class GatewayDisposed extends Data.TaggedError("GatewayDisposed")<{ readonly message: string }> {}
