// One validation path: every builder of src/core checks a body through its Schema (`conform`,
// `closedBody`), never through the validators of the older Rules DSL, which are gone. The sources are
// parsed with the TypeScript compiler: a named or namespaced use of one of those validators anywhere
// in src/core fails this test, and so does Rules.ts exporting one again. Rules.ts keeps what every
// path shares (`describe`, `fail`, `notAllowed`, `at`, the copying of untrusted values).
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { describe, expect, it } from "vitest"

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..")
const core = join(root, "src/core")

/** Every TypeScript source under a folder, recursively. */
const sourcesUnder = (folder: string): ReadonlyArray<string> =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return sourcesUnder(path)
    return entry.isFile() && entry.name.endsWith(".ts") ? [path] : []
  })

/** The validators of the Rules DSL that a Schema's rules replace. */
const dslValidators = [
  "record",
  "required",
  "requiredString",
  "string",
  "boolean",
  "number",
  "integerLike",
  "oneOf",
  "array",
  "ifPresent"
]

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
    else
      for (const e of bindings.elements)
        if (dslValidators.includes((e.propertyName ?? e.name).text)) used.push((e.propertyName ?? e.name).text)
  }
  const visit = (node: ts.Node): void => {
    if (
      ts.isPropertyAccessExpression(node) &&
      ts.isIdentifier(node.expression) &&
      namespaces.includes(node.expression.text) &&
      dslValidators.includes(node.name.text)
    )
      used.push(node.name.text)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return used
}

describe("one validation path", () => {
  it("finds a DSL validator however it is imported (the check can fail)", () => {
    expect(dslValidatorsUsed("a.ts", 'import { at, record, string as str } from "../validation/Rules.js"')).toEqual([
      "record",
      "string"
    ])
    expect(
      dslValidatorsUsed("b.ts", 'import * as R from "./Rules.js"\nconst x = R.oneOf(1, "f", [1]); R.describe(x)')
    ).toEqual(["oneOf"])
    expect(dslValidatorsUsed("c.ts", 'import { describe, fail } from "../validation/Rules.js"')).toEqual([])
  })

  it("no source of src/core uses a Rules DSL validator", () => {
    const files = sourcesUnder(core)
    // The walk reaches the nested folders (text/messages, text/native, …), not only the top ones.
    expect(files.some((f) => f.endsWith(join("text", "messages", "Messages.ts")))).toBe(true)
    expect(files.some((f) => f.endsWith(join("gateway", "Routing.ts")))).toBe(true)
    const offenders: Array<string> = []
    for (const file of files) {
      const used = dslValidatorsUsed(file, readFileSync(file, "utf8"))
      if (used.length > 0) offenders.push(`${relative(root, file)}: ${used.join(", ")}`)
    }
    expect(offenders).toEqual([])
  })

  it("Rules.ts exports none of the DSL validators", () => {
    const file = join(core, "validation", "Rules.ts")
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true)
    const exported = source.statements.flatMap((statement) =>
      ts.isVariableStatement(statement) && statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
        ? statement.declarationList.declarations.flatMap((d) => (ts.isIdentifier(d.name) ? [d.name.text] : []))
        : ts.isFunctionDeclaration(statement) &&
            statement.name !== undefined &&
            statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
          ? [statement.name.text]
          : []
    )
    expect(exported).toContain("describe")
    expect(exported.filter((name) => dslValidators.includes(name))).toEqual([])
  })
})
