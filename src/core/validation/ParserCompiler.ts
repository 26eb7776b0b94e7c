/**
 * The one switch for compiled Schema parsers: the core asks `compileParsers` before it makes a parser,
 * and whoever knows the platform (umg's adapters, or an app) says once which compiler answers.
 *
 * The core itself compiles nothing and imports only effect. Outside browsers the `Gateway` module
 * installs Effect's JIT compiler (`SchemaJITCompiler.enable`, which generates parsers with
 * `new Function` and falls back to the interpreter where that is blocked); under the `browser`
 * condition it installs nothing, so no `new Function` runs unless a page asks for it with
 * `useParserCompiler(SchemaJITCompiler.enable)`. Compiled or not, results and issues are the
 * interpreter's. Parsers are made at their first use, so the choice holds for every parser made
 * after it.
 */
import type { SchemaAST } from "effect"

/** Opts the parsers of an AST (and of the ASTs it parses through) in to compilation. @category models */
export type ParserCompiler = (ast: SchemaAST.AST) => void

let current: ParserCompiler | undefined

/** Says which compiler answers `compileParsers` from now on (`undefined`: none, parsers stay interpreted). @category compilation */
export const useParserCompiler = (compiler: ParserCompiler | undefined): void => {
  current = compiler
}

/** Asks the chosen compiler, if any, to compile the parsers of `ast`; called just before a parser of it is made. @category compilation */
export const compileParsers = (ast: SchemaAST.AST): void => {
  current?.(ast)
}

/** The compiler chosen, if any. @category compilation */
export const parserCompiler = (): ParserCompiler | undefined => current
