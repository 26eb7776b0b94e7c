/**
 * The native-content (E10) request read for tools and structured output. Function declarations, the
 * function-calling mode, the conversation since the prompt, the response schema, and the check that
 * each `functionResponse` answers a `functionCall` of the model turn before it.
 */
import { canonicalJson, textOf } from "../TextGen.js"
import type { Conversation, OfferedTool, ToolChoice } from "../ToolTurns.js"

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)

const partsOf = (c: unknown): Array<Obj> => (isObj(c) && Array.isArray(c.parts) ? c.parts.filter(isObj) : [])
const isResponseTurn = (c: unknown): boolean => partsOf(c).some((p) => isObj(p.functionResponse))
const isModel = (c: unknown): boolean => isObj(c) && c.role === "model"

/** The declared functions (`parameters` in the OpenAPI subset, or `parametersJsonSchema`). */
export const nativeTools = (tools: unknown): Array<OfferedTool> =>
  (Array.isArray(tools) ? tools : []).flatMap((t: unknown, i) =>
    (isObj(t) && Array.isArray(t.functionDeclarations) ? t.functionDeclarations : []).flatMap((d: unknown, j) =>
      isObj(d) && typeof d.name === "string"
        ? [
            {
              name: d.name,
              schema: d.parametersJsonSchema ?? d.parameters_json_schema ?? d.parameters,
              where: `tools[${i}].function_declarations[${j}].${d.parameters === undefined ? "parameters_json_schema" : "parameters"}`
            }
          ]
        : []
    )
  )

/** `toolConfig.functionCallingConfig` as a `ToolChoice`: NONE, ANY (one allowed name forces it), else auto. */
export const nativeChoice = (body: Obj): { choice: ToolChoice; allowed?: ReadonlyArray<string> } => {
  const cfg =
    isObj(body.toolConfig) && isObj(body.toolConfig.functionCallingConfig) ? body.toolConfig.functionCallingConfig : {}
  const allowed = Array.isArray(cfg.allowedFunctionNames) ? cfg.allowedFunctionNames.map(String) : undefined
  if (cfg.mode === "NONE") return { choice: { kind: "none" } }
  if (cfg.mode === "ANY")
    return allowed?.length === 1
      ? { choice: { kind: "tool", name: allowed[0]! } }
      : { choice: allowed === undefined ? { kind: "any" } : { kind: "any", allowed } }
  return allowed === undefined ? { choice: { kind: "auto" } } : { choice: { kind: "auto" }, allowed }
}

/** The conversation: the prompt (last user turn without function responses), functions called since, the trailing responses. */
export const nativeConversation = (contents: ReadonlyArray<unknown>): Conversation => {
  let p = contents.length - 1
  while (p >= 0 && (isModel(contents[p]) || isResponseTurn(contents[p]))) p--
  const prompt =
    p >= 0
      ? partsOf(contents[p])
          .flatMap((x) => (typeof x.text === "string" ? [x.text] : []))
          .join(" ")
      : ""
  const called = contents
    .slice(p + 1)
    .filter(isModel)
    .flatMap((c) => partsOf(c).flatMap((x) => (isObj(x.functionCall) ? [textOf(x.functionCall.name)] : [])))
  const last = contents[contents.length - 1]
  const results = isResponseTurn(last)
    ? partsOf(last).flatMap((x) =>
        isObj(x.functionResponse)
          ? [
              {
                text: canonicalJson(x.functionResponse.response),
                isError: isObj(x.functionResponse.response) && x.functionResponse.response.error !== undefined
              }
            ]
          : []
      )
    : []
  return { prompt, called, results }
}

/** The structured output asked for by `responseMimeType`: JSON (of a schema, if given) or one enum value (`text/x.enum`). */
export const nativeFormat = (
  g: Obj
): { readonly kind: "json" | "enum"; readonly schema: unknown; readonly field: string } | undefined => {
  const schema: unknown = g.responseJsonSchema ?? g.responseSchema
  const field = `generation_config.${g.responseJsonSchema === undefined ? "response_schema" : "response_json_schema"}`
  if (g.responseMimeType === "application/json") return { kind: "json", schema, field }
  if (g.responseMimeType === "text/x.enum") return { kind: "enum", schema, field }
  return undefined
}

/**
 * Checks that each turn of function responses follows a model turn of function calls, answers them
 * by name (and id, when both carry one) and has as many parts. The first failure's message, or `undefined`.
 */
export const checkFunctionPairing = (contents: ReadonlyArray<unknown>): string | undefined => {
  for (let i = 0; i < contents.length; i++) {
    const responses = partsOf(contents[i]).flatMap((x) => (isObj(x.functionResponse) ? [x.functionResponse] : []))
    if (responses.length === 0) continue
    const calls = isModel(contents[i - 1])
      ? partsOf(contents[i - 1]).flatMap((x) => (isObj(x.functionCall) ? [x.functionCall] : []))
      : []
    const names = new Set(calls.map((c) => c.name))
    const ids = new Set(calls.flatMap((c) => (c.id === undefined ? [] : [c.id])))
    for (const r of responses) {
      const match = names.has(r.name) && (r.id === undefined || ids.size === 0 || ids.has(r.id))
      if (!match)
        return `Please ensure that function response turn comes immediately after a function call turn: contents[${i}] answers ${JSON.stringify(r.id ?? r.name)}, which no functionCall of the model turn before it made.`
    }
    if (responses.length !== calls.length)
      return `Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn (contents[${i}]: ${responses.length} responses, ${calls.length} calls).`
  }
  return undefined
}
