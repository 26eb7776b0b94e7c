/**
 * `umg demo` (`npm run demo`): a tour of every capability against the embedded emulator with fast
 * timings (or the gateway in `UMG_BASE_URL`). Each step is independent and timed, and a summary table
 * ends it. A failed step is shown as failed and makes the exit code 1; the other steps still run.
 */
import { mkdtemp } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Cause, Clock, Effect, Option, Redacted, Result } from "effect"
import { Gateway } from "../../adapters/Gateway.js"
import { buildMessagesBody } from "../../core/text/messages/Messages.js"
import { responsesOutputText } from "../../core/text/responses/ResponsesResponse.js"
import { buildVideoBody } from "../../core/video/VideoBody.js"
import { prepareChat, streamChat, usageCount, usageText } from "./chat.js"
import * as Connection from "../support/Connection.js"
import { embedLines } from "./embed.js"
import { describeReport, ExitCode, reportOf } from "../support/ExitCode.js"
import { ensureWritable, writeBytes } from "../support/LocalFiles.js"
import { realtimeTurn } from "./realtime.js"
import * as Output from "../support/Output.js"
import { progressText, saveVideo, waitForVideo } from "./video.js"

/** How a step ended: `skipped` when what it needs is not configured (the platform's settings). @category models */
export type StepStatus = "ok" | "failed" | "skipped"

/** One row of the summary table. @category models */
export interface StepResult {
  readonly step: string
  readonly status: StepStatus
  readonly result: string
  readonly ms: number
}

type Env = Gateway | Connection.Connection
interface Step {
  readonly name: string
  readonly run: (out: string) => Effect.Effect<string, unknown, Env>
}

/** A step's failure that says it could not run here: its row is `skipped`, not a failure. */
class StepSkipped {
  readonly _tag = "StepSkipped"
  constructor(readonly reason: string) {}
}

const say = (text: string) => Output.line(`  ${text}`)
const dim = (text: string) => Output.colour.dim(text)

// Long enough (well over the 1024-token minimum) that the gateway caches it.
const cachedSystem = Array.from(
  { length: 60 },
  (_, i) =>
    `Rule ${i + 1}: answer briefly, in plain words, and say when something is not known; prefer facts from the catalog over guesses.`
).join("\n")

