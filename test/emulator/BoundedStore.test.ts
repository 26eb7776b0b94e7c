import { describe, expect, it } from "vitest"
import { BoundedStore } from "../../src/emulator/server/BoundedStore.js"

const ids = <V>(store: BoundedStore<V>, candidates: ReadonlyArray<string>): Array<string> =>
  candidates.filter((id) => store.has(id))

describe("BoundedStore (every emulator store that keeps what clients sent)", () => {
  it("drops the oldest beyond its entries bound", () => {
    const store = new BoundedStore<number>(3, Infinity)
    for (const [i, id] of ["a", "b", "c", "d", "e"].entries()) store.put(id, i, 0)
    expect(ids(store, ["a", "b", "c", "d", "e"])).toEqual(["c", "d", "e"])
    expect(store.size).toBe(3)
    expect(store.get("a")).toBeUndefined()
    expect(store.get("e")).toBe(4)
  })

  it("drops the oldest beyond its characters bound, and keeps one value larger than the bound alone", () => {
    const store = new BoundedStore<string>(100, 10)
    store.put("a", "aaaa", 4)
    store.put("b", "bbbb", 4)
    store.put("c", "cc", 2)
    expect(ids(store, ["a", "b", "c"])).toEqual(["a", "b", "c"])
    store.put("d", "d", 1)
    expect(ids(store, ["a", "b", "c", "d"])).toEqual(["b", "c", "d"])
    store.put("huge", "x".repeat(50), 50)
    expect(ids(store, ["b", "c", "d", "huge"])).toEqual(["huge"])
  })

  it("makes a value put again the newest, counting its characters once", () => {
    const store = new BoundedStore<number>(2, 10)
    store.put("a", 1, 5)
    store.put("b", 2, 5)
    store.put("a", 3, 5)
    store.put("c", 4, 5)
    expect(ids(store, ["a", "b", "c"])).toEqual(["a", "c"])
    expect(store.get("a")).toBe(3)
  })

  it("forgets a deleted value and its characters", () => {
    const store = new BoundedStore<number>(10, 10)
    store.put("a", 1, 8)
    expect(store.delete("a")).toBe(true)
    expect(store.delete("a")).toBe(false)
    store.put("b", 2, 8)
    store.put("c", 3, 2)
    expect(ids(store, ["a", "b", "c"])).toEqual(["b", "c"])
  })
})
