/**
 * The error a Gateway call fails with (it must fail: a success rejects), with fast retries (2, 1–5 ms
 * apart) unless `settings` say otherwise, over `client` when given, else the layer's own client.
 */
import { Effect, Layer } from "effect"
import type { HttpClient } from "effect/http"
import { Gateway } from "../../src/adapters/Gateway.js"
import type { GatewayConfigInput } from "../../src/adapters/GatewayConfig.js"

/** Runs `call` under a Gateway of `settings` (over `client`, if given) and gives its error. */
export const gatewayFailure = <A, E>(
  call: Effect.Effect<A, E, Gateway>,
  settings: GatewayConfigInput,
  client?: Layer.Layer<HttpClient.HttpClient>
): Promise<E> => {
  const config = { maxRetries: 2, retryBaseDelayMs: 1, retryMaxDelayMs: 5, ...settings }
  const layer =
    client === undefined ? Gateway.layer(config) : Gateway.layerWithoutHttpClient(config).pipe(Layer.provide(client))
  return Effect.runPromise(Effect.flip(Effect.provide(call, layer)))
}
