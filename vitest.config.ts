import { availableParallelism } from "node:os"
import { defaultClientConditions, defaultServerConditions } from "vite"
import { defineConfig } from "vitest/config"

// CI asks for a JSON report (UMG_VITEST_JSON) to print "N passed, N failed"; property tests draw
// from a fixed seed in CI (see test/setup/fast-check.ts).
const jsonReport = process.env.UMG_VITEST_JSON

// Files that start processes (the CLI, batches killed mid-run, Chromium, the install, the samples) or
// measure this process's memory run each in a fresh worker; the rest share workers, which spares a
// worker start and a fresh import of `effect` and the sources per file (about a fifth of the suite's time).
const isolated = [
  "test/cli/**/*.test.ts",
  "test/batch/**/*.test.ts",
  "test/browser/**/*.test.ts",
  "test/install/**/*.test.ts",
  "test/readme/**/*.test.ts",
  "test/emulator/Main.test.ts",
  "test/emulator/HostileClients.test.ts",
  "test/core/JsonScan.test.ts",
  "test/adapters/HostileHttp.test.ts"
]
const all = ["test/**/*.test.ts", "property-tests/**/*.prop.test.ts"]

export default defineConfig({
  // `umg-source` makes package.json `imports` (`#umg/socket`) resolve to the sources, as tsc does.
  resolve: { conditions: ["umg-source", ...defaultClientConditions] },
  ssr: { resolve: { conditions: ["umg-source", ...defaultServerConditions] } },
  test: {
    setupFiles: ["./test/setup/fast-check.ts"],
    // Every test must assert something: a test with no expect() fails instead of passing vacuously.
    expect: { requireAssertions: true },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Vitest's default is one worker fewer than the cores: one worker on a 2-core CI machine. Most files
    // wait on processes, sockets and timers rather than the CPU, so one worker per core (two at least)
    // ran the suite in 653 s against 885 s with one, on the same 2-core machine.
    maxWorkers: Math.max(2, availableParallelism()),
    reporters: jsonReport ? ["default", ["json", { outputFile: jsonReport }]] : ["default"],
    projects: [
      { extends: true, test: { name: "shared", include: all, exclude: isolated, isolate: false } },
      { extends: true, test: { name: "isolated", include: isolated, isolate: true } }
    ]
  }
})
