/**
 * The name rule of chat's and responses' function tools: 1 to 64 letters, digits, `_` or `-`. Those
 * bodies declare tools as open objects (new tool types pass through), so the rule is checked here:
 * the upstream's, and the one umg's own tools keep (`toolNamePattern`). Internal: not exported from
 * the package.
 */
import { toolNamePattern } from "../tools/ToolName.js"
import { describe, isRecord, type Json } from "../validation/Rules.js"

/**
 * The first function tool of `tools` whose name the upstream refuses — 1 to 64 letters, digits, `_`
 * or `-` (`toolNamePattern`, the rule umg's own tools keep) — as an `acrossFields` finding: where its
 * name is (`nameOf`, for the family's tool shape) and why. Chat and responses declare tools as open
 * objects (new tool types pass), so their function tools' names are checked here.
 * @internal
 */
export const misnamedFunctionTool = (
  tools: ReadonlyArray<unknown> | undefined,
  nameOf: (tool: Json) => { readonly name: unknown; readonly key: ReadonlyArray<PropertyKey> } | undefined
): { readonly key: ReadonlyArray<PropertyKey>; readonly detail: string } | undefined => {
  for (const [i, tool] of (tools ?? []).entries()) {
    if (!isRecord(tool) || tool.type !== "function") continue
    const found = nameOf(tool)
    if (found === undefined) continue
    const { name, key } = found
    if (typeof name === "string" && toolNamePattern.test(name)) continue
    return {
      key: ["tools", i, ...key],
      detail:
        name === undefined
          ? "is required: a function tool's name, 1 to 64 letters, digits, _ or -"
          : `${describe(name)} is not allowed; allowed: 1 to 64 letters, digits, _ or -`
    }
  }
  return undefined
}

/** The message of a misnamed function tool: `tools[0].function.name: "get weather" is not allowed; …`. */
export const nameMessage = (field: string, detail: string): string =>
  `${field}${detail.startsWith("is required") ? " " : ": "}${detail}`