const steps: ReadonlyArray<Step> = [
  {
    name: "models",
    run: () =>
      Effect.gen(function* () {
        const gateway = yield* Gateway
        const models = yield* gateway.models.list({ refresh: true })
        yield* say(
          `${models.length} models, e.g. ${models
            .slice(0, 4)
            .map((m) => m.id)
            .join(", ")}, …`
        )
        yield* gateway.models.has("epsilon-sonnet-4-5-20250929")
        return `${models.length} models listed`
      })
  },
  {
    name: "messages stream + tokens + cache",
    run: () =>
      Effect.gen(function* () {
        const gateway = yield* Gateway
        const model = "epsilon-sonnet-4-5-20250929"
        const system = [{ type: "text" as const, text: cachedSystem, cache_control: { type: "ephemeral" as const } }]
        const counted = yield* gateway.messages.countTokens({
          model,
          system: cachedSystem,
          messages: [{ role: "user", content: "Introduce umg." }]
        })
        yield* say(`count_tokens: ${counted.input_tokens} input tokens (system + prompt)`)
        let usage: unknown = undefined
        for (const turn of ["Introduce umg in one sentence.", "And once more, shorter."]) {
          // The system prompt is a text block marked for caching: the first call writes it, the second reads it.
          const body = yield* buildMessagesBody({
            model,
            max_tokens: 200,
            system,
            messages: [{ role: "user", content: turn }]
          })
          yield* Output.write(`  ${dim("›")} `)
          const outcome = yield* streamChat(
            { family: "messages", body },
            { onText: Output.write, onThinking: () => Effect.void }
          )
          yield* Output.line()
          yield* say(dim(usageText(outcome.usage)))
          usage = outcome.usage
        }
        return `${counted.input_tokens} tokens counted; 2nd call read ${usageCount(usage, "cache_read_input_tokens") ?? 0} tokens from cache`
      })
  },
  {
    name: "native stream with thinking",
    run: () =>
      Effect.gen(function* () {
        const prepared = yield* prepareChat({ model: "zeta-2.5-pro", prompt: "Why stream tokens?", thinking: 1024 })
        yield* Output.write(`  ${dim("thinking ›")} `)
        let answering = false
        const outcome = yield* streamChat(prepared, {
          onThinking: (t) => Output.write(dim(t)),
          onText: (t) =>
            Effect.andThen(
              answering
                ? Effect.void
                : Effect.sync(() => (answering = true)).pipe(Effect.andThen(Output.write(`\n  ${dim("answer ›")} `))),
              Output.write(t)
            )
        })
        yield* Output.line()
        const thoughts = usageCount(outcome.usage, "thoughtsTokenCount") ?? 0
        return `${outcome.text.split(/\s+/).length} words, ${thoughts} thought tokens, ${outcome.stop ?? "?"}`
      })
  },
  {
    name: "chat + responses",
    run: () =>
      Effect.gen(function* () {
        const gateway = yield* Gateway
        const chat = yield* gateway.chat.create({
          model: "gpt-4o-mini",
          messages: [{ role: "user", content: "Hello from umg" }]
        })
        const chatText = chat.choices[0]?.message.content ?? ""
        yield* say(`chat      › ${typeof chatText === "string" ? chatText : JSON.stringify(chatText)}`)
        const response = yield* gateway.responses.create({
          model: "gpt-5",
          max_output_tokens: 200,
          input: [{ role: "user", content: "Hello from umg" }]
        })
        yield* say(`responses › ${responsesOutputText(response)}`)
        return `chat ${chat.choices[0]?.finish_reason ?? "?"}, responses ${response.status ?? "?"}`
      })
  },
  {
    name: "embeddings batch",
    run: () =>
      Effect.gen(function* () {
        const inputs = ["fox", "dog", "river", "mountain", "gateway", "stream", "video", "token"]
        let dims = 0
        const count = yield* embedLines(
          { model: "text-embedding-3-small", inputs, concurrency: 3, dimensions: 256 },
          {
            onLine: (line) => Effect.sync(() => (dims = line.dimensions)),
            onProgress: (done, total) => Output.progress(`  embedding ${Output.bar(done, total)}`)
          }
        )
        yield* Output.endProgress
        // The bar was stderr's: stdout says what came back.
        yield* say(`${count} vectors of ${dims} numbers, in input order: ${inputs.join(", ")}`)
        return `${count} texts → ${dims}-dimension vectors (3 in flight)`
      })
  },
  {
    name: "rerank",
    run: () =>
      Effect.gen(function* () {
        const gateway = yield* Gateway
        const documents = ["The fox jumps over the dog.", "Gateways route requests.", "A red fox in the snow."]
        const answer = yield* gateway.rerank.create({ model: "rerank-v1", query: "fox", documents })
        for (const r of answer.results) yield* say(`${r.relevance_score.toFixed(3)}  ${documents[r.index] ?? ""}`)
        const best = answer.results[0]
        return `best: document ${best?.index ?? "?"} (${best?.relevance_score.toFixed(3) ?? "?"})`
      })
  },
  {
    name: "speech + image files",
    run: (out) =>
      Effect.gen(function* () {
        const gateway = yield* Gateway
        const audio = yield* gateway.speech.create({
          model: "gpt-4o-mini-tts",
          input: "Hello from umg.",
          voice: "nova",
          response_format: "wav"
        })
        const audioPath = join(out, "hello.wav")
        yield* writeBytes(audioPath, audio.bytes)
        yield* say(`${audioPath}  ${audio.bytes.length} bytes (${audio.contentType})`)
        const images = yield* gateway.images.generate({
          model: "zeta-2.5-flash-image",
          prompt: "a lighthouse at dusk",
          size: "16:9",
          response_format: "b64_json"
        })
        const image = images.images[0]
        if (image === undefined) return yield* Effect.fail(new Error("the images answer held no image"))
        const imagePath = join(out, "lighthouse.png")
        yield* writeBytes(imagePath, image.bytes)
        yield* say(`${imagePath}  ${image.bytes.length} bytes`)
        return `wav ${audio.bytes.length} B, png ${image.bytes.length} B`
      })
  },
  {
    name: "delta video (marker flags)",
    run: (out) =>
      Effect.gen(function* () {
        const gateway = yield* Gateway
        const connection = yield* Connection.Connection
        const input = {
          model: "delta-1-5-pro-251215",
          prompt: "a paper boat on a rainy street",
          duration: 5,
          resolution: "720p",
          aspect_ratio: "16:9",
          seed: 42
        }
        const body = yield* buildVideoBody(input)
        yield* say(`body: ${JSON.stringify(body)}`)
        const submitted = yield* gateway.video.submit(input)
        const done = yield* waitForVideo(submitted.task_id, {
          intervalMs: connection.pollIntervalMs,
          timeoutMs: 300_000,
          onProgress: (p) => Output.progress(`  ${progressText(p)}`)
        })
        yield* Output.endProgress
        const saved = yield* saveVideo(input.model, done.task, join(out, "delta.mp4"))
        yield* say(`${saved.path}  ${saved.bytes} bytes from the task url`)
        return `${done.polls} polls, ${saved.bytes} B saved`
      })
  },
  {
    name: "alpha video download",
    run: (out) =>
      Effect.gen(function* () {
        const gateway = yield* Gateway
        const connection = yield* Connection.Connection
        const submitted = yield* gateway.video.submit({
          model: "alpha-2",
          prompt: "a lantern drifting on a lake",
          duration: 4
        })
        const done = yield* waitForVideo(submitted.task_id, {
          intervalMs: connection.pollIntervalMs,
          timeoutMs: 300_000,
          onProgress: (p) => Output.progress(`  ${progressText(p)}`)
        })
        yield* Output.endProgress
        const saved = yield* saveVideo("alpha-2", done.task, join(out, "alpha.mp4"))
        const matches = saved.declaredSize === saved.bytes
        yield* say(
          `${saved.path}  ${saved.bytes} bytes; E3 declared size ${saved.declaredSize ?? "?"} ${matches ? "✓" : "✗"}`
        )
        if (!matches) return yield* Effect.fail(new Error(`size ${saved.declaredSize ?? "?"} ≠ ${saved.bytes} bytes`))
        return `${saved.bytes} B, size checked`
      })
  },
  {
    name: "realtime text turn",
    run: () =>
      Effect.gen(function* () {
        yield* Output.write(`  ${dim("gpt-realtime-2 ›")} `)
        const turn = yield* realtimeTurn("gpt-realtime-2", "Say hello over the socket.", Output.write)
        yield* Output.line()
        return `${turn.version} events, ${turn.events} received, ${turn.status ?? "done"}`
      })
  },
  {
    name: "platform login + text-to-video",
    run: () =>
      Effect.gen(function* () {
        const gateway = yield* Gateway
        // Against a gateway whose platform settings are not given, the step is skipped, not failed.
        const token = yield* gateway.platform.login().pipe(
          Effect.catchIf(
            (e) => e._tag === "InvalidRequest" && e.rule === "required",
            () =>
              Effect.fail(new StepSkipped("needs UMG_PLATFORM_URL, UMG_PLATFORM_USERNAME and UMG_PLATFORM_PASSWORD"))
          )
        )
        yield* say(`token received (${Redacted.value(token).length} characters, not shown)`)
        const task = yield* gateway.platform.textToVideo({
          model: "delta-1-0-pro-250528",
          prompt: "a kite over the sea",
          duration: "5",
          aspect_ratio: "16:9"
        })
        yield* say(`platform task ${task.task_id}`)
        return `task ${task.task_id}`
      })
  },
  {
    name: "rejected request (validation)",
    run: () =>
      Effect.gen(function* () {
        const gateway = yield* Gateway
        const connection = yield* Connection.Connection
        const total = () =>
          Option.match(connection.embedded, {
            onNone: () => undefined,
            onSome: (e) => Object.values(e.counters.snapshot()).reduce((a, b) => a + b, 0)
          })
        const before = total()
        // 1080p is not offered by the 1.5 pro series: the core refuses it before a byte is sent.
        const outcome = yield* Effect.result(
          gateway.video.submit({ model: "delta-1-5-pro-251215", prompt: "a fox", resolution: "1080p" })
        )
        const after = total()
        if (Result.isSuccess(outcome))
          return yield* Effect.fail(new Error(`the invalid request was accepted as ${outcome.success.task_id}`))
        const report = reportOf(outcome.failure)
        yield* say(Output.colour.red(describeReport(report).replace(/\n/g, "; ")))
        if (report.exitCode !== ExitCode.invalidInput) return yield* Effect.fail(outcome.failure)
        if (before !== undefined && after !== undefined) {
          yield* say(
            `emulator requests before ${before}, after ${after}: ${before === after ? "nothing was sent ✓" : "a request was sent ✗"}`
          )
          if (before !== after) return yield* Effect.fail(new Error("the invalid request reached the emulator"))
        }
        return `refused: ${report.field ?? "?"} (${report.rule ?? "?"}), exit code would be 2`
      })
  }
]

