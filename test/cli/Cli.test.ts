import { existsSync, readFileSync, statSync } from "node:fs"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { bundleUmg, runUmg, type UmgRun } from "./RunUmg.js"

// One emulator and one bundle for the file; each test spawns the real command against them.
let emulator: Emulator
let umg: string
let env: Record<string, string>
const dir = mkdtempSync(join(tmpdir(), "umg-cli-test-"))
const total = () => Object.values(emulator.counters.snapshot()).reduce((a, b) => a + b, 0)

beforeAll(async () => {
  ;[emulator, umg] = await Promise.all([startEmulator({ fast: true }), bundleUmg()])
  env = {
    UMG_BASE_URL: emulator.url,
    UMG_API_KEY: emulator.apiKey,
    UMG_PLATFORM_URL: emulator.platformUrl,
    UMG_PLATFORM_USERNAME: emulator.platform.username,
    UMG_PLATFORM_PASSWORD: emulator.platform.password,
    // The emulator's tasks finish in under a second; the gateway's 5 s interval would only slow the tests.
    UMG_POLL_INTERVAL_MS: "100"
  }
}, 60_000)

afterAll(async () => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  await emulator?.close()
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  if (umg !== undefined) rmSync(umg, { force: true })
  rmSync(dir, { recursive: true, force: true })
})

describe("umg without a gateway", () => {
  it("never fakes: a command without UMG_BASE_URL exits 2 naming UMG_BASE_URL and --emulator, and sends nothing", async () => {
    const { UMG_BASE_URL: _unset, ...withoutGateway } = env
    const before = total()
    const lines = [["chat", "--model", "gpt-4o-mini", "hello there"], ["models"]]
    for (const run of await Promise.all(lines.map((args) => runUmg(umg, args, withoutGateway)))) {
      expect(run.code).toBe(2)
      expect(run.stderr).toContain("UMG_BASE_URL")
      expect(run.stderr).toContain("--emulator")
      expect(run.stdout).toBe("")
    }
    expect(total()).toBe(before)
  })

  it("checks every UMG_* variable and names it: a bad timeout, retry count or URL is exit 2", async () => {
    const bad = [
      ["UMG_TIMEOUT_MS", "abc"],
      ["UMG_MAX_RETRIES", "-1"],
      ["UMG_BASE_URL", "gateway.example.com"],
      ["UMG_POLL_INTERVAL_MS", "5"],
      ["UMG_PLATFORM_URL", "platform.example.com"],
      ["UMG_API_KEY", ""],
      ["UMG_ALLOW_UNKNOWN_MODELS", "yes"]
    ] as const
    const runs = await Promise.all(bad.map(([name, value]) => runUmg(umg, ["models"], { ...env, [name]: value })))
    runs.forEach((run, i) => {
      const [name] = bad[i]!
      expect(run.code).toBe(2)
      expect(run.stderr).toContain(name)
    })
  })
})

describe("umg platform without its settings", () => {
  it("is exit 2 naming the missing variables, and sends nothing (it was exit 1, an AuthenticationError)", async () => {
    const before = total()
    const { UMG_PLATFORM_URL: _url, UMG_PLATFORM_PASSWORD: _password, ...rest } = env
    const run = await runUmg(umg, ["platform", "login"], rest)
    expect(run.code).toBe(2)
    expect(run.stderr).toContain("platformUrl (UMG_PLATFORM_URL), platformPassword (UMG_PLATFORM_PASSWORD) not set")
    expect(total()).toBe(before)
  })
})

