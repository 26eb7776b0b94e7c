/**
 * The default `HttpClient` in browsers: @effect/platform's `FetchHttpClient` (what `#umg/http`
 * resolves to under the `browser` condition), so a page never pulls `node:http`.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import type * as HttpClient from "@effect/platform/HttpClient"
import type { Layer } from "effect"

/** The default client layer in browsers. @category layers */
export const defaultHttpClientLayer: Layer.Layer<HttpClient.HttpClient> = FetchHttpClient.layer
