import { spawn } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..")

describe("the foreground runner", () => {
  it("prints the URL, the key and the platform credentials, serves, and stops on SIGTERM", async () => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", join(root, "src/emulator/main.ts"), "--port", "0", "--fast"],
      { cwd: root }
    )
    try {
      let out = ""
      await new Promise<void>((resolve, reject) => {
        child.stdout.on("data", (c: Buffer) => {
          out += c.toString()
          if (out.includes("UMG_PLATFORM_PASSWORD=")) resolve()
        })
        child.once("exit", (code) => reject(new Error(`exited early with ${String(code)}: ${out}`)))
      })
      const url = /UMG_BASE_URL=(\S+)/.exec(out)![1]!
      const key = /UMG_API_KEY=(\S+)/.exec(out)![1]!
      expect(out).toMatch(/UMG_PLATFORM_USERNAME=\S+/)
      const res = await fetch(`${url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })
      expect(res.status).toBe(200)
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve))
      child.kill("SIGTERM")
      expect(await exited).toBe(0)
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL")
    }
  })
})