// Runs one step, timing it; a failure (or defect) becomes a failed row, never the end of the demo.
const runStep = (step: Step, index: number, out: string): Effect.Effect<StepResult, never, Env> =>
  Effect.gen(function* () {
    yield* Output.line(Output.colour.bold(`\n── ${index + 1}/${steps.length} ${step.name}`))
    const start = yield* Clock.currentTimeMillis
    const exit = yield* Effect.exit(step.run(out))
    const ms = (yield* Clock.currentTimeMillis) - start
    yield* Output.endProgress
    if (exit._tag === "Success") return { step: step.name, status: "ok" as const, result: exit.value, ms }
    const failure = Cause.findErrorOption(exit.cause)
    if (Option.isSome(failure) && failure.value instanceof StepSkipped) {
      yield* say(dim(`skipped: ${failure.value.reason}`))
      return { step: step.name, status: "skipped" as const, result: failure.value.reason, ms }
    }
    const message = Option.match(failure, {
      onNone: () => Cause.pretty(exit.cause).split("\n")[0] ?? "defect",
      onSome: (e) => describeReport(reportOf(e))
    })
    yield* say(Output.colour.red(`failed: ${message}`))
    return { step: step.name, status: "failed" as const, result: message.replace(/\n/g, " "), ms }
  })

