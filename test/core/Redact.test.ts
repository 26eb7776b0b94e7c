// The one redaction of outside text: configured secrets, URL passwords, the length bound.
import { describe, expect, it } from "vitest"
import { AuthenticationError } from "../../src/core/errors/GatewayError.js"
import { maxOutsideTextChars, redactError, redactText, redactUrlPasswords } from "../../src/core/errors/Redact.js"

describe("redactUrlPasswords", () => {
  it.each([
    ["postgres://umg:s3cr3t-pw@127.0.0.1:1/umg", "postgres://umg:***@127.0.0.1:1/umg"],
    ["connect to postgresql://u:p%40ss@db:5432/x failed", "connect to postgresql://u:***@db:5432/x failed"],
    ["a http://a:b@h/ and redis://:pw@cache:6379", "a http://a:***@h/ and redis://:***@cache:6379"],
    ["postgres://umg@db/umg", "postgres://umg@db/umg"],
    ["https://gw.test:8443/v1/chat?x=a:b@c", "https://gw.test:8443/v1/chat?x=a:b@c"],
    ["no url at all: a:b@c", "no url at all: a:b@c"]
  ])("%s", (text, expected) => {
    expect(redactUrlPasswords(text)).toBe(expected)
  })

  // The URL parser (and the PostgreSQL driver, which uses it) ends the user info at the last `@`
  // before the host: so does the redaction, or the password's tail is shown.
  it.each([
    ["postgres://exp_user:S3cret@Pw@127.0.0.1:5432/exp_batch1", "postgres://exp_user:***@127.0.0.1:5432/exp_batch1"],
    ["postgres://u:a@b@c@db", "postgres://u:***@db"],
    ["postgres://u:it's@x@db/y", "postgres://u:***@db/y"],
    ["postgres://me@corp:pw@db/y", "postgres://me@corp:***@db/y"],
    ["… url postgres://u:p@h/db failed; mail me@x.y", "… url postgres://u:***@h/db failed; mail me@x.y"],
    ["url postgres://u:p@h failed; mail me@x.y", "url postgres://u:***@h failed; mail me@x.y"],
    ['{"url":"postgres://u:p@h","mail":"me@x.y"}', '{"url":"postgres://u:***@h","mail":"me@x.y"}'],
    ["<postgres://u:p@h>, <me@x.y>", "<postgres://u:***@h>, <me@x.y>"],
    ["`postgres://u:p@h` `me@x.y`", "`postgres://u:***@h` `me@x.y`"],
    ["postgres://u:p@h?x=a@b#c@d", "postgres://u:***@h?x=a@b#c@d"],
    ["postgres://u:p@h#x@y", "postgres://u:***@h#x@y"],
    ["postgres://u:p@h\nnext me@x.y", "postgres://u:***@h\nnext me@x.y"],
    ["https://gw.test:8443 and me@x.y", "https://gw.test:8443 and me@x.y"]
  ])("hides the whole password of %s", (text, expected) => {
    expect(redactUrlPasswords(text)).toBe(expected)
  })
})

describe("redactText", () => {
  it.each([
    [
      "every occurrence of a secret",
      "key sk-abcdef, again sk-abcdef",
      ["sk-abcdef"],
      "key [redacted], again [redacted]"
    ],
    ["several secrets", "user pw-12345 token tok-6789", ["pw-12345", "tok-6789"], "user [redacted] token [redacted]"],
    ["not a secret shorter than 4 characters", "a b c", ["b"], "a b c"],
    [
      "a URL's password, configured or not",
      "postgres://umg:pw-12345@db/x and http://u:other@h",
      ["pw-12345"],
      "postgres://umg:***@db/x and http://u:***@h"
    ]
  ] as const)("hides %s", (_, text, secrets, expected) => {
    expect(redactText(text, secrets)).toBe(expected)
  })

  it("redacts before cutting, so a secret across the cut is never half-shown", () => {
    const text = `${"x".repeat(8)}sk-secret-value`
    expect(redactText(text, ["sk-secret-value"], 12)).toBe(`${"x".repeat(8)}[red…`)
    expect(redactText("y".repeat(maxOutsideTextChars + 10), [])).toBe(`${"y".repeat(maxOutsideTextChars)}…`)
  })
})

describe("redactError", () => {
  it("takes secrets out of every text field and the stack, keeping the class; the same object when none is held", () => {
    const key = "sk-secret-value"
    const error = new AuthenticationError({
      family: "openai",
      status: 401,
      message: `bad Bearer ${key}`,
      requestId: `req-${key}`
    })
    const safe = redactError(error, [key])
    expect(safe).toBeInstanceOf(AuthenticationError)
    expect(safe).not.toBe(error)
    expect(safe).toMatchObject({ _tag: "AuthenticationError", status: 401, message: "bad Bearer [redacted]" })
    expect(safe.requestId).toBe("req-[redacted]")
    expect(`${String(safe)} ${safe.stack ?? ""} ${JSON.stringify(safe)}`).not.toContain(key)
    expect(redactError(error, ["other-secret"])).toBe(error)
    expect(redactError("text", [key])).toBe("text")
  })
})
