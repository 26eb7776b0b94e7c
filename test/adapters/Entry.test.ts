import { describe, expect, it } from "vitest"
import * as umg from "../../src/index.js"

describe("the umg entry point", () => {
  it("exports the Gateway with its layers, the config and the core", () => {
    expect(umg.Gateway.key).toBe("umg/Gateway")
    expect(typeof umg.Gateway.layer).toBe("function")
    expect(umg.Gateway.layerFromEnv).toBeDefined()
    expect(typeof umg.GatewayConfig.make).toBe("function")
    expect(typeof umg.RetryPolicy.decide).toBe("function")
    expect(typeof umg.AuthenticationError).toBe("function")
  })
})
