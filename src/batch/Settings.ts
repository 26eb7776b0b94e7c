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

/** A store for messages: the SQLite path, or the URL without its password. @category getters */
export const describeStore = (store: StoreConfig): string =>
  store._tag === "sqlite" ? store.path : redactUrlPasswords(store.url)
