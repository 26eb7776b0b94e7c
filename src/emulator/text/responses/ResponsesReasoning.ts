/**
 * The reasoning item of a responses answer. A reasoning model (GPT-5, o-series) asked for a summary
 * (`reasoning.summary`) answers with a `reasoning` output item before its message or calls, and
 * streams it as upstream does (`response.reasoning_summary_part.*`, `response.reasoning_summary_text.*`).
 */
import { Buffer } from "node:buffer"
import type { EmulatorContext } from "../../server/Context.js"
import { estimateTokens, newId, pace, textOf, tokenPieces } from "../TextGen.js"
import type { TextPlan } from "../chat/OpenAiPlan.js"

type Obj = Record<string, unknown>
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)

/** The summary kinds a request may ask for (`reasoning.summary`). */
const summaryKinds: ReadonlyArray<unknown> = ["auto", "concise", "detailed"]

/** The models that reason before answering: GPT-5 (Pro included) and the o-series. */
const reasons = (model: string): boolean => /^(gpt-5|o\d)/.test(model)

/** A reasoning item to answer with: its id, its summary text and the reasoning tokens it counts. */
export interface Thought {
  readonly id: string
  readonly text: string
  readonly tokens: number
  /** `include` asked for `reasoning.encrypted_content`: the item carries an opaque one. */
  readonly encrypted: boolean
}

/** The reasoning item `body` asks of its model, or `undefined` (no summary asked, effort `none`, a model that does not reason). */
export const thoughtOf = (body: Obj, p: TextPlan): Thought | undefined => {
  const asked = body.reasoning
  if (!isObj(asked) || !summaryKinds.includes(asked.summary) || asked.effort === "none") return undefined
  if (!reasons(textOf(body.model))) return undefined
  const text =
    p.calls.length > 0
      ? `**Choosing a tool**\n\nThe request is answered best by calling ${p.calls.map((c) => c.name).join(", ")}.`
      : `**Planning the answer**\n\nThe answer takes about ${p.outputTokens} tokens; writing it directly.`
  const include = Array.isArray(body.include) ? body.include : []
  return {
    id: newId("rs_"),
    text,
    tokens: 4 * estimateTokens(text),
    encrypted: include.includes("reasoning.encrypted_content")
  }
}

/** The reasoning output item: empty while under way, its summary when done. */
export const thoughtItem = (thought: Thought, done: boolean): Obj => ({
  type: "reasoning",
  id: thought.id,
  summary: done ? [{ type: "summary_text", text: thought.text }] : [],
  ...(thought.encrypted && done
    ? { encrypted_content: Buffer.from(`umg-emulator:${thought.id}`).toString("base64") }
    : {})
})

/**
 * Streams the reasoning item at output index 0 with `send`; false when the client left during it.
 * `closed` tells whether it left.
 */
export const streamThought = async (
  ctx: EmulatorContext,
  thought: Thought,
  send: (type: string, data: Obj) => Promise<void>,
  closed: () => boolean
): Promise<boolean> => {
  const at = { item_id: thought.id, output_index: 0, summary_index: 0 }
  await send("response.output_item.added", { output_index: 0, item: thoughtItem(thought, false) })
  await send("response.reasoning_summary_part.added", { ...at, part: { type: "summary_text", text: "" } })
  for (const delta of tokenPieces(thought.text)) {
    if (closed()) return false
    await pace(ctx)
    await send("response.reasoning_summary_text.delta", { ...at, delta })
  }
  await send("response.reasoning_summary_text.done", { ...at, text: thought.text })
  await send("response.reasoning_summary_part.done", { ...at, part: { type: "summary_text", text: thought.text } })
  await send("response.output_item.done", { output_index: 0, item: thoughtItem(thought, true) })
  return true
}
