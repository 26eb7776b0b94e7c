/**
 * Foreground runner of the emulator (`npm run emulator -- --port 8787 --fast`): prints its address,
 * demo key and platform credentials, and stops on SIGINT/SIGTERM. `--rate-limit-headers` turns on
 * the rate-limit headers (RateLimit.ts).
 */
import { startEmulator } from "./index.js"

const args = process.argv.slice(2)
const flag = (name: string): boolean => args.includes(`--${name}`)
const value = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`)
  return i >= 0 ? args[i + 1] : undefined
}

const port = Number(value("port") ?? "8787")
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`invalid --port ${String(value("port"))}`)
  process.exit(2)
}

const emulator = await startEmulator({
  port,
  host: value("host") ?? "127.0.0.1",
  fast: flag("fast"),
  rateLimitHeaders: flag("rate-limit-headers")
})
// As `umg emulator` prints it: lines a shell can paste.
console.log(`umg emulator listening on ${emulator.url}${flag("fast") ? " (fast timings)" : ""}`)
console.log(`  export UMG_BASE_URL=${emulator.url}`)
console.log(`  export UMG_API_KEY=${emulator.apiKey}`)
if (emulator.restrictedKey !== undefined) console.log(`  restricted key: ${emulator.restrictedKey}`)
console.log(`  export UMG_PLATFORM_URL=${emulator.platformUrl}`)
console.log(`  export UMG_PLATFORM_USERNAME=${emulator.platform.username}`)
console.log(`  export UMG_PLATFORM_PASSWORD=${emulator.platform.password}`)

const stop = (): void => {
  void emulator.close().then(() => process.exit(0))
}
process.once("SIGINT", stop)
process.once("SIGTERM", stop)
