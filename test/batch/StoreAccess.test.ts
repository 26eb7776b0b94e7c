/** A store's password is never shown: not in its description, not anywhere in a store error's message. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { BatchStoreError } from "../../src/batch/BatchError.js"
import { describeStore, passwordsOf, postgres, sqlite } from "../../src/batch/Settings.js"
import { readProgress, storeError } from "../../src/batch/StoreAccess.js"

// The password `S3cret@Pw`, its `@` not encoded: the URL parser and the driver end the user info
// at the last `@`, so the password is all of it.
const atUrl = "postgres://exp_user:S3cret@Pw@127.0.0.1:5432/exp_batch1"
const atShown = "postgres://exp_user:***@127.0.0.1:5432/exp_batch1"

describe("describeStore", () => {
  it.each([
    [atUrl, atShown],
    ["postgres://umg:s3cr3t-pw@db:5432/umg", "postgres://umg:***@db:5432/umg"],
    ["postgresql://u:p%40ss%3Aw@db/x", "postgresql://u:***@db/x"],
    ["postgres://u@db/x?password=hunter22&sslmode=disable", "postgres://u@db/x?password=***&sslmode=disable"],
    ["postgres://u@db/x", "postgres://u@db/x"],
    // Not a URL the parser takes (no host): the pattern hides what it can.
    ["postgres://u:pw@", "postgres://u:***@"]
  ])("shows %s as %s", (url, shown) => {
    expect(describeStore(postgres(url))).toBe(shown)
  })

  it("shows a SQLite store as its path", () => {
    expect(describeStore(sqlite("dir/b.db"))).toBe("dir/b.db")
  })
})

describe("passwordsOf", () => {
  it("holds the password as written, as the parser encodes it and decoded, and a password parameter", () => {
    expect(passwordsOf(atUrl)).toEqual(["S3cret@Pw", "S3cret%40Pw"])
    expect(passwordsOf("postgres://u:50%off@db/x?password=a%2Bb")).toEqual(["50%off", "a+b"])
    expect(passwordsOf("postgres://u@db/x")).toEqual([])
  })
})

describe("storeError", () => {
  it("hides the whole password in the store's name and in the driver's text, as written and encoded", () => {
    const driver = new Error(`connect to ${atUrl} failed (password S3cret%40Pw, that is S3cret@Pw)`)
    const error = storeError(postgres(atUrl))(driver)
    expect(error.message.startsWith(`batch store ${atShown}: `)).toBe(true)
    expect(error.message).not.toMatch(/S3cret|Pw/)
  })

  it("hides the password in the message of a store error made before", () => {
    const made = new BatchStoreError({ reason: "statement", message: "batch store: reading failed: bad S3cret@Pw" })
    const error = storeError(postgres(atUrl))(made)
    expect(error).toMatchObject({ _tag: "BatchStoreError", reason: "statement" })
    expect(error.message).toBe("batch store: reading failed: bad [redacted]")
    const clean = new BatchStoreError({ reason: "locked", message: "batch store x is in use" })
    expect(storeError(postgres(atUrl))(clean)).toBe(clean)
  })

  it.effect("an unreachable PostgreSQL store whose password holds an `@` is named without any of it", () =>
    Effect.gen(function* () {
      const url = "postgres://exp_user:S3cret@Pw@127.0.0.1:1/exp_batch1"
      const error = yield* Effect.flip(readProgress(postgres(url), "x"))
      expect(error._tag).toBe("BatchStoreError")
      expect(error.message.startsWith("batch store postgres://exp_user:***@127.0.0.1:1/exp_batch1: ")).toBe(true)
      expect(error.message).not.toMatch(/S3cret|Pw/)
    })
  )
})
