// URL passwords in outside text: hidden whole, wherever their `@`s are, and nothing after the URL taken.
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { redactText, redactUrlPasswords } from "../src/core/errors/Redact.js"

const chars = (alphabet: string, min = 0, max = 12) =>
  fc.array(fc.constantFrom(...alphabet), { minLength: min, maxLength: max }).map((a) => a.join(""))

const user = chars("abcdefghijklmnopqrstuvwxyz0123456789_.-", 1)
// What a password may hold unencoded in a URL the parser takes: `@` and `:` included (the user info
// ends at the last `@`), not the characters that end an authority or that no URL holds unencoded.
const password = chars("abcXYZ0189@:;=!$&'()*+,%~_-.[]|^{}\\", 1, 16)
const host = fc.oneof(
  chars("abcdefghijklmnopqrstuvwxyz0123456789-", 1).map((h) => `h${h}`),
  fc.constant("127.0.0.1"),
  fc.constant("[::1]")
)
const port = fc.option(fc.integer({ min: 1, max: 65_535 }), { nil: undefined })
const path = fc.option(chars("abcdefghijklmnopqrstuvwxyz0123456789_-/", 0), { nil: undefined })

const url = fc.record({
  scheme: fc.constantFrom("postgres", "postgresql", "redis", "http"),
  user,
  password,
  host,
  port,
  path
})
type Parts = typeof url extends fc.Arbitrary<infer A> ? A : never

const written = (u: Parts, pw: string): string =>
  `${u.scheme}://${u.user}:${pw}@${u.host}${u.port === undefined ? "" : `:${u.port}`}${u.path === undefined ? "" : `/${u.path}`}`

// Text around a URL, with no URL of its own: `@`, `:` and quotes welcome.
const around = chars("abc XYZ:;@.,'\"<>`\n", 0, 20).filter((t) => !t.includes("://"))
// What may follow a URL: it starts with a character that ends the authority.
const after = fc.tuple(fc.constantFrom(" ", "/", "?", "#", '"', ">", "`", "\n"), around).map(([a, b]) => a + b)

describe("redactUrlPasswords", () => {
  it("hides the whole password of a URL and keeps the rest exactly, whatever the password holds", () => {
    fc.assert(
      fc.property(url, (u) => {
        expect(redactUrlPasswords(written(u, u.password))).toBe(written(u, "***"))
      })
    )
  })

  it("reads a URL as the URL parser does: the same user, host, port and path, the password ***", () => {
    fc.assert(
      fc.property(url, (u) => {
        // In a special scheme (`http`) a backslash ends the authority, as `/` does: no password there.
        fc.pre(!(u.scheme === "http" && u.password.includes("\\")))
        const original = new URL(written(u, u.password))
        const redacted = new URL(redactUrlPasswords(written(u, u.password)))
        expect(redacted.password).toBe("***")
        expect([redacted.username, redacted.host, redacted.pathname]).toEqual([
          original.username,
          original.host,
          original.pathname
        ])
      })
    )
  })

  it("takes nothing before or after a URL in a text, even text with `@`s and quotes", () => {
    fc.assert(
      fc.property(around, url, after, (before, u, rest) => {
        const text = `${before} ${written(u, u.password)}${rest}`
        expect(redactUrlPasswords(text)).toBe(`${before} ${written(u, "***")}${rest}`)
      })
    )
  })

  it("changes nothing in a text without a URL, and nothing more when run again", () => {
    fc.assert(
      fc.property(around, url, after, (text, u, rest) => {
        expect(redactUrlPasswords(text)).toBe(text)
        const once = redactUrlPasswords(`${text} ${written(u, u.password)}${rest}`)
        expect(redactUrlPasswords(once)).toBe(once)
      })
    )
  })

  it("never shows a password of 4 characters or more that is also a configured secret", () => {
    fc.assert(
      fc.property(around, url, after, (before, u, rest) => {
        fc.pre(u.password.length >= 4)
        const out = redactText(`${before} ${written(u, u.password)}${rest}`, [u.password], Number.MAX_SAFE_INTEGER)
        expect(out).not.toContain(u.password)
      })
    )
  })
})
