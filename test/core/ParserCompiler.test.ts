// The one switch for compiled Schema parsers: the core asks it when a parser is first made, the
// Gateway module installs the platform's compiler (Effect's JIT outside browsers), and a decoder made
// before the choice still follows it.
import * as Schema from "effect/Schema"
import type { SchemaAST } from "effect"
import * as Result from "effect/Result"
import * as SchemaJITCompiler from "effect/schema/SchemaJITCompiler"
import { afterEach, describe, expect, it } from "vitest"
import { parserCompiler, useParserCompiler } from "../../src/core/validation/ParserCompiler.js"
import { decodeWith } from "../../src/core/wire/WireJson.js"

describe("the Schema parser compiler", () => {
  const chosen = parserCompiler()
  afterEach(() => useParserCompiler(chosen))

  it("is Effect's JIT compiler once the Gateway module has loaded, outside browsers", async () => {
    await import("../../src/adapters/Gateway.js")
    expect(parserCompiler()).toBe(SchemaJITCompiler.enable)
  })

  it("is asked at a decoder's first call, not when the decoder is made, and only once", () => {
    const Event = Schema.Struct({ type: Schema.Literal("ping"), n: Schema.Number })
    const decode = decodeWith(Event, "messages", "ping event")
    const asked: Array<SchemaAST.AST> = []
    useParserCompiler((ast) => void asked.push(ast))
    expect(asked).toEqual([])
    expect(Result.isSuccess(decode({ type: "ping", n: 1 }))).toBe(true)
    expect(Result.isFailure(decode({ type: "pong", n: 1 }))).toBe(true)
    expect(asked).toEqual([Event.ast])
  })

  it("gives the same answers with no compiler and with Effect's", () => {
    const Event = Schema.Struct({ type: Schema.Literal("ping"), n: Schema.Number })
    const inputs: Array<unknown> = [{ type: "ping", n: 1 }, { type: "ping", n: "1" }, { n: 2 }, null, [1]]
    const answers = (compiler: ((ast: SchemaAST.AST) => void) | undefined) => {
      useParserCompiler(compiler)
      const decode = decodeWith(Event, "messages", "ping event")
      return inputs.map((input) => JSON.stringify(decode(input)))
    }
    expect(answers(SchemaJITCompiler.enable)).toEqual(answers(undefined))
  })
})
