// Finds the Chromium the browser test drives — `CHROME_PATH`, then the usual install paths — and, on
// Debian as root, installs the distribution's `chromium` package (scripts/ensure-chromium.sh) when
// none is there, so `npm test` passes on a fresh machine by itself. Anywhere else it fails saying
// exactly what to install: never a silent skip.
import { spawnSync } from "node:child_process"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"

const candidates = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
  "/snap/bin/chromium"
]

const found = (): string | undefined => {
  const fromEnv = process.env.CHROME_PATH
  if (fromEnv !== undefined && fromEnv !== "") {
    if (!existsSync(fromEnv))
      throw new Error(`CHROME_PATH=${fromEnv} does not exist; point it at a Chromium or Chrome binary, or unset it`)
    return fromEnv
  }
  return candidates.find((p) => existsSync(p))
}

const isDebianRoot = (): boolean =>
  existsSync("/etc/debian_version") && existsSync("/usr/bin/apt-get") && process.getuid?.() === 0

/** The path of a Chromium to drive, installing Debian's package first when that is possible. */
export const findOrInstallChromium = (): string => {
  const path = found()
  if (path !== undefined) return path
  if (isDebianRoot()) {
    const script = fileURLToPath(new URL("../../scripts/ensure-chromium.sh", import.meta.url))
    const run = spawnSync("bash", [script], { encoding: "utf8", timeout: 600_000 })
    const after = found()
    if (after !== undefined) return after
    // `stderr` is `undefined` when bash cannot be started, which the type leaves out.
    const stderr = run.stderr as string | undefined
    throw new Error(`installing Debian's chromium failed (exit ${run.status}): ${(stderr ?? "").slice(-500)}`)
  }
  throw new Error(
    "the browser test needs Chromium: install it (Debian/Ubuntu: `apt-get install chromium`; macOS: Google Chrome) or set CHROME_PATH to a Chromium or Chrome binary"
  )
}
