/**
 * The mark of umg's own HTTP clients (`NodeHttpClient`): they follow no redirect and make no span of
 * their own, so the transport can skip the settings the platform's clients need for that. A module of
 * its own so the transport can ask without importing `node:http` into a browser bundle.
 */
import type * as HttpClient from "@effect/platform/HttpClient"

const LeanClientTypeId: unique symbol = Symbol.for("umg/adapters/LeanClient")

/** Marks a client as one of umg's own. @category constructors */
export const mark = <C extends HttpClient.HttpClient>(client: C): C => Object.assign(client, { [LeanClientTypeId]: true })

/** Whether a client is one of umg's own. @category guards */
export const isLean = (client: HttpClient.HttpClient): boolean => (client as { [LeanClientTypeId]?: boolean })[LeanClientTypeId] === true