describe("umg against UMG_BASE_URL", () => {
  it("lists models as JSON with --json and as a table on a terminal-less stdout", async () => {
    const before = emulator.counters.get("models")
    const [json, human, embedded] = await Promise.all([
      runUmg(umg, ["models", "--json"], env),
      runUmg(umg, ["models", "--format", "messages"], env),
      runUmg(umg, ["models", "--emulator", "--json"], env)
    ])
    expect(json.code).toBe(0)
    const parsed = JSON.parse(json.stdout) as {
      format: string
      data: Array<{ id: string; object: string; owned_by: string }>
    }
    expect(parsed.format).toBe("openai")
    expect(parsed.data.map((m) => m.id)).toContain("epsilon-sonnet-4-5-20250929")
    expect(parsed.data.every((m) => m.object === "model")).toBe(true)
    expect(human.code).toBe(0)
    expect(human.stdout).toMatch(/^id\s+owned_by\s+endpoint/)
    expect(human.stdout).toContain("/v1/messages")
    // Against a configured gateway the command does not mention an emulator; --emulator overrides it.
    expect(json.stderr).not.toContain("embedded emulator")
    expect(embedded.code).toBe(0)
    expect(embedded.stderr).toContain("using an embedded emulator")
    expect(emulator.counters.get("models") - before).toBe(2)
  })

  it("streams a messages reply and answers a zeta model with thinking on the native endpoint", async () => {
    const before = emulator.counters.snapshot()
    const [messages, native] = await Promise.all([
      runUmg(umg, ["chat", "-m", "epsilon-sonnet-4-5-20250929", "Say hello"], env),
      runUmg(umg, ["chat", "-m", "zeta-2.5-pro", "--thinking", "1024", "--json", "Say hello"], env)
    ])
    expect(messages.code).toBe(0)
    expect(messages.stdout.trim().length).toBeGreaterThan(0)
    expect(messages.stderr).toMatch(/\[messages\] stop=end_turn .*output_tokens=\d+/)
    expect(native.code).toBe(0)
    const reply = JSON.parse(native.stdout) as { family: string; text: string; thinking: string; stop: string }
    expect(reply).toMatchObject({ family: "native", stop: "STOP" })
    expect(reply.text.length).toBeGreaterThan(0)
    expect(reply.thinking.length).toBeGreaterThan(0)
    const after = emulator.counters.snapshot()
    expect((after["messages"] ?? 0) - (before["messages"] ?? 0)).toBe(1)
  })

  it("rejects an invalid video request with exit 2, naming the field and the allowed values, and sends nothing", async () => {
    const before = total()
    const [human, json] = await Promise.all([
      runUmg(umg, ["video", "-m", "delta-1-5-pro-251215", "--prompt", "a fox", "--resolution", "1080p"], env),
      runUmg(umg, ["speak", "-m", "gpt-4o-mini-tts", "--voice", "bob", "-o", join(dir, "x.mp3"), "--json", "hi"], env)
    ])
    expect(human.code).toBe(2)
    expect(human.stderr).toContain("resolution")
    expect(human.stderr).toContain("allowed: 480p, 720p")
    expect(json.code).toBe(2)
    // The voice is one of a fixed set: the command line itself is refused, naming the flag.
    const error = (
      JSON.parse(json.stderr.trim().split("\n").pop()!) as { error: { field: string; type: string; message: string } }
    ).error
    expect(error).toMatchObject({ type: "UsageError", field: "--voice" })
    expect(error.message).toContain("alloy")
    expect(total()).toBe(before)
    expect(existsSync(join(dir, "x.mp3"))).toBe(false)
  })

  it("prints the delta body with marker flags on --dry-run without a request", async () => {
    const before = total()
    const run = await runUmg(
      umg,
      [
        "video",
        "-m",
        "delta-1-5-pro-251215",
        "--prompt",
        "a fox",
        "--duration",
        "6",
        "--aspect-ratio",
        "9:16",
        "--seed",
        "7",
        "--dry-run",
        "--json"
      ],
      env
    )
    expect(run.code).toBe(0)
    const out = JSON.parse(run.stdout) as {
      dryRun: boolean
      body: { prompt: string; metadata: { content: Array<{ type: string; text?: string }> } }
    }
    expect(out.dryRun).toBe(true)
    expect(out.body.metadata.content[0]?.text).toMatch(/^a fox .*--ratio 9:16.*--dur 6.*--seed 7/)
    expect(total()).toBe(before)
  })

  it("generates a video with progress on stderr and writes it; status and download act on the task", async () => {
    const out = join(dir, "boat.mp4")
    const run = await runUmg(
      umg,
      ["video", "-m", "gamma2.5-t2v-preview", "--prompt", "a boat", "--timeout", "60", "-o", out, "--json"],
      env
    )
    expect(run.code).toBe(0)
    const result = JSON.parse(run.stdout) as {
      task: { task_id: string; status: string }
      polls: number
      saved: { bytes: number; source: string }
    }
    expect(result.task.status).toBe("succeeded")
    expect(result.saved.source).toBe("url")
    expect(statSync(out).size).toBe(result.saved.bytes)
    expect(run.stderr).toMatch(/video_\S+\s+succeeded\s+.*polls \d+/)
    const copy = join(dir, "copy.mp4")
    const [status, download] = await Promise.all([
      runUmg(umg, ["video", "status", result.task.task_id, "--json"], env),
      runUmg(umg, ["video", "download", result.task.task_id, "-o", copy], env)
    ])
    expect(status.code).toBe(0)
    expect(JSON.parse(status.stdout)).toMatchObject({ task_id: result.task.task_id, status: "succeeded" })
    expect(download.code).toBe(0)
    expect(readFileSync(copy).equals(readFileSync(out))).toBe(true)
  })

  it("embeds lines from a file as ordered JSON lines with a progress bar on stderr", async () => {
    const file = join(dir, "lines.txt")
    writeFileSync(file, "alpha\n\nbeta\ngamma\n")
    const run = await runUmg(
      umg,
      ["embed", "-m", "text-embedding-3-small", "--dimensions", "8", "--concurrency", "2", "--file", file],
      env
    )
    expect(run.code).toBe(0)
    const lines = run.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { index: number; input: string; dimensions: number })
    expect(lines.map((l) => [l.index, l.input, l.dimensions])).toEqual([
      [0, "alpha", 8],
      [1, "beta", 8],
      [2, "gamma", 8]
    ])
    expect(run.stderr).toContain("3/3")

    // Away from a terminal the bar is a line every few seconds and the last, not a line per input.
    const many = join(dir, "many.txt")
    writeFileSync(many, Array.from({ length: 300 }, (_, i) => `line ${i}`).join("\n"))
    const started = Date.now()
    const long = await runUmg(umg, ["embed", "-m", "text-embedding-3-small", "--file", many], env)
    expect(long.code).toBe(0)
    const bars = long.stderr.split("\n").filter((l) => l.startsWith("embedding "))
    expect(bars.at(-1)).toContain("300/300")
    expect(bars.length).toBeLessThanOrEqual(2 + Math.ceil((Date.now() - started) / 5_000))

    // An input's error says where it came from (TEXT n, or the line of the file, blank lines
    // counted); one about the model is every input's and names none of them.
    const before = total()
    const [emptyText, badModel] = await Promise.all([
      runUmg(umg, ["embed", "-m", "text-embedding-3-small", "--json", "--file", file, "fox", ""], env),
      runUmg(umg, ["embed", "-m", "nope", "--json", "--file", file], env)
    ])
    expect([emptyText.code, badModel.code]).toEqual([2, 2])
    expect(JSON.parse(emptyText.stderr.trim()) as unknown).toMatchObject({
      error: { field: "input[1]", rule: "non-empty", message: "TEXT 2: input must not be empty" }
    })
    const refused = (JSON.parse(badModel.stderr.trim()) as { error: { field: string; message: string } }).error
    expect(refused.field).toBe("model")
    expect(refused.message).toMatch(/^model: "nope" is not a model/)
    expect(total()).toBe(before)
  })

  it("reads the prompt or text from standard input for - (chat, tokens, speak, image), and --file - as the lines to embed", async () => {
    const prompt = "Count the tokens of this prompt, read from a pipe, as of the same text given as an argument."
    const tokens = (arg: string, input?: string) =>
      runUmg(umg, ["tokens", "-m", "epsilon-sonnet-4-5-20250929", "--json", arg], env, input)
    // Speech lasts longer for a longer text: the same length from the pipe as from the argument.
    const text = "Read this sentence aloud, from standard input."
    const [spokenPiped, spokenGiven] = [join(dir, "piped.mp3"), join(dir, "given.mp3")]
    const speak = (out: string, arg: string, input?: string) =>
      runUmg(umg, ["speak", "-m", "tts-1", "--voice", "alloy", "-o", out, arg], env, input)
    // Independent commands: run side by side.
    const [piped, given, dash, ...rest] = await Promise.all([
      tokens("-", prompt),
      tokens(prompt),
      tokens("-", "-"),
      speak(spokenPiped, "-", text),
      speak(spokenGiven, text),
      runUmg(umg, ["image", "-m", "zeta-2.5-flash-image", "-o", join(dir, "piped.png"), "-"], env, "a cat"),
      runUmg(umg, ["chat", "-m", "gpt-4o-mini", "-"], env, "Say hello\n"),
      runUmg(umg, ["embed", "-m", "text-embedding-3-small", "--dimensions", "4", "--file", "-"], env, "one\n\ntwo\n")
    ])
    const [spokenFromPipe, spokenFromArg, drawn, chat, lines] = rest as [UmgRun, UmgRun, UmgRun, UmgRun, UmgRun]
    expect([piped.code, given.code]).toEqual([0, 0])
    const count = (run: { stdout: string }) => (JSON.parse(run.stdout) as { input_tokens: number }).input_tokens
    expect(count(piped)).toBe(count(given))
    // A different text counts differently: the pipe's text is what was sent, not "-".
    expect(count(dash)).not.toBe(count(piped))

    expect([spokenFromPipe, spokenFromArg].map((r) => r.code)).toEqual([0, 0])
    expect(statSync(spokenPiped).size).toBe(statSync(spokenGiven).size)
    expect(drawn.code).toBe(0)

    expect(chat.code).toBe(0)
    expect(chat.stdout.trim().length).toBeGreaterThan(0)

    expect(lines.code).toBe(0)
    expect(
      lines.stdout
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as { input: string }).input)
    ).toEqual(["one", "two"])
  })

  it("embeds lines from standard input without its byte-order mark, refuses --concurrency past 1000, reranks with a --top-n above the documents", async () => {
    const before = total()
    const [piped, tooMany, ranked] = await Promise.all([
      runUmg(
        umg,
        ["embed", "-m", "text-embedding-3-small", "--dimensions", "4", "--file", "-"],
        env,
        "\uFEFFone\ntwo\n"
      ),
      runUmg(umg, ["embed", "-m", "text-embedding-3-small", "--json", "--concurrency", "5000", "fox"], env),
      runUmg(umg, ["rerank", "-m", "rerank-v1", "-q", "fox", "--top-n", "5", "--json", "a dog", "a fox"], env)
    ])
    expect([piped.code, tooMany.code, ranked.code]).toEqual([0, 2, 0])
    const inputs = piped.stdout
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { input: string }).input)
    expect(inputs).toEqual(["one", "two"])
    expect(JSON.parse(tooMany.stderr.trim())).toMatchObject({
      error: { field: "--concurrency", rule: "range", message: expect.stringContaining("from 1 to 1000") as unknown }
    })
    expect((JSON.parse(ranked.stdout) as { results: Array<{ index: number }> }).results.map((r) => r.index)).toEqual([
      1, 0
    ])
    // Two embeddings and one rerank: the refused command sent nothing.
    expect(total() - before).toBe(3)
  })

  it("refuses standard input that is empty or over 16 MiB, and an empty argument, exit 2 naming PROMPT, and sends nothing", async () => {
    const before = total()
    // An empty argument is refused as empty input is (it was sent).
    const blanks = [
      [["chat", "-m", "gpt-4o-mini", "--json", " "], "PROMPT"],
      [["tokens", "-m", "epsilon-sonnet-4-5-20250929", "--json", ""], "PROMPT"]
    ] as const
    const [empty, huge, ...blankRuns] = await Promise.all([
      runUmg(umg, ["chat", "-m", "gpt-4o-mini", "--json", "-"], env, " \n"),
      runUmg(umg, ["chat", "-m", "gpt-4o-mini", "-"], env, new Uint8Array(16 * 1024 * 1024 + 1).fill(97)),
      ...blanks.map(([command]) => runUmg(umg, command, env))
    ])
    expect(empty.code).toBe(2)
    expect(JSON.parse(empty.stderr.trim()) as unknown).toMatchObject({ error: { field: "PROMPT", rule: "required" } })
    expect(huge.code).toBe(2)
    expect(huge.stderr).toContain("PROMPT: standard input is larger than 16777216 bytes")
    blankRuns.forEach((blank, i) => {
      const [command, field] = blanks[i]!
      expect(blank.code, command.join(" ")).toBe(2)
      expect(JSON.parse(blank.stderr.trim()) as unknown).toMatchObject({ error: { field, rule: "required" } })
    })
    expect(total()).toBe(before)
  })

  it("refuses platform shoot without content, or with part of advanced mode, naming the flags, and sends nothing", async () => {
    const before = total()
    const shoot = (...flags: Array<string>) =>
      runUmg(umg, ["platform", "shoot", "--json", "--size", "1024x1024", ...flags], env)
    const [bare, partial, missingFile] = await Promise.all([
      shoot(),
      shoot("--product-image", "https://x.test/p.png", "--template-mask", "https://x.test/m.png"),
      shoot("--text", "on a beach", "--image", "https://x.test/a.png", "--image", join(dir, "absent.png"))
    ])
    const error = (run: { stderr: string }) =>
      (JSON.parse(run.stderr.trim()) as { error: { field: string; rule: string; message: string } }).error
    expect([bare.code, partial.code, missingFile.code]).toEqual([2, 2, 2])
    expect(error(bare)).toMatchObject({ field: "--text", rule: "required" })
    expect(error(bare).message).toContain("--image")
    expect(error(partial)).toMatchObject({ field: "--product-mask", rule: "required" })
    expect(error(partial).message).toMatch(
      /^--product-mask, --template-image: missing;.*given: --product-image, --template-mask/
    )
    // The second image is the third part: the text comes first.
    expect(error(missingFile).field).toBe("contents[0].parts[2].image")
    expect(total()).toBe(before)
  })

  it("answers tokens, rerank, speak, image, realtime and platform commands with --json", async () => {
    const audio = join(dir, "hello.wav")
    const image = join(dir, "cat.png")
    const runs = await Promise.all([
      runUmg(umg, ["tokens", "-m", "epsilon-sonnet-4-5-20250929", "--json", "count me"], env),
      runUmg(umg, ["rerank", "-m", "rerank-v1", "-q", "fox", "--json", "a dog", "a fox"], env),
      runUmg(
        umg,
        ["speak", "-m", "gpt-4o-mini-tts", "--voice", "nova", "--format", "wav", "-o", audio, "--json", "hello"],
        env
      ),
      runUmg(umg, ["image", "-m", "zeta-2.5-flash-image", "--size", "16:9", "-o", image, "--json", "a cat"], env),
      runUmg(umg, ["realtime", "-m", "gpt-realtime-2", "--json", "hello"], env),
      runUmg(umg, ["platform", "login", "--json"], env),
      runUmg(
        umg,
        ["platform", "text-to-video", "-m", "delta-1-0-pro-250528", "--prompt", "a kite", "--duration", "5", "--json"],
        env
      )
    ])
    expect(runs.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0, 0])
    const [tokens, rerank, speak, img, realtime, login, t2v] = runs.map(
      (r) => JSON.parse(r.stdout) as Record<string, unknown>
    )
    expect(tokens?.["input_tokens"]).toBeGreaterThan(0)
    expect((rerank?.["results"] as Array<{ index: number }>)[0]?.index).toBe(1)
    expect(statSync(audio).size).toBe(speak?.["bytes"])
    expect(statSync(image).size).toBe(img?.["bytes"])
    // The emulator answers bare b64_json: the type is read from the PNG's signature.
    expect(img?.["mimeType"]).toBe("image/png")
    expect(realtime).toMatchObject({ version: "v2", status: "completed" })
    expect(String(realtime?.["text"]).length).toBeGreaterThan(0)
    expect(login).toMatchObject({ loggedIn: true })
    // The token itself is a credential: only its length is shown.
    expect(runs[5]!.stdout).not.toMatch(/Bearer/)
    expect(String(t2v?.["task_id"])).not.toBe("")
  })

  it("reports a gateway failure with exit 1, its type, status and request id, and never the key", async () => {
    const secret = "sk-umg-test-secret-4242"
    emulator.inject("messages", { kind: "sse-cut", afterEvents: 4 })
    const [run, cut] = await Promise.all([
      runUmg(umg, ["models"], { ...env, UMG_API_KEY: secret }),
      runUmg(umg, ["chat", "-m", "epsilon-haiku-4-5-20251001", "hello"], env)
    ])
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(/AuthenticationError \(status 401.*request id \S+/)
    expect(run.stdout + run.stderr).not.toContain(secret)
    // A stream cut in the middle is a failure, not a short answer.
    expect(cut.code).toBe(1)
    expect(cut.stderr).toContain("IncompleteStream")
  })
})

