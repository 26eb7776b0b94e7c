// Which transport failures prove the request never left (`connect`: even a paid submit may be sent
// again) and which leave open that the gateway got it (`reset`), read from the errors Node gives:
// `ETIMEDOUT` says "never connected" only when `connect(2)` gave it.
import { describe, expect, it } from "vitest"
import * as HttpProxy from "../../src/adapters/http/HttpProxy.js"
import { ProxyFailure } from "../../src/adapters/http/ProxyFailure.js"
import { classifyTransport } from "../../src/adapters/http/TransportFailure.js"

/** An error as Node's `net` gives it: a code and the system call that failed. */
const systemError = (code: string, syscall: string): Error =>
  Object.assign(new Error(`${syscall} ${code}`), { code, syscall, errno: -110 })

describe("classifyTransport", () => {
  it("takes a connect(2) that timed out as never connected, and a read that timed out as maybe sent", () => {
    expect(classifyTransport(systemError("ETIMEDOUT", "connect"))).toBe("connect")
    expect(classifyTransport(systemError("ETIMEDOUT", "read"))).toBe("reset")
    expect(classifyTransport(systemError("ETIMEDOUT", "write"))).toBe("reset")
    // In a cause chain, as an HTTP client wraps it; and beside a code that proves nothing.
    expect(classifyTransport(new Error("fetch failed", { cause: systemError("ETIMEDOUT", "connect") }))).toBe("connect")
    expect(
      classifyTransport(
        new AggregateError([systemError("ETIMEDOUT", "connect"), systemError("ECONNRESET", "read")], "both")
      )
    ).toBe("reset")
  })

  it("takes a proxy that could not be reached in time as never connected, and one timed out later as maybe sent", () => {
    const plan = HttpProxy.planFor("http://127.0.0.1:9", "http:")
    const url = new URL("http://gateway.example.com/v1/models")
    const notReached = HttpProxy.failureOf(plan, url, systemError("ETIMEDOUT", "connect"))
    expect(notReached).toBeInstanceOf(ProxyFailure)
    expect(notReached).toMatchObject({ problem: "unreachable" })
    expect(classifyTransport(notReached)).toBe("connect")
    const lost = HttpProxy.failureOf(plan, url, systemError("ETIMEDOUT", "read"))
    expect(lost).toMatchObject({ problem: "lost" })
    expect(classifyTransport(lost)).toBe("reset")
  })
})
