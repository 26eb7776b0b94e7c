/**
 * A PostgreSQL server for the tests that need one, found or provisioned by the test itself, never
 * silently skipped: `UMG_TEST_POSTGRES_URL` when set; else the server these machines run on
 * 127.0.0.1:5432 (trust auth); else a throwaway one started from the local PostgreSQL binaries
 * (initdb and pg_ctl, on a free port, removed at exit); else an error saying what to install.
 * Each test gets a database of its own.
 */
import { PgClient } from "@effect/sql-pg"
import { Effect, Redacted } from "effect"
import { SqlClient } from "effect/sql"
import { execFileSync, spawnSync } from "node:child_process"
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir, userInfo } from "node:os"
import { join } from "node:path"

const defaultUrl = "postgres://postgres@127.0.0.1:5432/postgres"

/** Runs statements on a server with a short connect timeout; fails when it cannot connect. */
export const query = (
  url: string,
  ...statements: ReadonlyArray<string>
): Promise<ReadonlyArray<ReadonlyArray<unknown>>> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const out: Array<ReadonlyArray<unknown>> = []
      for (const statement of statements) out.push(yield* sql.unsafe(statement))
      return out
    }).pipe(
      Effect.provide(PgClient.layer({ url: Redacted.make(url), connectTimeout: "3 seconds", maxConnections: 1 })),
      Effect.timeout("10 seconds")
    )
  )

const reachable = async (url: string): Promise<boolean> => {
  try {
    await query(url, "SELECT 1")
    return true
  } catch {
    return false
  }
}

const binDirs = (): Array<string> => {
  const base = "/usr/lib/postgresql"
  const versions = existsSync(base) ? readdirSync(base).sort((a, b) => Number(b) - Number(a)) : []
  return versions.map((v) => join(base, v, "bin"))
}

const findBinary = (name: string): string | undefined => {
  for (const dir of binDirs()) if (existsSync(join(dir, name))) return join(dir, name)
  const which = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" })
  return which.status === 0 ? which.stdout.trim() : undefined
}

const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

/** Starts a throwaway server from the local binaries; as root it runs as the `postgres` user. */
const throwaway = async (): Promise<string | undefined> => {
  const initdb = findBinary("initdb")
  const pgCtl = findBinary("pg_ctl")
  if (initdb === undefined || pgCtl === undefined) return undefined
  const asRoot = userInfo().uid === 0
  const dir = mkdtempSync(join(tmpdir(), "umg-pg-"))
  chmodSync(dir, 0o777)
  const data = join(dir, "data")
  const run = (cmd: string, args: ReadonlyArray<string>) =>
    asRoot
      ? execFileSync("runuser", ["-u", "postgres", "--", cmd, ...args], { stdio: "ignore" })
      : execFileSync(cmd, args, { stdio: "ignore" })
  const port = await freePort()
  run(initdb, ["-D", data, "-A", "trust", "-U", "postgres"])
  run(pgCtl, [
    "-D",
    data,
    "-l",
    join(dir, "log"),
    "-w",
    "-o",
    `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
    "start"
  ])
  process.once("exit", () => {
    try {
      run(pgCtl, ["-D", data, "-m", "immediate", "stop"])
      rmSync(dir, { recursive: true, force: true })
    } catch {
      // the machine is going away anyway
    }
  })
  return `postgres://postgres@127.0.0.1:${port}/postgres`
}

let server: Promise<string> | undefined

/** The server's URL (a database that may create databases). Throws saying what to provide. */
export const postgresServer = (): Promise<string> =>
  (server ??= (async () => {
    const given = process.env.UMG_TEST_POSTGRES_URL
    if (given !== undefined && given !== "") {
      if (await reachable(given)) return given
      throw new Error(
        `UMG_TEST_POSTGRES_URL is set but no PostgreSQL answers there; fix it or unset it to use ${defaultUrl}`
      )
    }
    if (process.env.UMG_TEST_POSTGRES !== "throwaway" && (await reachable(defaultUrl))) return defaultUrl
    const started = await throwaway().catch(() => undefined)
    if (started !== undefined && (await reachable(started))) return started
    throw new Error(
      "these tests need PostgreSQL: set UMG_TEST_POSTGRES_URL=postgres://user@host:port/db, run one on 127.0.0.1:5432 with trust auth, or install the server binaries (Debian: apt-get install postgresql) so a throwaway one can be started"
    )
  })())

/** A new, empty database on the server, and how to drop it. */
export const freshDatabase = async (): Promise<{ readonly url: string; readonly drop: () => Promise<void> }> => {
  const base = await postgresServer()
  const name = `umg_test_${process.pid}_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`
  await query(base, `CREATE DATABASE ${name}`)
  const url = new URL(base)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      await query(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined)
    }
  }
}