describe("umg and model ids the catalog does not list", () => {
  it("refuses one (exit 2, naming the flag and the variable, nothing sent) and sends it with --allow-unknown-models or UMG_ALLOW_UNKNOWN_MODELS=1", async () => {
    const before = total()
    const [refused, refusedJson] = await Promise.all([
      runUmg(umg, ["chat", "-m", "gpt-9-turbo", "hello"], env),
      runUmg(umg, ["tokens", "-m", "epsilon-opus-9", "--json", "hello"], env)
    ])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain("rule unknown-model")
    expect(refused.stderr).toContain("--allow-unknown-models")
    expect(refused.stderr).toContain("UMG_ALLOW_UNKNOWN_MODELS=1")
    expect(refusedJson.code).toBe(2)
    expect(refusedJson.stderr).toContain("--allow-unknown-models")
    expect(total()).toBe(before)

    // Sent: the emulator, which does not know these models either, answers chat with 404 (exit 1);
    // counting tokens takes any model.
    const flagged = await runUmg(umg, ["chat", "-m", "gpt-9-turbo", "--allow-unknown-models", "hello"], env)
    expect(flagged.code).toBe(1)
    expect(flagged.stderr).toContain("status 404")
    expect(total()).toBe(before + 1)
    const fromEnv = await runUmg(umg, ["tokens", "-m", "epsilon-opus-9", "hello"], {
      ...env,
      UMG_ALLOW_UNKNOWN_MODELS: "1"
    })
    expect(fromEnv.code, fromEnv.stderr).toBe(0)
    expect(fromEnv.stdout).toContain("input tokens")
    expect(total()).toBe(before + 2)
  })
})

