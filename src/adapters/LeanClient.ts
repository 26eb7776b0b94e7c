/**
 * The mark of umg's own HTTP clients (`NodeHttpClient`): they follow no redirect and make no span of
 * their own, so the transport can skip the settings the platform's clients need for that. A module of
 * its own so the transport can ask without importing `node:http` into a browser bundle.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import { FiberRef } from "effect"

const LeanClientTypeId: unique symbol = Symbol.for("umg/adapters/LeanClient")

/** Marks a client as one of umg's own. @category constructors */
export const mark = <C extends HttpClient.HttpClient>(client: C): C => Object.assign(client, { [LeanClientTypeId]: true })

/** Whether a client is one of umg's own. @category guards */
export const isLean = (client: HttpClient.HttpClient): boolean => (client as { [LeanClientTypeId]?: boolean })[LeanClientTypeId] === true

/**
 * A time limit umg's own clients enforce themselves: when it expires, every request sent under it is
 * destroyed, which fails the request (or the reading of its body) at once. `Deadline.timeoutFail`
 * uses it with a lean client instead of forking the limited effect into a fiber of its own.
 * @category models
 */
export class Expiry {
  private readonly cancels: Array<() => void> = []
  /** Whether the time limit has passed. */
  expired = false
  /** Calls `cancel` when the limit expires (at once when it already has). */
  onExpire(cancel: () => void): void {
    if (this.expired) cancel()
    else this.cancels.push(cancel)
  }
  /** Expires the limit, cancelling what was registered. */
  expire(): void {
    if (this.expired) return
    this.expired = true
    for (const cancel of this.cancels.splice(0)) cancel()
  }
}

/** The time limit the requests of the current fiber are sent under, if any. @category fiber refs */
export const currentExpiry: FiberRef.FiberRef<Expiry | undefined> = FiberRef.unsafeMake<Expiry | undefined>(undefined)
