/**
 * The native-content (zeta) tool shapes: declarations, calls and the round of a tool loop. Tools go in
 * one `tools[{functionDeclarations: […]}]` element (each JSON Schema as `parametersJsonSchema`); the
 * calls are the first candidate's `functionCall` parts (an id made from the step and the position when
 * the call has none); the round is the model's turn as it came back (thought signatures kept), then a
 * user turn of `functionResponse` parts.
 */
import * as Effect from "effect/Effect"
import type { NativeBodyInput } from "../text/native/Native.js"
import { type GenerateContentResponse, type NativePart, nativeText } from "../text/native/NativeResponse.js"
import { answerObject, field, madeCallId, namesIn, type ToolShape } from "./ToolShape.js"
import { firstCandidate } from "../text/native/FirstCandidate.js"

/** A native-content call: the model (it goes in the path) and the body. @category models */
export type NativeToolsRequest = NativeBodyInput & { readonly model: string }

type Parts = NativeToolsRequest["contents"][number]["parts"]

const partsOf = (response: GenerateContentResponse): ReadonlyArray<NativePart> =>
  firstCandidate(response)?.content?.parts ?? []

const functionCalls = (response: GenerateContentResponse) =>
  partsOf(response).flatMap((part) => (part.functionCall === undefined ? [] : [part.functionCall]))

/** The native-content tool shapes. @category models */
export const nativeTools: ToolShape<NativeToolsRequest, GenerateContentResponse> = {
  family: "native",
  declare: (body, tools) => ({
    ...body,
    tools: [
      ...(body.tools ?? []),
      {
        functionDeclarations: tools.map((d) => ({
          name: d.name,
          description: d.description,
          parametersJsonSchema: d.parameters
        }))
      }
    ]
  }),
  declaredNames: (body) =>
    namesIn(body.tools, (t) => {
      const declarations = field(t, "functionDeclarations")
      return Array.isArray(declarations) ? declarations.map((d) => field(d, "name")) : undefined
    }),
  calls: (response, step) =>
    functionCalls(response).map((call, i) => ({
      id: call.id ?? madeCallId(step, i),
      name: call.name,
      input: call.args ?? {},
      malformed: undefined
    })),
  append: (body, response, answers) => {
    const calls = functionCalls(response)
    return Effect.succeed({
      ...body,
      contents: [
        ...body.contents,
        // The turn as it came back, its empty parts left out (a part holds exactly one kind); the
        // answer's parts are read as request parts here, and the body's builder checks them.
        {
          role: "model" as const,
          parts: partsOf(response).filter((part) => Object.keys(part).length > 0) as unknown as Parts
        },
        {
          role: "user" as const,
          parts: answers.map((a, i) => {
            const id = calls[i]?.id
            return {
              functionResponse: { name: a.name, ...(id === undefined ? {} : { id }), response: answerObject(a) }
            }
          })
        }
      ]
    })
  },
  text: nativeText
}
