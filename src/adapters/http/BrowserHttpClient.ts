/**
 * The default `HttpClient` in browsers: `effect/http`'s `FetchHttpClient` (what `#umg/http` resolves
 * to under the `browser` condition), so a page never pulls `node:http`. The transport asks it not to
 * follow redirects itself (`FetchHttpClient.RequestInit`), whichever client runs.
 */
import type { Layer } from "effect"
import type { HttpClient } from "effect/http"
import * as FetchHttpClient from "effect/http/FetchHttpClient"
import { checkSetting, type ProxySetting } from "./ProxySetting.js"

/** The default client layer in browsers. @category layers */
export const defaultHttpClientLayer: Layer.Layer<HttpClient.HttpClient> = FetchHttpClient.layer

/**
 * The default client with a proxy setting: a browser takes only `false` (it goes through its own
 * proxy settings); `GatewayConfig.make` has refused any other already, and this refuses it again.
 * @category layers
 */
export const defaultHttpClientLayerWith = (proxy: ProxySetting): Layer.Layer<HttpClient.HttpClient> => {
  checkSetting(proxy, null)
  return FetchHttpClient.layer
}
