/**
 * Schema parsers in browsers (package.json `imports` `#umg/schema-jit`, `browser` condition), all
 * interpreted. Nothing is compiled, for there is no `new Function`: a page's content security policy
 * may forbid `eval`, and umg does not ask for it. Elsewhere `SchemaJit.ts` compiles them.
 */
import type { SchemaAST } from "effect"

/** Leaves the parsers of `ast` interpreted. @category compilation */
export const compileParsers = (_ast: SchemaAST.AST): void => {}
