// One validation path: the builders of the media, platform, realtime/live and video families check a
// body through its Schema (`conform`), never through the validators of the older Rules DSL. The
// sources are parsed with the TypeScript compiler: a named or namespaced use of one of those
// validators in these folders fails this test. Rules.ts keeps what every path shares (`describe`,
// `fail`, `notAllowed`, the copying of untrusted values).
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { describe, expect, it } from "vitest"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..")
const folders = ["media", "platform", "realtime", "video"].map((f) => join(root, "src/core", f))

/** The validators of the Rules DSL that a Schema's rules replace. */
const dslValidators = ["record", "required", "requiredString", "string", "boolean", "number", "integerLike", "oneOf", "array", "ifPresent"]

/** The Rules DSL validators a source file uses: named imports from Rules.js, or `Rules.x` through a namespace import. */
const dslValidatorsUsed = (fileName: string, code: string): ReadonlyArray<string> => {
  const source = ts.createSourceFile(fileName, code, ts.ScriptTarget.Latest, true)
  const used: Array<string> = []
  const namespaces: Array<string> = []
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue
    if (!/\/Rules\.js$/.test(statement.moduleSpecifier.text)) continue
    const bindings = statement.importClause?.namedBindings
    if (bindings === undefined) continue
    if (ts.isNamespaceImport(bindings)) namespaces.push(bindings.name.text)
    else for (const e of bindings.elements) if (dslValidators.includes((e.propertyName ?? e.name).text)) used.push((e.propertyName ?? e.name).text)
  }
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node) && ts.isIdentifier(node.expression) && namespaces.includes(node.expression.text) && dslValidators.includes(node.name.text))
      used.push(node.name.text)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return used
}

describe("one validation path", () => {
  it("finds a DSL validator however it is imported (the check can fail)", () => {
    expect(dslValidatorsUsed("a.ts", 'import { at, record, string as str } from "../validation/Rules.js"')).toEqual(["record", "string"])
    expect(dslValidatorsUsed("b.ts", 'import * as R from "./Rules.js"\nconst x = R.oneOf(1, "f", [1]); R.describe(x)')).toEqual(["oneOf"])
    expect(dslValidatorsUsed("c.ts", 'import { describe, fail } from "../validation/Rules.js"')).toEqual([])
  })

  it("media, platform, realtime and video builders use no Rules DSL validator", () => {
    const offenders: Array<string> = []
    for (const folder of folders)
      for (const name of readdirSync(folder).filter((n) => n.endsWith(".ts"))) {
        const file = join(folder, name)
        const used = dslValidatorsUsed(file, readFileSync(file, "utf8"))
        if (used.length > 0) offenders.push(`${relative(root, file)}: ${used.join(", ")}`)
      }
    expect(offenders).toEqual([])
  })
})
