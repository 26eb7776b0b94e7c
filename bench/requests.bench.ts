/**
 * CPU per request of plain JSON calls: GET `/v1/models` (a 40-model list) and POST
 * `/v1/chat/completions` (one non-stream completion), each one after another and 32 in flight, by
 * umg's Effect and Rx faces against the same calls written by hand and by the official OpenAI SDK.
 *
 * Run: `npm run bench -- requests`, or `node --conditions=umg-source --import tsx
 * bench/requests.bench.ts` (5 repetitions, a few minutes); `BENCH_QUICK=1` for 2 repetitions and
 * fewer requests (well under a minute); `REQUESTS_REPS=n` overrides the repetitions. Nothing is
 * asserted; the table goes to `bench/results/requests.md`.
 *
 * Contenders, each in its own process, all reading every answer the same way (models: count the
 * records and sum their ids' lengths; chat: the first choice's content length — checked against the
 * fixture, so a contender that loses data is not measured):
 * - raw fetch: `fetch` + `JSON.parse` of the text (the baseline);
 * - raw node:http: `http.request` on a keep-alive agent + `JSON.parse`;
 * - openai SDK: `models.list()` (the page iterated) and `chat.completions.create(body)`;
 * - umg Effect: `gateway.models.list({ refresh: true })` (so each call really asks the gateway) and
 *   `gateway.chat.create(body)`, run with `Effect.forEach` (concurrency 1 or 32);
 * - umg rx: `models.list$({ refresh: true })` and `chat.create$(body)`, run with `mergeMap` (1 or 32).
 * The hand-written and SDK contenders run through one promise pool (1 or 32 lanes); each face uses its
 * own idiom for concurrency, as its users would. Every client gets the same key and `maxRetries: 0`,
 * against a fake gateway in another process over loopback (`bench/harness/fakeGateway.ts`, its CPU not
 * counted); the gateway counts the requests it answers, and a contender that made fewer requests than
 * calls (a cache) is listed under the table. Method as in `bench/text-streams.bench.ts`: CPU of the
 * worker process after a warm-up, order rotated each repetition, ratios per repetition, median (min–max).
 */
import { once } from "node:events"
import { Agent, request, type IncomingMessage } from "node:http"
import { askGateway, cpuOf, main, pool, QUICK, report, type CellResult } from "./harness/contest.js"
import { gatewayModule, rxModule } from "./harness/umg.js"
import { BENCH_API_KEY } from "./harness/fakeGateway.js"
import { chatBody, chatCompletionFixture, modelListFixture } from "./harness/fixtures.js"

const REPS = Math.max(1, Number(process.env.REQUESTS_REPS ?? (QUICK ? 2 : 5)))
// Full size warms each cell up with as many requests as it measures: umg's first 2,000 requests at 32 in flight
// cost it about twice its later ones, and fetch's first few hundred cost it more too. The figures are the
// steady state of a long-running process, for every contender alike.
const PLAN = QUICK ? { warm: 80, measured: 100 } : { warm: 2_000, measured: 2_000 }

const CONTENDERS = ["fetch", "node:http", "sdk", "effect", "rx"] as const
type Contender = (typeof CONTENDERS)[number]
const COLUMN: Record<Contender, string> = {
  fetch: "raw fetch + JSON.parse",
  "node:http": "raw node:http + JSON.parse",
  sdk: "openai SDK",
  effect: "umg Effect",
  rx: "umg rx"
}
type Call = "models" | "chat"
const CELLS: ReadonlyArray<{ readonly name: string; readonly call: Call; readonly inFlight: number }> = [
  { name: "GET /v1/models, sequential", call: "models", inFlight: 1 },
  { name: "GET /v1/models, 32 in flight", call: "models", inFlight: 32 },
  { name: "POST /v1/chat/completions, sequential", call: "chat", inFlight: 1 },
  { name: "POST /v1/chat/completions, 32 in flight", call: "chat", inFlight: 32 }
]
const ROUTE: Record<Call, string> = { models: "GET /v1/models", chat: "POST /v1/chat/completions" }

// ---- the consumers: every contender reads every answer the same way ----

interface Tally {
  value: number
}
const touchModels = (t: Tally, models: Iterable<{ readonly id: string }>): void => {
  for (const m of models) t.value += 1 + m.id.length
}
const touchChat = (
  t: Tally,
  completion: { readonly choices: ReadonlyArray<{ readonly message: { readonly content: string | null } }> }
): void => {
  t.value += completion.choices[0]?.message.content?.length ?? 0
}
const expected: Record<Call, number> = {
  models: modelListFixture(40).data.reduce((n, m) => n + 1 + m.id.length, 0),
  chat: chatCompletionFixture().choices[0]!.message.content.length
}

// ---- the contenders (worker side) ----

/** Runs `n` calls of one kind, `inFlight` at once, each adding to the tally. */
type Runner = (call: Call, n: number, inFlight: number, t: Tally) => Promise<void>

