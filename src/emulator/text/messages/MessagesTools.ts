/**
 * The messages-style (E8) request read for tools and structured output. The offered tools, the tool
 * choice, the conversation since the prompt, the structured-output format, and the check that every
 * `tool_result` answers a `tool_use` of the previous assistant message (and each `tool_use` gets one).
 */
import type { Conversation, OfferedTool, ToolChoice } from "../ToolTurns.js"

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)

const blocksOf = (m: unknown): Array<Obj> => (isObj(m) && Array.isArray(m.content) ? m.content.filter(isObj) : [])

/** The text of a `tool_result` content or a message content: a string or the text of its blocks. */
export const blocksText = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content
          .map((b) => (isObj(b) && typeof b.text === "string" ? b.text : ""))
          .filter((t) => t.length > 0)
          .join(" ")
      : ""

const isResultTurn = (m: unknown): boolean =>
  isObj(m) && m.role === "user" && blocksOf(m).some((b) => b.type === "tool_result")

/** The client tools offered (server tools have no `input_schema` and are left out). */
export const messagesTools = (tools: unknown): Array<OfferedTool> =>
  (Array.isArray(tools) ? tools : []).flatMap((t: unknown, i) =>
    isObj(t) && typeof t.name === "string" && isObj(t.input_schema)
      ? [{ name: t.name, schema: t.input_schema, where: `tools[${i}].input_schema` }]
      : []
  )

/** `tool_choice` as a `ToolChoice` (`auto` when absent). */
export const messagesChoice = (choice: unknown): ToolChoice => {
  if (!isObj(choice)) return { kind: "auto" }
  if (choice.type === "none") return { kind: "none" }
  if (choice.type === "any") return { kind: "any" }
  if (choice.type === "tool" && typeof choice.name === "string") return { kind: "tool", name: choice.name }
  return { kind: "auto" }
}

/** The conversation: the prompt (last user turn that is not tool results), the tools called since, the trailing results. */
export const messagesConversation = (messages: ReadonlyArray<unknown>): Conversation => {
  let p = messages.length - 1
  while (p >= 0 && (!isObj(messages[p]) || (messages[p] as Obj).role !== "user" || isResultTurn(messages[p]))) p--
  const prompt = p >= 0 ? blocksText((messages[p] as Obj).content) : ""
  const called = messages
    .slice(p + 1)
    .filter((m) => isObj(m) && m.role === "assistant")
    .flatMap((m) => blocksOf(m).filter((b) => b.type === "tool_use" && typeof b.name === "string"))
    .map((b) => String(b.name))
  const last = messages[messages.length - 1]
  const results = isResultTurn(last)
    ? blocksOf(last)
        .filter((b) => b.type === "tool_result")
        .map((b) => ({ text: blocksText(b.content), isError: b.is_error === true }))
    : []
  return { prompt, called, results }
}

/** The structured-output schema asked for by `output_config.format` (or the beta `output_format`), if any. */
export const messagesFormat = (body: Obj): { readonly schema: unknown; readonly field: string } | undefined => {
  const config = isObj(body.output_config) && isObj(body.output_config.format) ? body.output_config.format : undefined
  if (config?.type === "json_schema") return { schema: config.schema, field: "output_config.format.schema" }
  const beta = isObj(body.output_format) ? body.output_format : undefined
  if (beta?.type === "json_schema") return { schema: beta.schema, field: "output_format.schema" }
  return undefined
}

/**
 * Checks the pairing of tool uses and results: each `tool_result` must answer a `tool_use` id of
 * the previous assistant message, and each `tool_use` followed by a message must be answered in it.
 * The message of the first failure (naming the field and the id), or `undefined`.
 */
export const checkToolPairing = (messages: ReadonlyArray<unknown>): string | undefined => {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]
    const results = isObj(m) && m.role === "user" ? blocksOf(m) : []
    const prev = messages[i - 1]
    const uses =
      isObj(prev) && prev.role === "assistant"
        ? blocksOf(prev)
            .filter((b) => b.type === "tool_use")
            .map((b) => b.id)
        : []
    const useSet = new Set(uses)
    const answered = new Set<unknown>()
    for (let j = 0; j < results.length; j++) {
      const b = results[j]!
      if (b.type !== "tool_result") continue
      if (!useSet.has(b.tool_use_id))
        return `field messages[${i}].content[${j}].tool_use_id: unexpected tool_use_id ${JSON.stringify(b.tool_use_id)}: each tool_result must answer a tool_use of the previous assistant message`
      answered.add(b.tool_use_id)
    }
    const missing = i > 0 ? uses.filter((id) => !answered.has(id)) : []
    if (missing.length > 0)
      return `field messages[${i}]: tool_use ids without a tool_result in the next message: ${missing.map(String).join(", ")}`
  }
  return undefined
}