describe("umg demo", () => {
  it("runs every step against its own embedded emulator and ends with the summary table", async () => {
    const out = join(dir, "demo")
    const run = await runUmg(umg, ["demo", "--out", out])
    expect(run.stderr).toContain("embedded emulator")
    const table = run.stdout.slice(run.stdout.lastIndexOf("step  "))
    for (const step of [
      "models",
      "messages stream",
      "native stream with thinking",
      "chat + responses",
      "embeddings",
      "rerank",
      "speech + image",
      "delta video",
      "alpha video download",
      "realtime",
      "platform",
      "rejected request"
    ]) {
      expect(table).toContain(step)
    }
    expect(run.stdout).toMatch(/12 ok, 0 failed/)
    expect(run.stdout).toContain("nothing was sent ✓")
    expect(run.code).toBe(0)
    expect(statSync(join(out, "delta.mp4")).size).toBeGreaterThan(0)
    expect(statSync(join(out, "alpha.mp4")).size).toBeGreaterThan(0)
  }, 90_000)
})

describe("umg output files and ports", () => {
  it("checks the output path before paying for speech or an image, and writes to stdout with -o -", async () => {
    // A path under a regular file can never be written: its "folder" is a file.
    const blocker = join(dir, "not-a-folder.txt")
    writeFileSync(blocker, "x")
    const before = total()
    const lines = [
      ["speak", "--model", "gpt-4o-mini-tts", "--voice", "alloy", "-o", join(blocker, "out.mp3"), "hello"],
      ["image", "--model", "zeta-2.5-flash-image", "-o", join(blocker, "out.png"), "a fox"]
    ]
    for (const run of await Promise.all(lines.map((args) => runUmg(umg, args, env)))) {
      expect(run.code).toBe(2)
      expect(run.stderr).toContain("output")
    }
    expect(total()).toBe(before)
    const toStdout = await runUmg(
      umg,
      ["speak", "--model", "gpt-4o-mini-tts", "--voice", "alloy", "--format", "wav", "-o", "-", "hello"],
      env
    )
    expect(toStdout.code).toBe(0)
    expect(toStdout.stdout.startsWith("RIFF")).toBe(true)
    expect(toStdout.stderr).toContain("to stdout")
    expect(existsSync(join(process.cwd(), "-"))).toBe(false)
  })

  it("says in one line, exit 2, that the emulator's port is busy", async () => {
    const busy = await runUmg(umg, ["emulator", "--port", String(emulator.port)], env)
    expect(busy.code).toBe(2)
    expect(
      busy.stderr
        .trim()
        .split("\n")
        .filter((l) => l.trim() !== "").length
    ).toBeLessThanOrEqual(2)
    expect(busy.stderr).toContain("already in use")
    expect(busy.stderr).not.toContain("    at ")
    // A host that is no address of this machine is the host's fault, not the port's.
    const host = await runUmg(umg, ["emulator", "--host", "999.1.1.1", "--port", "0"], env)
    expect(host.code).toBe(2)
    expect(host.stderr).toContain("field host, rule listen")
    expect(host.stderr).toContain("host: cannot listen on 999.1.1.1:0")
  })
})

