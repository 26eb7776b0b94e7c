/**
 * The Schema parser compiler outside browsers (package.json `imports` `#umg/schema-jit`, default
 * condition): Effect's JIT compiler, installed into the core's `useParserCompiler` by the `Gateway`
 * module. It generates a parser for a Schema's AST with `new Function`, lazily on first use, and
 * interprets whenever compilation is not possible (a blocked `new Function`, an AST the compiler does
 * not take); results and issues are the interpreter's. Browsers get `SchemaJitBrowser.ts`.
 */
import * as SchemaJITCompiler from "effect/schema/SchemaJITCompiler"
import type { ParserCompiler } from "../../core/validation/ParserCompiler.js"

/** The compiler this platform installs: Effect's JIT compiler. @category compilation */
export const platformParserCompiler: ParserCompiler | undefined = SchemaJITCompiler.enable
