import { APICallError, generateText } from "ai"
import { inspect } from "node:util"
import { afterAll, describe, expect, it } from "vitest"
import { createUmg } from "../../src/ai-sdk/index.js"
import { closeCountingServers, countingServer } from "../support/countingServer.js"
import { proxiedUmg } from "./CountingProxy.js"
import { textFamilies } from "./Families.js"

// An error answer through umg/ai-sdk is an APICallError with the answer's body and headers, as the
// official providers give them: the body redacted as umg's error messages are (a key the server
// echoes, plainly or JSON-escaped, is hidden), the headers without those that may carry a credential.
const env = proxiedUmg()
afterAll(() => closeCountingServers())

const failureOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e
  )

describe("an error answer's APICallError", () => {
  it.each(textFamilies)("($name) has the answer's body and headers, as the official provider's has", async (family) => {
    const wrong = createUmg({ baseURL: env.proxy.url, apiKey: "wrong-key" })
    const ours = await failureOf(generateText({ model: wrong(family.model), prompt: "Hi", maxRetries: 0 }))
    await wrong.dispose()
    const theirs = await failureOf(
      generateText({
        model: family.official(env.emu.url, "wrong-key"),
        prompt: "Hi",
        maxRetries: 0,
        maxOutputTokens: 64
      })
    )
    expect(APICallError.isInstance(ours) && APICallError.isInstance(theirs)).toBe(true)
    const [a, b] = [ours as APICallError, theirs as APICallError]
    // The same answer but for its request id.
    const body = (e: APICallError) => e.responseBody?.replace(/req_\w+/g, "req_")
    expect(body(a)).toBe(body(b))
    expect(a.responseHeaders?.["content-type"]).toBe(b.responseHeaders?.["content-type"])
    expect(a.responseHeaders).toMatchObject({ "content-type": expect.any(String) })
  })

  it("holds no key the server echoed, in its body, its headers or the error printed", async () => {
    const key = "umg-test-secret-7e1d"
    const escaped = `\\u0075${key.slice(1)}`
    const server = await countingServer((req, res) => {
      req.resume()
      req.on("end", () => {
        res.writeHead(400, {
          "content-type": "application/json",
          "set-cookie": `session=${key}`,
          "x-api-key": key,
          "x-echo": `Bearer ${key}`,
          "x-request-id": "req_echo"
        })
        res.end(`{"error":{"message":"bad key ${key} or \\"${escaped}\\"","type":"invalid_request_error"}}`)
      })
    })
    const umg = createUmg({ baseURL: server.url, apiKey: key, maxRetries: 0 })
    const failure = await failureOf(generateText({ model: umg("gpt-4o"), prompt: "Hi", maxRetries: 0 }))
    await umg.dispose()
    expect(APICallError.isInstance(failure)).toBe(true)
    const e = failure as APICallError
    expect(e.statusCode).toBe(400)
    expect(e.responseBody).toContain("bad key [redacted]")
    expect(JSON.parse(e.responseBody!)).toMatchObject({ error: { type: "invalid_request_error" } })
    expect(e.responseHeaders).toMatchObject({ "x-echo": "Bearer [redacted]", "x-request-id": "req_echo" })
    expect(Object.keys(e.responseHeaders!)).not.toContain("set-cookie")
    expect(Object.keys(e.responseHeaders!)).not.toContain("x-api-key")
    const printed = `${String(e)} ${JSON.stringify(e)} ${inspect(e, { depth: 8 })} ${e.responseBody} ${JSON.stringify(e.responseHeaders)}`
    expect(printed).not.toContain(key)
    expect(printed).not.toContain(key.slice(1))
  })

  it("is absent where no answer came (a refused connection)", async () => {
    const umg = createUmg({ baseURL: "http://127.0.0.1:9", apiKey: "k-1234", maxRetries: 0 })
    const failure = await failureOf(generateText({ model: umg("gpt-4o"), prompt: "Hi", maxRetries: 0 }))
    await umg.dispose()
    expect(APICallError.isInstance(failure)).toBe(true)
    expect([(failure as APICallError).responseBody, (failure as APICallError).responseHeaders]).toEqual([
      undefined,
      undefined
    ])
  })
})
