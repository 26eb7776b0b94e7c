/**
 * The pages whose TypeScript samples are documentation, and so are compiled and run by the suite:
 * the README and every markdown page of `docs/`, each with its path from the package root.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..")

/** One documentation page: its path from the package root (`README.md`, `docs/examples.md`) and its text. */
export interface Document {
  readonly path: string
  readonly markdown: string
}

/** The README, then the pages of `docs/` in name order. */
export const documents = (): Array<Document> => {
  const docs = join(root, "docs")
  const pages = existsSync(docs)
    ? readdirSync(docs)
        .filter((name) => name.endsWith(".md"))
        .sort()
        .map((name) => `docs/${name}`)
    : []
  return ["README.md", ...pages].map((path) => ({ path, markdown: readFileSync(join(root, path), "utf8") }))
}
