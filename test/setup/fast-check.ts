import fc from "fast-check"

// A fixed seed in CI (override with FC_SEED) makes every property run reproducible.
const seed = process.env.FC_SEED !== undefined ? Number(process.env.FC_SEED) : process.env.CI ? 20261121 : undefined
fc.configureGlobal({ ...(seed !== undefined ? { seed } : {}), numRuns: Number(process.env.FC_RUNS ?? 200) })
