/**
 * Compiled Schema parsers outside browsers (package.json `imports` `#umg/schema-jit`, default
 * condition). Effect's JIT compiler (`SchemaJITCompiler.enable`) generates a parser for a Schema's AST
 * with `new Function`, compiled lazily on first use and interpreted whenever compilation is not
 * possible (a blocked `new Function`, an AST the compiler does not take). The results, issues
 * included, are the interpreter's. Browsers get `SchemaJitBrowser.ts`, which compiles nothing.
 */
import type { SchemaAST } from "effect"
import * as SchemaJITCompiler from "effect/schema/SchemaJITCompiler"

/** Opts the parsers of `ast` (and of the ASTs it parses through) in to compilation. @category compilation */
export const compileParsers = (ast: SchemaAST.AST): void => {
  SchemaJITCompiler.enable(ast)
}
