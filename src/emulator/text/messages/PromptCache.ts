/**
 * Prompt-cache accounting of E8 on the emulator clock. The first request with a large enough cached
 * prefix writes it (`cache_creation_input_tokens`), an identical prefix within its lifetime reads it
 * (`cache_read_input_tokens`) and refreshes the lifetime. The store is bounded: past its bounds the
 * least recently used prefix is forgotten (and written again when next sent).
 */
import type { EmulatorContext } from "../../server/Context.js"
import { BoundedStore } from "../../server/BoundedStore.js"
import { cachePrefix } from "./MessageTokens.js"
import { hash32 } from "../TextGen.js"

/** The usage split a request gets from the cache. */
export interface CacheUsage {
  readonly creation: number
  readonly read: number
  readonly ttl: "5m" | "1h"
}

const LIFETIME_MS = { "5m": 5 * 60_000, "1h": 60 * 60_000 } as const

/** Minimum cacheable prefix: 2048 tokens for the smaller older (haiku 3 class) model, 1024 otherwise. */
export const minimumCacheTokens = (model: string): number => (/^epsilon-3(-5)?-haiku/.test(model) ? 2048 : 1024)

/** Prefixes kept per emulator (the contract shows no bound; upstream evicts too). */
export const MAX_PROMPT_CACHE_ENTRIES = 10_000
/** Characters of prefix keys kept per emulator (each key holds its prefix, at least ~4 KB). */
export const MAX_PROMPT_CACHE_CHARS = 32 * 1024 * 1024

// One store per emulator: cache entries (prefix key → expiry on the emulator clock), least recently used first.
const stores = new WeakMap<EmulatorContext, BoundedStore<number>>()

const storeOf = (ctx: EmulatorContext): BoundedStore<number> => {
  let s = stores.get(ctx)
  if (s === undefined) {
    s = new BoundedStore(MAX_PROMPT_CACHE_ENTRIES, MAX_PROMPT_CACHE_CHARS)
    stores.set(ctx, s)
  }
  return s
}

/** Accounts the cache for a messages body and updates the store. */
export const accountCache = (ctx: EmulatorContext, model: string, body: Record<string, unknown>): CacheUsage => {
  const prefix = cachePrefix(body)
  if (prefix === undefined || prefix.tokens < minimumCacheTokens(model)) return { creation: 0, read: 0, ttl: "5m" }
  const store = storeOf(ctx)
  // The full content is the key (exact match); the hash only keeps the map's keys short.
  const key = `${hash32(prefix.content)}:${prefix.content.length}:${prefix.content}`
  const now = ctx.clock.now()
  const expires = store.get(key)
  const lifetime = LIFETIME_MS[prefix.ttl]
  store.put(key, now + lifetime, key.length)
  if (expires !== undefined && expires > now) return { creation: 0, read: prefix.tokens, ttl: prefix.ttl }
  return { creation: prefix.tokens, read: 0, ttl: prefix.ttl }
}
