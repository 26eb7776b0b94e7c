/**
 * No Schema parser compiler in browsers (package.json `imports` `#umg/schema-jit`, `browser`
 * condition). Parsers stay interpreted and no `new Function` runs, for a page's content security
 * policy may forbid `eval`. A page that allows it opts in with the core's
 * `useParserCompiler(SchemaJITCompiler.enable)`. Elsewhere `SchemaJit.ts` installs Effect's JIT compiler.
 */
import type { ParserCompiler } from "../../core/validation/ParserCompiler.js"

/** The compiler this platform installs: none. @category compilation */
export const platformParserCompiler: ParserCompiler | undefined = undefined
