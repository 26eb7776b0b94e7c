/**
 * The messages-style (epsilon) tool shapes: declarations, calls and the round of a tool loop. Tools go
 * in `tools[{name, description, input_schema}]`; the calls are the `tool_use` blocks of a `Message`;
 * the round is the one `appendToolRound` checks (the assistant turn as it came back, then a user turn
 * of `tool_result` blocks, `is_error` on a failure).
 */
import * as Effect from "effect/Effect"
import { appendToolRound, type MessagesBodyInput } from "../text/messages/Messages.js"
import { isMessagesBlock, type Message, messageText } from "../text/messages/MessagesResponse.js"
import { field, namesIn, type ToolShape } from "./ToolShape.js"

/** The messages-style tool declaration of one tool (its `input_schema` an object schema, as checked by `declarationsOf`). */
type MessagesToolParam = NonNullable<MessagesBodyInput["tools"]>[number]

/** The messages-style tool shapes. @category models */
export const messagesTools: ToolShape<MessagesBodyInput, Message> = {
  family: "messages",
  declare: (body, tools) => ({
    ...body,
    tools: [
      ...(body.tools ?? []),
      ...tools.map((d): MessagesToolParam => ({
        name: d.name,
        description: d.description,
        input_schema: d.parameters as { readonly type: "object" },
        ...(d.strict === undefined ? {} : { strict: d.strict })
      }))
    ]
  }),
  declaredNames: (body) => namesIn(body.tools, (t) => field(t, "name")),
  calls: (response) =>
    response.content.flatMap((block) =>
      isMessagesBlock(block, "tool_use")
        ? [{ id: block.id, name: block.name, input: block.input, malformed: undefined }]
        : []
    ),
  append: (body, response, answers) =>
    Effect.map(
      appendToolRound(
        body.messages,
        // Every block kept and in order (thinking too); an empty text block would be refused upstream.
        response.content.filter((block) => !(isMessagesBlock(block, "text") && block.text === "")),
        answers.map((a) => ({ tool_use_id: a.id, content: a.content, ...(a.isError ? { is_error: true } : {}) }))
      ),
      (messages) => ({ ...body, messages })
    ),
  text: messageText
}
