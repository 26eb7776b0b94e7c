import { defaultClientConditions, defaultServerConditions } from "vite"
import { defineConfig } from "vitest/config"

// CI asks for a JSON report (UMG_VITEST_JSON) to print "N passed, N failed"; property tests draw
// from a fixed seed in CI (see test/setup/fast-check.ts).
const jsonReport = process.env.UMG_VITEST_JSON

export default defineConfig({
  // `umg-source` makes package.json `imports` (`#umg/socket`) resolve to the sources, as tsc does.
  resolve: { conditions: ["umg-source", ...defaultClientConditions] },
  ssr: { resolve: { conditions: ["umg-source", ...defaultServerConditions] } },
  test: {
    include: ["test/**/*.test.ts", "property-tests/**/*.prop.test.ts"],
    setupFiles: ["./test/setup/fast-check.ts"],
    // Every test must assert something: a test with no expect() fails instead of passing vacuously.
    expect: { requireAssertions: true },
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    reporters: jsonReport ? ["default", ["json", { outputFile: jsonReport }]] : ["default"]
  }
})