const mark = (s: StepStatus) =>
  s === "ok" ? Output.colour.green("ok") : s === "skipped" ? dim("skipped") : Output.colour.red("FAILED")

/** Runs every step and prints the summary; the results, in order. @category constructors */
export const runDemo = (out: string): Effect.Effect<ReadonlyArray<StepResult>, never, Env> =>
  Effect.gen(function* () {
    const connection = yield* Connection.Connection
    yield* Output.line(
      Output.colour.bold("umg demo") +
        ` — ${Option.isSome(connection.embedded) ? "embedded emulator (fast timings)" : "gateway"} at ${connection.baseUrl}; files in ${out}`
    )
    const results: Array<StepResult> = []
    for (const [i, step] of steps.entries()) results.push(yield* runStep(step, i, out))
    const total = results.reduce((n, r) => n + r.ms, 0)
    yield* Output.line()
    yield* Output.line(
      Output.table(
        ["step", "result", "time", "details"],
        results.map((r) => [r.step, mark(r.status), Output.duration(r.ms), r.result])
      )
    )
    const failed = results.filter((r) => r.status === "failed").length
    const skipped = results.filter((r) => r.status === "skipped").length
    yield* Output.line(
      `\n${results.length - failed - skipped} ok, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""} in ${Output.duration(total)}; files in ${out}`
    )
    return results
  })

/** The options of `umg demo`. @category models */
export interface DemoOptions {
  readonly emulator: boolean
  readonly out: Option.Option<string>
}

/** Runs `umg demo`. @category commands */
export const runDemoCommand = (o: DemoOptions) =>
  Effect.gen(function* () {
    const out = Option.isSome(o.out) ? o.out.value : yield* Effect.promise(() => mkdtemp(join(tmpdir(), "umg-demo-")))
    // Steps cost money: a folder that cannot be made or written (an existing file, say) is refused first.
    if (Option.isSome(o.out)) yield* ensureWritable(join(out, "hello.wav"), "--out")
    // The demo is the one command that runs on an embedded emulator without --emulator (when no gateway is set).
    const embedded = o.emulator || !(yield* Connection.gatewayIsSet)
    const results = yield* Connection.run({ json: false, emulator: embedded }, runDemo(out))
    if (results.some((r) => r.status === "failed")) process.exitCode = ExitCode.failure
  })
