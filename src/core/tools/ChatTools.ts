/**
 * The chat tool shapes: declarations, calls and the round of a tool loop. Tools go in
 * `tools[{type: "function", function: {name, description, parameters, strict}}]` (strict whenever the
 * schema allows it, unless the tool says otherwise); the calls are the first choice's `tool_calls`
 * (arguments as JSON text); the round is the assistant message with its `tool_calls`, then one
 * `role: "tool"` message per call.
 */
import * as Effect from "effect/Effect"
import type { ChatBodyInput } from "../text/chat/ChatBody.js"
import type { ChatCompletion } from "../text/chat/ChatResponse.js"
import { field, namesIn, parseArguments, type ToolShape } from "./ToolShape.js"

/** The chat tool shapes. @category models */
export const chatTools: ToolShape<ChatBodyInput, ChatCompletion> = {
  family: "chat",
  declare: (body, tools) => ({
    ...body,
    tools: [
      ...(body.tools ?? []),
      ...tools.map((d) => ({
        type: "function",
        function: {
          name: d.name,
          description: d.description,
          parameters: d.parameters,
          strict: d.strict ?? d.strictCapable
        }
      }))
    ]
  }),
  declaredNames: (body) => namesIn(body.tools, (t) => field(t, "function", "name")),
  calls: (response) =>
    (response.choices[0]?.message.tool_calls ?? []).flatMap((call) =>
      call.type === "function"
        ? [{ id: call.id, name: call.function.name, ...parseArguments(call.function.arguments) }]
        : []
    ),
  append: (body, response, answers) => {
    const message = response.choices[0]?.message
    return Effect.succeed({
      ...body,
      messages: [
        ...body.messages,
        { role: "assistant", content: message?.content ?? null, tool_calls: message?.tool_calls ?? [] },
        ...answers.map((a) => ({ role: "tool" as const, tool_call_id: a.id, content: a.content }))
      ]
    })
  },
  text: (response) => response.choices[0]?.message.content ?? ""
}
