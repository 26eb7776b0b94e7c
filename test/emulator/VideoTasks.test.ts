import { describe, expect, it } from "vitest"
import { makeContext } from "../../src/emulator/server/Context.js"
import { VideoTaskStore, violatesContentRule } from "../../src/emulator/video/VideoTasks.js"

describe("VideoTaskStore", () => {
  it("computes each state from the clock alone, at the exact boundaries", () => {
    const ctx = makeContext({ virtualClock: true, video: { queuedMs: 10, inProgressMs: 20 } })
    const store = new VideoTaskStore(ctx)
    const ok = store.submit("k", "alpha-2", "alpha", "a cat")
    const bad = store.submit("k", "alpha-2", "alpha", "Violence!")
    const seen: Array<string> = []
    for (let t = 0; t <= 31; t++) {
      seen.push(`${t}:${store.status(ok)}/${store.status(bad)}`)
      ctx.clock.advance(1)
    }
    expect(seen[9]).toBe("9:queued/queued")
    expect(seen[10]).toBe("10:in_progress/in_progress")
    expect(seen[29]).toBe("29:in_progress/in_progress")
    expect(seen[30]).toBe("30:succeeded/failed")
  })

  it("finds a task only for the key that created it", () => {
    const store = new VideoTaskStore(makeContext())
    const t = store.submit("owner", "alpha-2", "alpha", "x")
    expect(store.find(t.id, "owner")).toBe(t)
    expect(store.find(t.id, "other")).toBeUndefined()
    expect(store.find(t.id, undefined)).toBe(t)
  })

  it("forgets the oldest task beyond its bound", () => {
    const store = new VideoTaskStore(makeContext(), 3)
    const ids = Array.from({ length: 4 }, (_, i) => store.submit("k", "alpha-2", "alpha", `p${i}`).id)
    expect(store.size).toBe(3)
    expect(store.find(ids[0]!, "k")).toBeUndefined()
    expect(store.find(ids[3]!, "k")).toBeDefined()
  })
})

describe("the content rule", () => {
  it("rejects the marker words as whole words in any case, and nothing else", () => {
    for (const p of ["inappropriate", "An INAPPROPRIATE scene", "violence.", "a violent storm"])
      expect(violatesContentRule(p), p).toBe(true)
    for (const p of ["a calm lake", "nonviolence", "violences", ""]) expect(violatesContentRule(p), p).toBe(false)
  })
})
