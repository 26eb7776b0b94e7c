/**
 * The responses tool shapes: declarations, calls and the round of a tool loop. Tools go in
 * `tools[{type: "function", name, description, parameters, strict}]`; the calls are the
 * `function_call` output items (arguments as JSON text); the round is the response's output items,
 * then one `function_call_output` item per call, appended to `input`. The whole conversation is sent
 * again at each step rather than `previous_response_id`: the gateway contract does not say that
 * responses are stored, and a loop must also work with `store: false`. A body in a `conversation`
 * is the exception: the conversation keeps each response's input and output items itself, so each
 * step sends only its new `function_call_output` items (sending the rest again would add them twice).
 */
import * as Effect from "effect/Effect"
import type { ResponsesBodyInput } from "../text/responses/ResponsesBody.js"
import { isResponsesItem, responsesOutputText, type ResponsesResponse } from "../text/responses/ResponsesResponse.js"
import { field, namesIn, parseArguments, type ToolShape } from "./ToolShape.js"

type Input = NonNullable<ResponsesBodyInput["input"]>

/** `input` as a list of items: a string is the user's message; absent (a stored prompt or a previous response stands in) is none. */
const inputItems = (input: ResponsesBodyInput["input"]): Exclude<Input, string> | [] =>
  input === undefined ? [] : typeof input === "string" ? [{ role: "user", content: input }] : input

/** The responses tool shapes. @category models */
export const responsesTools: ToolShape<ResponsesBodyInput, ResponsesResponse> = {
  family: "responses",
  declare: (body, tools) => ({
    ...body,
    tools: [
      ...(body.tools ?? []),
      // `strict` is always sent: upstream's default for a responses function tool is strict, which a
      // schema strict mode does not take would fail.
      ...tools.map((d) => ({
        type: "function",
        name: d.name,
        description: d.description,
        parameters: d.parameters,
        strict: d.strict ?? d.strictCapable
      }))
    ]
  }),
  declaredNames: (body) => namesIn(body.tools, (t) => field(t, "name")),
  calls: (response) =>
    response.output.flatMap((item) =>
      isResponsesItem(item, "function_call")
        ? [{ id: item.call_id, name: item.name, ...parseArguments(item.arguments) }]
        : []
    ),
  append: (body, response, answers) => {
    const outputs = answers.map((a) => ({ type: "function_call_output", call_id: a.id, output: a.content }))
    return Effect.succeed(
      body.conversation !== undefined
        ? { ...body, input: outputs }
        : {
            ...body,
            input: [
              ...inputItems(body.input),
              ...(response.output as ReadonlyArray<Exclude<Input, string>[number]>),
              ...outputs
            ]
          }
    )
  },
  text: responsesOutputText
}
