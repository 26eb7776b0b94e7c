// The one secret scan every hostile-peer test uses: a value (usually an error) must not show any
// secret in its message, cause chain, stack, toString, toJSON, JSON form or util.inspect form.
import { inspect } from "node:util"
import { expect } from "vitest"

/** The JSON text of a value; `""` for `undefined`, a function or a symbol, which stringify to `undefined`. */
const jsonOf = (v: unknown): string => (JSON.stringify(v) as string | undefined) ?? ""

const views = (value: unknown): Array<[string, string]> => {
  const out: Array<[string, string]> = []
  const seen = new Set<unknown>()
  const visit = (v: unknown, where: string, depth: number): void => {
    if (depth > 8 || seen.has(v)) return
    seen.add(v)
    out.push([`${where} inspect`, inspect(v, { depth: 12, showHidden: true, getters: true })])
    try {
      out.push([`${where} JSON`, jsonOf(v)])
    } catch {
      // cycles: inspect covers it
    }
    try {
      out.push([`${where} String`, String(v)])
    } catch {
      // a value without toString
    }
    if (v !== null && typeof v === "object") {
      const o = v as { message?: unknown; stack?: unknown; cause?: unknown; toJSON?: unknown }
      if (typeof o.message === "string") out.push([`${where}.message`, o.message])
      if (typeof o.stack === "string") out.push([`${where}.stack`, o.stack])
      if (typeof o.toJSON === "function") {
        try {
          out.push([`${where}.toJSON()`, jsonOf((o.toJSON as () => unknown).call(o))])
        } catch {
          // a throwing toJSON shows nothing
        }
      }
      if (o.cause !== undefined) visit(o.cause, `${where}.cause`, depth + 1)
    }
  }
  visit(value, "value", 0)
  return out
}

/** Every place in `value` where one of `secrets` shows, as `view: secret-prefix`; empty when none. */
export const secretLeaks = (value: unknown, secrets: ReadonlyArray<string>): Array<string> =>
  views(value).flatMap(([where, text]) =>
    secrets.filter((s) => s.length > 0 && text.includes(s)).map((s) => `${where} shows ${s.slice(0, 3)}…`)
  )

/** Asserts that no secret shows anywhere in `value` (message, cause, stack, toJSON, inspect). */
export const expectNoSecret = (value: unknown, secrets: ReadonlyArray<string>): void => {
  expect(secretLeaks(value, secrets)).toEqual([])
}
