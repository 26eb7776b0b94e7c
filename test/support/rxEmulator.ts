/**
 * The emulator of an umg/rx test file, started once with a full key: each test starts with no fault
 * and no `UMG_LOG`, and the gateways it made are disposed after it (`UMG_LOG` put back).
 */
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { createGateway, type RxGateway, type RxGatewayConfig } from "../../src/streams/createGateway.js"

/** Registers the file's hooks; gives the emulator and a maker of gateways on it (with `key`, retries 10 ms apart). */
export const rxEmulator = (
  key: string
): {
  readonly emu: () => Emulator
  readonly gatewayWith: (over: Partial<RxGatewayConfig>) => RxGateway
} => {
  let started: Emulator | undefined
  const emu = (): Emulator => {
    if (started === undefined) throw new Error("the emulator is started in beforeAll")
    return started
  }
  const gateways: Array<RxGateway> = []
  let savedUmgLog: string | undefined
  beforeAll(async () => {
    started = await startEmulator({ fast: true, keys: { [key]: "full" } })
  })
  afterAll(async () => {
    await started?.close()
  })
  beforeEach(() => {
    emu().clearFaults()
    savedUmgLog = process.env.UMG_LOG
    delete process.env.UMG_LOG
  })
  afterEach(async () => {
    for (const gateway of gateways.splice(0)) await gateway.dispose()
    if (savedUmgLog === undefined) delete process.env.UMG_LOG
    else process.env.UMG_LOG = savedUmgLog
  })
  const gatewayWith = (over: Partial<RxGatewayConfig>): RxGateway => {
    const gateway = createGateway({ baseUrl: emu().url, apiKey: key, retryBaseDelayMs: 10, ...over })
    gateways.push(gateway)
    return gateway
  }
  return { emu, gatewayWith }
}
