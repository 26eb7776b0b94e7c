/**
 * A map bounded by entries and by characters, the oldest dropped first. Every emulator store that
 * keeps what clients sent (stored responses, conversations, the prompt cache, platform tokens and
 * images) is one, so a long-lived emulator stays bounded.
 */

/** Values by id in insertion (or last `put`) order; the oldest dropped beyond `maxEntries` or `maxChars`. */
export class BoundedStore<V> {
  private readonly entries = new Map<string, { readonly value: V; readonly chars: number }>()
  private chars = 0
  constructor(
    private readonly maxEntries: number,
    private readonly maxChars: number
  ) {}

  /** The value held under `id`. */
  get(id: string): V | undefined {
    return this.entries.get(id)?.value
  }

  /** Whether a value is held under `id`. */
  has(id: string): boolean {
    return this.entries.has(id)
  }

  /** Puts `value` of `chars` characters as the newest entry, then drops the oldest others beyond the bounds. */
  put(id: string, value: V, chars: number): void {
    this.delete(id)
    this.entries.set(id, { value, chars })
    this.chars += chars
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.chars <= this.maxChars) break
      if (oldest === id) break
      this.entries.delete(oldest)
      this.chars -= entry.chars
    }
  }

  /** Forgets `id`; false when it was not held. */
  delete(id: string): boolean {
    const entry = this.entries.get(id)
    if (entry === undefined) return false
    this.entries.delete(id)
    this.chars -= entry.chars
    return true
  }

  /** How many values are held. */
  get size(): number {
    return this.entries.size
  }
}
