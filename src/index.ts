/**
 * `umg`: the Effect face of the Unified Model Gateway client — the `Gateway` service and its config —
 * and, re-exported, the pure core.
 */
export * from "./core/index.js"
export { Gateway, type GatewayService } from "./adapters/Gateway.js"
export * as GatewayConfig from "./adapters/GatewayConfig.js"
