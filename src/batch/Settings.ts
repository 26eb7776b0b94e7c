/**
 * Where batches are kept and the defaults of a run: the store configurations, the default SQLite
 * file and how many tasks a process follows at once. Light on purpose: the `umg batch` command tree
 * reads these without loading the batch engine.
 */
import { redactUrlPasswords } from "../core/errors/Redact.js"

/** Where batches are kept. @category models */
export type StoreConfig =
  | { readonly _tag: "sqlite"; readonly path: string }
  | {
      readonly _tag: "postgres"
      readonly url: string
      /** How other runners reach this one (default `localhost` and a free port). */
      readonly runnerHost?: string
      readonly runnerPort?: number
      /** The address to listen on, when it differs from `runnerHost` (e.g. `0.0.0.0`). */
      readonly listenHost?: string
    }

/** The default SQLite file, under the current folder. @category constants */
export const defaultSqlitePath = ".umg/batches.db"

/** Tasks one process follows at once, over all its batches, unless told otherwise. @category constants */
export const defaultMaxFollowed = 10_000

/** The most tasks one process may be asked to follow at once (`umg batch video --max-followed`). @category constants */
export const maxFollowedLimit = 100_000

/** A SQLite file (default `.umg/batches.db`): one process, embedded, nothing to install. @category constructors */
export const sqlite = (path: string = defaultSqlitePath): StoreConfig => ({ _tag: "sqlite", path })

/** A PostgreSQL database (`postgres://…`): several processes or machines share the work. @category constructors */
export const postgres = (
  url: string,
  runner: { readonly runnerHost?: string; readonly runnerPort?: number; readonly listenHost?: string } = {}
): StoreConfig => ({
  _tag: "postgres",
  url,
  ...runner
})

/** A store from a command-line value: a `postgres://` URL or a SQLite path. @category constructors */
export const storeOf = (value: string): StoreConfig =>
  /^postgres(ql)?:\/\//i.test(value) ? postgres(value) : sqlite(value)

/** `value` with each run of valid percent-escapes decoded; an invalid one (`50%off`) is kept as it is. */
const decoded = (value: string): string =>
  value.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run)
    } catch {
      return run
    }
  })

/** The password as written in `url`: the user info runs to the last `@` before the host, the password from its first `:`. */
const writtenPassword = (url: string): string => {
  const start = url.indexOf("://")
  if (start === -1) return ""
  const authority = url.slice(start + 3).split(/[/?#]/, 1)[0] ?? ""
  const userInfo = authority.slice(0, Math.max(0, authority.lastIndexOf("@")))
  const colon = userInfo.indexOf(":")
  return colon === -1 ? "" : userInfo.slice(colon + 1)
}

/**
 * The passwords a PostgreSQL URL holds, as the driver reads it (the user info up to the last `@`
 * before the host, or a `password` parameter): each as written, as the URL parser encodes it and
 * percent-decoded, since a driver's message may echo any of them.
 * @category getters
 */
export const passwordsOf = (url: string): ReadonlyArray<string> => {
  let parsed: URL | undefined
  try {
    parsed = new URL(url)
  } catch {
    parsed = undefined
  }
  const found = [writtenPassword(url), parsed?.password ?? "", ...(parsed?.searchParams.getAll("password") ?? [])]
  return [...new Set(found.flatMap((p) => [p, decoded(p)]))].filter((p) => p !== "")
}

/** The URL with its password (and any `password` parameter) replaced by `***`, read as the driver reads it. */
const withoutPasswords = (url: string): string => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return redactUrlPasswords(url)
  }
  const hidden = parsed.password !== "" || parsed.searchParams.has("password")
  if (!hidden) return url
  if (parsed.password !== "") parsed.password = "***"
  if (parsed.searchParams.has("password")) parsed.searchParams.set("password", "***")
  return parsed.href
}

/**
 * A store for messages: the SQLite path, or the URL without its password — the whole password, as
 * the driver splits the URL, even one holding an unencoded `@`.
 * @category getters
 */
export const describeStore = (store: StoreConfig): string =>
  store._tag === "sqlite" ? store.path : withoutPasswords(store.url)