describe("umg help", () => {
  it("is plain text wrapped to 80 columns when piped, with usage lines written `umg <command>` and the exit codes", async () => {
    const { NO_COLOR: _n, ...colourable } = { ...env, NO_COLOR: "" }
    const helps = [["--help"], ["speak", "--help"], ["video", "--help"]]
    const runs = await Promise.all(helps.map((args) => runUmg(umg, args, colourable)))
    for (const run of runs) {
      expect(run.code).toBe(0)
      // eslint-disable-next-line no-control-regex -- no ANSI escape (ESC [) may reach a pipe
      expect(run.stdout).not.toMatch(/\u001b\[/)
      for (const line of run.stdout.split("\n")) expect(line.length, line).toBeLessThanOrEqual(80)
      expect(run.stdout).not.toMatch(/^\$ /m)
    }
    const [top, speak] = runs as [UmgRun, UmgRun, UmgRun]
    expect(top.stdout).toContain("Exit codes: 0 ok, 1 gateway or task failure, 2 usage or configuration, 130")
    expect(speak.stdout).toMatch(/^umg speak /m)
  })
})

describe("umg help text", () => {
  it("names no spec codes (E2, E7, …) a user does not know", async () => {
    const helps = [
      ["--help"],
      ["platform", "--help"],
      ["video", "--help"],
      ["video", "get", "--help"],
      ["platform", "token", "--help"]
    ]
    for (const run of await Promise.all(helps.map((args) => runUmg(umg, args, env))))
      expect(run.stdout).not.toMatch(/\bE\d{1,2}\b/)
  })
})

describe("umg video --timeout", () => {
  it("names the flag and the allowed forms for a bad value, and is the whole command's deadline", async () => {
    const bad = await runUmg(
      umg,
      ["video", "-m", "beta-3.1-fast-generate-001", "--prompt", "a calm sea", "--timeout", "soon"],
      env
    )
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain("--timeout")
    expect(bad.stderr).toContain("90s")
    // A slow emulator task (20 s) against a 3 s deadline: the command ends long before the task
    // would (its process start-up alone can take seconds on a loaded machine), failed, naming the
    // task it submitted (paid for, and still running) and how to follow it.
    const slow = await startEmulator({ video: { queuedMs: 10_000, inProgressMs: 10_000 } })
    try {
      const started = Date.now()
      const run = await runUmg(
        umg,
        ["video", "-m", "beta-3.1-fast-generate-001", "--prompt", "a calm sea", "--timeout", "3s"],
        { ...env, UMG_BASE_URL: slow.url, UMG_API_KEY: slow.apiKey }
      )
      expect(run.code).toBe(1)
      expect(run.stderr).toMatch(/did not finish within its --timeout of 3000 ms/)
      const id = /task (\S+) was submitted: follow it with umg video status \1,/.exec(run.stderr)?.[1]
      expect(id).toBeDefined()
      expect(run.stderr).toContain(`task ${id!}`)
      expect(Date.now() - started).toBeLessThan(10_000)
    } finally {
      await slow.close()
    }
  })
})

describe("umg help examples", () => {
  it("gives each command one example, written as it is typed", async () => {
    const examples = [
      [["chat", "--help"], "Example: umg chat -m gpt-4o-mini"],
      [["video", "status", "--help"], "Example: umg video status"],
      [["speak", "--help"], "Example: umg speak -m gpt-4o-mini-tts"]
    ] as const
    const [status, ...runs] = await Promise.all([
      runUmg(umg, ["video", "status", "--help"], env),
      ...examples.map(([args]) => runUmg(umg, [...args], env))
    ])
    runs.forEach((run, i) => expect(run.stdout.replace(/\s+/g, " ")).toContain(examples[i]![1]))
    expect(status.stdout).toMatch(/^umg video status /m)
  })

  it("runs the chat example as written, against the emulator", async () => {
    const run = await runUmg(umg, ["chat", "-m", "gpt-4o-mini", "Say hello"], env)
    expect(run.code).toBe(0)
    expect(run.stdout.trim().length).toBeGreaterThan(0)
  })
})
