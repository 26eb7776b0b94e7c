import { generateText, type ModelMessage, tool } from "ai"
import { describe, expect, it } from "vitest"
import * as z from "zod"
import { proxiedUmg } from "./CountingProxy.js"

// Files in tool results through umg/ai-sdk: a tool that answers with an image goes to the model as an
// image where the family's tool results take files (messages-style `tool_result` content blocks,
// responses `function_call_output` input content); chat and native send the text and say, in a
// warning, which files they left out.
const env = proxiedUmg()

const png = "iVBORw0KGgo="
const chart = tool({
  description: "Draws the chart",
  inputSchema: z.object({ size: z.string().optional() }),
  execute: () => Promise.resolve("drawn")
})

/** A conversation whose tool answered with text and an image (or the file given). */
const withToolFile = (
  file: { readonly mediaType: string; readonly data: string } = { mediaType: "image/png", data: png }
) =>
  [
    { role: "user", content: "Show me the chart." },
    { role: "assistant", content: [{ type: "tool-call", toolCallId: "call_1", toolName: "chart", input: {} }] },
    {
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "call_1",
          toolName: "chart",
          output: {
            type: "content",
            value: [
              { type: "text", text: "here" },
              { type: "file", data: { type: "data", data: file.data }, mediaType: file.mediaType }
            ]
          }
        }
      ]
    }
  ] satisfies Array<ModelMessage>

const sent = (): Record<string, unknown> => JSON.parse(env.proxy.requests[0]!.body) as Record<string, unknown>
const dropWarnings = (warnings: ReadonlyArray<unknown>) =>
  warnings.filter((w) => JSON.stringify(w).includes("not sent"))

describe("an image in a tool result", () => {
  it("goes to a messages-style model as an image block of the tool_result, beside its text", async () => {
    const r = await generateText({
      model: env.umg("epsilon-sonnet-4-5-20250929"),
      messages: withToolFile(),
      tools: { chart }
    })
    const messages = sent()["messages"] as Array<{ content: Array<Record<string, unknown>> }>
    expect(messages[2]!.content[0]).toEqual({
      type: "tool_result",
      tool_use_id: "call_1",
      content: [
        { type: "text", text: "here" },
        { type: "image", source: { type: "base64", media_type: "image/png", data: png } }
      ]
    })
    expect(dropWarnings(r.warnings ?? [])).toEqual([])
  })

  it("goes to a responses model as input_image content of the function_call_output", async () => {
    const r = await generateText({ model: env.umg("gpt-5"), messages: withToolFile(), tools: { chart } })
    const input = sent()["input"] as Array<Record<string, unknown>>
    expect(input.find((i) => i["type"] === "function_call_output")).toEqual({
      type: "function_call_output",
      call_id: "call_1",
      output: [
        { type: "input_text", text: "here" },
        { type: "input_image", image_url: `data:image/png;base64,${png}` }
      ]
    })
    expect(dropWarnings(r.warnings ?? [])).toEqual([])
  })

  it("a PDF goes to a messages-style model as a document block of the tool_result", async () => {
    await generateText({
      model: env.umg("epsilon-sonnet-4-5-20250929"),
      messages: withToolFile({ mediaType: "application/pdf", data: "JVBERi0xLjQ=" }),
      tools: { chart }
    })
    const messages = sent()["messages"] as Array<{ content: Array<{ content: Array<unknown> }> }>
    expect(messages[2]!.content[0]!.content[1]).toEqual({
      type: "document",
      source: { type: "base64", media_type: "application/pdf", data: "JVBERi0xLjQ=" }
    })
  })

  it("of a media type the family does not take is refused before sending, naming the type and the allowed ones", async () => {
    const failure = await generateText({
      model: env.umg("epsilon-sonnet-4-5-20250929"),
      messages: withToolFile({ mediaType: "audio/wav", data: "UklGRg==" }),
      tools: { chart },
      maxRetries: 0
    }).catch((e: unknown) => e)
    expect(failure).toMatchObject({ name: "AI_InvalidArgumentError" })
    expect(String((failure as Error).message)).toMatch(/"audio\/wav" is not allowed .*application\/pdf/)
    expect(env.proxy.requests).toEqual([])
  })

  it.each([
    { name: "chat", model: "gpt-4o", family: "a chat model" },
    { name: "native content", model: "zeta-2.5-flash", family: "a native-content model" }
  ])("is left out by a $name model, which sends the text and warns of the file", async ({ model, family }) => {
    const r = await generateText({ model: env.umg(model), messages: withToolFile(), tools: { chart } })
    expect(r.text).toMatch(/\S/)
    expect(dropWarnings(r.warnings ?? [])).toEqual([
      {
        type: "other",
        message: `tool result "call_1" (chart): a file (image/png) not sent; ${family}'s tool results take text only`
      }
    ])
    expect(env.proxy.requests[0]!.body).toContain("here")
    expect(env.proxy.requests[0]!.body).not.toContain(png)
  })
})