const makeContender = async (contender: Contender, baseUrl: string): Promise<Runner> => {
  const headers = { authorization: `Bearer ${BENCH_API_KEY}`, "content-type": "application/json" }
  const chatJson = JSON.stringify(chatBody)
  const pooled =
    (one: (call: Call, t: Tally) => Promise<void>): Runner =>
    (call, n, inFlight, t) =>
      pool(n, inFlight, () => one(call, t))
  switch (contender) {
    case "fetch":
      return pooled(async (call, t) => {
        const res =
          call === "models"
            ? await fetch(`${baseUrl}/v1/models`, { headers })
            : await fetch(`${baseUrl}/v1/chat/completions`, { method: "POST", headers, body: chatJson })
        if (res.status !== 200) throw new Error(`HTTP ${res.status}`)
        const json: unknown = JSON.parse(await res.text())
        if (call === "models") touchModels(t, (json as ReturnType<typeof modelListFixture>).data)
        else touchChat(t, json as ReturnType<typeof chatCompletionFixture>)
      })
    case "node:http": {
      const agent = new Agent({ keepAlive: true })
      return pooled(async (call, t) => {
        const req =
          call === "models"
            ? request(`${baseUrl}/v1/models`, { agent, headers })
            : request(`${baseUrl}/v1/chat/completions`, {
                method: "POST",
                agent,
                headers: { ...headers, "content-length": Buffer.byteLength(chatJson) }
              })
        req.end(call === "models" ? undefined : chatJson)
        const [res] = (await once(req, "response")) as [IncomingMessage]
        if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`)
        const parts: Array<Buffer> = []
        res.on("data", (b: Buffer) => parts.push(b))
        await once(res, "end")
        const json: unknown = JSON.parse(Buffer.concat(parts).toString("utf8"))
        if (call === "models") touchModels(t, (json as ReturnType<typeof modelListFixture>).data)
        else touchChat(t, json as ReturnType<typeof chatCompletionFixture>)
      })
    }
    case "sdk": {
      const { default: OpenAI } = await import("openai")
      const openai = new OpenAI({ apiKey: BENCH_API_KEY, baseURL: `${baseUrl}/v1`, maxRetries: 0 })
      return pooled(async (call, t) => {
        if (call === "models") {
          const models: Array<{ id: string }> = []
          for await (const m of openai.models.list()) models.push(m)
          touchModels(t, models)
        } else touchChat(t, await openai.chat.completions.create(chatBody))
      })
    }
    case "effect": {
      const { Effect, ManagedRuntime } = await import("effect")
      const { Gateway } = await gatewayModule()
      const runtime = ManagedRuntime.make(Gateway.layer({ baseUrl, apiKey: BENCH_API_KEY, maxRetries: 0 }))
      const gateway = await runtime.runPromise(Effect.service(Gateway))
      return (call, n, inFlight, t) =>
        runtime.runPromise(
          Effect.forEach(
            Array.from({ length: n }),
            () =>
              call === "models"
                ? Effect.map(gateway.models.list({ refresh: true }), (models) => touchModels(t, models))
                : Effect.map(gateway.chat.create(chatBody), (completion) => touchChat(t, completion)),
            { concurrency: inFlight, discard: true }
          )
        )
    }
    case "rx": {
      const { createGateway } = await rxModule()
      const { lastValueFrom, mergeMap, range, tap } = await import("rxjs")
      const gateway = createGateway({ baseUrl, apiKey: BENCH_API_KEY, maxRetries: 0 })
      return async (call, n, inFlight, t) => {
        await lastValueFrom(
          range(0, n).pipe(
            mergeMap(
              () =>
                call === "models"
                  ? gateway.models.list$({ refresh: true }).pipe(tap((models) => touchModels(t, models)))
                  : gateway.chat.create$(chatBody).pipe(tap((completion) => touchChat(t, completion))),
              inFlight
            )
          ),
          { defaultValue: undefined }
        )
      }
    }
  }
}

const runContender = async (): Promise<void> => {
  const contender = process.env.BENCH_CONTENDER as Contender
  const run = await makeContender(contender, process.env.BENCH_BASE_URL!)
  // Checks the answers were read whole: a contender that drops data is not measured.
  const calls = async (call: Call, n: number, inFlight: number) => {
    const t: Tally = { value: 0 }
    await run(call, n, inFlight, t)
    if (t.value !== expected[call] * n)
      throw new Error(`${contender} ${call}: read ${t.value}, expected ${expected[call] * n}`)
  }
  const cells: Array<CellResult> = []
  for (const cell of CELLS) {
    await calls(cell.call, PLAN.warm, cell.inFlight)
    await askGateway("/__bench/reset")
    const cpuUs = await cpuOf(() => calls(cell.call, PLAN.measured, cell.inFlight))
    const served = (await askGateway("/__bench/stats"))[ROUTE[cell.call]] ?? 0
    cells.push({ cell: cell.name, cpuUs, units: PLAN.measured, served, calls: PLAN.measured })
  }
  report({ contender, cells })
}

// ---- the bench (parent side) ----

main(
  {
    file: import.meta.url,
    name: "requests",
    title: "Requests: CPU per request (bench/requests.bench.ts)",
    reps: REPS,
    contenders: CONTENDERS,
    column: COLUMN,
    baseline: "fetch",
    sdk: "sdk",
    sdkName: "openai SDK",
    cells: CELLS.map((c) => c.name),
    unit: "request",
    plan: `${PLAN.measured} measured requests per cell after ${PLAN.warm} to warm up.`
  },
  runContender
)
