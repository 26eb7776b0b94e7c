import { rmSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { umgSpec } from "../../src/cli/Commands.js"
import { check, type CommandSpec, type FlagSpec } from "../../src/cli/support/UsageError.js"
import { bundleUmg, runUmg, type UmgRun } from "./RunUmg.js"

// Every run here is refused while parsing: nothing reaches a gateway, so none is configured.
let umg: string

beforeAll(async () => {
  umg = await bundleUmg()
}, 60_000)

afterAll(() => {
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- unset when beforeAll failed before assigning it
  if (umg !== undefined) rmSync(umg, { force: true })
})

/**
 * Runs many command lines, eight at a time (each is a Node process): the next line starts as soon as
 * one ends, rather than when the slowest of a group of eight has. The runs in the order of the lines.
 */
const runAll = async (lines: ReadonlyArray<ReadonlyArray<string>>): Promise<ReadonlyArray<UmgRun>> => {
  const runs: Array<UmgRun> = []
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < lines.length) {
      const i = next++
      runs[i] = await runUmg(umg, lines[i]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(8, lines.length) }, worker))
  return runs
}

/** A refused command line: exit 2, nothing on stdout, one line on stderr and no stack trace. */
const expectUsageError = (run: UmgRun, args: ReadonlyArray<string>): string => {
  const what = `umg ${args.join(" ")} → ${run.stderr}`
  expect(run.code, what).toBe(2)
  expect(run.stdout, what).toBe("")
  expect(run.stderr.trim().split("\n"), what).toHaveLength(1)
  expect(run.stderr, what).not.toMatch(/^\s+at /m)
  return run.stderr.trim()
}

const every = (spec: CommandSpec): ReadonlyArray<CommandSpec> => [spec, ...spec.children.flatMap(every)]
const commands = every(umgSpec).filter((c) => c !== umgSpec)
const words = (c: CommandSpec) => c.path.split(" ").slice(1)
const long = (f: FlagSpec) => f.names[f.names.length - 1]!
const flagsOf = (value: string) =>
  commands.flatMap((c) => c.flags.filter((f) => f.value === value).map((f) => [c, f] as const))

// Each test spawns up to dozens of umg processes, eight at a time: about 2 s each on a loaded 2-core
// machine, so they get more than the suite's default 30 s (what they check does not depend on time).
describe("umg command-line errors", { timeout: 120_000 }, () => {
  it("names a choice option and lists its allowed values: umg video --resolution 9000p", async () => {
    const args = ["video", "--resolution", "9000p", "x"]
    const message = expectUsageError(await runUmg(umg, args), args)
    expect(message).toContain("--resolution")
    expect(message).toContain("9000p")
    expect(message).toContain("allowed: 480p, 720p, 1080p, 4k")
  })

  it("names an integer option and says an integer is expected: umg chat --max-tokens abc", async () => {
    const args = ["chat", "--max-tokens", "abc", "hi"]
    const message = expectUsageError(await runUmg(umg, args), args)
    expect(message).toContain("--max-tokens")
    expect(message).toContain("integer")
  })

  it("names an unknown flag and suggests the nearest known one: umg chat --temprature", async () => {
    const args = ["chat", "--temprature", "0.2", "hi"]
    const message = expectUsageError(await runUmg(umg, args), args)
    expect(message).toContain("--temprature")
    expect(message).toContain("did you mean --temperature?")
  })

  it("names a missing argument and shows the command's usage line", async () => {
    const args = ["chat", "-m", "gpt-4o-mini"]
    const message = expectUsageError(await runUmg(umg, args), args)
    expect(message).toContain("<PROMPT>")
    expect(message).toMatch(/usage: umg chat --model <text> \[options\] <PROMPT>/)
  })

  it("names the flag and every allowed value for a bad value of each choice option of each command", async () => {
    const choices = flagsOf("choice")
    // The fixed sets of the contract are choices, not free text.
    expect(choices.map(([c, f]) => `${c.path} ${long(f)}`)).toEqual(
      expect.arrayContaining([
        "umg speak --voice",
        "umg speak --format",
        "umg video --resolution",
        "umg video --aspect-ratio",
        "umg models --format",
        "umg platform text-to-video --duration"
      ])
    )
    const lines = choices.map(([c, f]) => [...words(c), long(f), "no-such-value"])
    const runs = await runAll(lines)
    runs.forEach((run, i) => {
      const [command, flag] = choices[i]!
      const message = expectUsageError(run, lines[i]!)
      expect(message).toContain(`${command.path}: ${long(flag)}`)
      expect(message).toContain(`allowed: ${flag.choices.join(", ")}`)
    })
  })

  it("names the flag and the expected type for a bad value of each integer and number option of each command", async () => {
    const numbers = [...flagsOf("integer"), ...flagsOf("float")]
    expect(numbers.map(([c, f]) => `${c.path} ${long(f)}`)).toEqual(
      expect.arrayContaining([
        "umg chat --max-tokens",
        "umg chat --temperature",
        "umg embed --concurrency",
        "umg rerank --top-n",
        "umg speak --speed",
        "umg video --seed",
        "umg emulator --port"
      ])
    )
    const lines = numbers.map(([c, f]) => [...words(c), long(f), "abc"])
    const runs = await runAll(lines)
    runs.forEach((run, i) => {
      const [command, flag] = numbers[i]!
      const message = expectUsageError(run, lines[i]!)
      expect(message).toContain(`${command.path}: ${long(flag)}`)
      expect(message).toContain(flag.value === "integer" ? "expects an integer" : "expects a number")
    })
  })

  it("names a misspelt flag of each command and suggests the flag meant", async () => {
    const withFlags = commands.filter((c) => c.flags.length > 0)
    // The command's longest flag with its first two different neighbouring letters swapped:
    // `--max-tokens` → `--mxa-tokens`, `--allow-unknown-models` → `--lalow-unknown-models`.
    const meant = withFlags.map((c) => c.flags.map(long).reduce((a, b) => (b.length > a.length ? b : a)))
    const swapped = (f: string): string => {
      let i = 2
      while (f[i] === f[i + 1]) i++
      return `${f.slice(0, i)}${f[i + 1]}${f[i]}${f.slice(i + 2)}`
    }
    const typos = meant.map(swapped)
    const lines = withFlags.map((c, i) => [...words(c), typos[i]!])
    const runs = await runAll(lines)
    runs.forEach((run, i) => {
      const message = expectUsageError(run, lines[i]!)
      expect(message).toContain(`unknown flag ${typos[i]}`)
      expect(message).toContain(`did you mean ${meant[i]}?`)
    })
  })

  it("names what is missing and shows the usage line of each command that requires a flag or an argument", async () => {
    const requiring = commands.filter((c) => c.flags.some((f) => f.required) || c.args.some((a) => !a.repeated))
    expect(requiring.map((c) => c.path)).toEqual(
      expect.arrayContaining([
        "umg chat",
        "umg speak",
        "umg rerank",
        "umg video status",
        "umg video download",
        "umg platform text-to-video"
      ])
    )
    const runs = await runAll(requiring.map(words))
    runs.forEach((run, i) => {
      const command = requiring[i]!
      const message = expectUsageError(run, words(command))
      const required = [
        ...command.flags.filter((f) => f.required).map(long),
        ...command.args.filter((a) => !a.repeated).map((a) => a.name)
      ]
      expect(message).toMatch(new RegExp(`^${command.path}: missing required (flag|argument) `))
      expect(
        required.some((name) => message.includes(name)),
        message
      ).toBe(true)
      expect(message).toContain(`usage: ${command.path} `)
    })
  })

  it("refuses an argument a command does not take, and an unknown command or subcommand, naming it", async () => {
    const lines = [
      ["chat", "-m", "gpt-4o-mini", "two", "words"],
      ["video", "-m", "delta-1-5-pro-251215", "a fox"],
      ["chta", "hi"],
      ["platform", "shot"]
    ]
    const [extra, prompt, command, subcommand] = (await runAll(lines)).map((run, i) => expectUsageError(run, lines[i]!))
    expect(extra).toContain('unexpected argument "words"')
    expect(prompt).toContain("--prompt")
    expect(command).toContain('unknown command "chta"; did you mean chat?')
    expect(subcommand).toContain('unknown subcommand "shot"; did you mean shoot?')
  })

  it("refuses a flag given twice, and a flag without its value, naming the flag", async () => {
    const lines = [
      ["chat", "-m", "a", "-m", "b", "hi"],
      ["speak", "-m", "gpt-4o-mini-tts", "-o", "x.mp3", "--voice"]
    ]
    const [twice, bare] = (await runAll(lines)).map((run, i) => expectUsageError(run, lines[i]!))
    expect(twice).toContain("--model is given more than once")
    expect(bare).toContain("--voice needs a value: one of alloy, echo, fable, onyx, nova, shimmer")
  })

  it("refuses an unknown flag where @effect/cli would take it for the argument, and takes text after -- as it is", async () => {
    const lines = [
      ["chat", "-m", "gpt-4o-mini", "--zzz"],
      ["video", "status", "--eumlator"],
      ["chat", "--emulator", "-m", "gpt-4o-mini", "--", "--not-a-flag"]
    ]
    const [unknown, misspelt, dashed] = await runAll(lines)
    expect(expectUsageError(unknown!, lines[0]!)).toContain(
      "unknown flag --zzz; umg chat takes --json, --emulator, --model"
    )
    expect(expectUsageError(misspelt!, lines[1]!)).toContain("unknown flag --eumlator; did you mean --emulator?")
    expect(dashed!.code, dashed!.stderr).toBe(0)
    expect(dashed!.stdout.trim()).not.toBe("")
  })

  it("refuses --wizard without a terminal (the runs here are piped) instead of prompting into the output", async () => {
    const lines = [["chat", "--wizard"], ["--wizard"]]
    const [chat, top] = (await runAll(lines)).map((run, i) => expectUsageError(run, lines[i]!))
    expect(chat).toBe(
      "umg chat: --wizard asks its questions on a terminal, and stdin or stdout is not one: give the flags on the command line (--help lists them)"
    )
    expect(top).toContain("umg: --wizard asks its questions on a terminal")
  })

  it("writes the error as one JSON line under --json, with the flag as its field", async () => {
    const args = ["speak", "--json", "--format", "ogg"]
    const run = await runUmg(umg, args)
    expectUsageError(run, args)
    const { error } = JSON.parse(run.stderr) as {
      error: { exitCode: number; type: string; field: string; rule: string; message: string }
    }
    expect(error).toMatchObject({ exitCode: 2, type: "UsageError", field: "--format", rule: "one-of" })
    expect(error.message).toContain("allowed: mp3, opus, aac, flac, wav, pcm")
  })
})

describe("check", () => {
  it("accepts the command lines umg runs: inline values, booleans with a value, -o -, --, options before and after arguments", () => {
    for (const line of [
      ["chat", "-m", "gpt-4o-mini", "--max-tokens=64", "--temperature", "-0.5", "Say hello"],
      ["chat", "Say hello", "--model", "gpt-4o-mini", "--json", "true"],
      ["chat", "-m", "gpt-4o-mini", "- a list, please"],
      ["chat", "-m", "gpt-4o-mini", "--", "--literally"],
      ["--log-level", "debug", "models", "--format", "messages"],
      ["speak", "-m", "gpt-4o-mini-tts", "--voice", "nova", "--format", "wav", "-o", "-", "hello"],
      ["rerank", "-m", "rerank-v1", "-q", "fox", "a dog", "a fox"],
      ["embed", "-m", "text-embedding-3-small"],
      [
        "video",
        "-m",
        "delta-1-5-pro-251215",
        "--prompt",
        "a fox",
        "--resolution",
        "720p",
        "--aspect-ratio",
        "9:16",
        "--reference",
        "a.png",
        "--reference",
        "b.png",
        "--dry-run"
      ],
      ["video", "download", "video_1", "-o", "out.mp4"],
      ["platform", "text-to-video", "-m", "delta-1-0-pro-250528", "--prompt", "a kite", "--duration", "5"],
      ["platform", "shoot", "--image", "a.png", "--image", "b.png"],
      ["emulator", "--port", "0", "--fast"],
      ["chat", "--help"],
      ["--completions", "bash"],
      []
    ]) {
      expect(check(umgSpec, line), line.join(" ")).toBeUndefined()
    }
  })

  it("says where a subcommand's flag goes when it is given before the subcommand, which effect/cli refuses", () => {
    const problem = (line: ReadonlyArray<string>) => {
      const seen = check(umgSpec, line)
      return seen === undefined ? undefined : { field: seen.field, rule: seen.rule, message: seen.message }
    }
    expect(problem(["video", "--emulator", "status", "vid_1"])).toEqual({
      field: "--emulator",
      rule: "unknown-flag",
      message: "umg video status: --emulator goes after the subcommand: umg video status --emulator ..."
    })
    expect(problem(["platform", "--json=true", "login"])?.message).toBe(
      "umg platform login: --json goes after the subcommand: umg platform login --json ..."
    )
    // A flag of the parent only: the subcommand's own flags are listed.
    expect(problem(["video", "-m", "delta-1-0-pro-250528", "status", "vid_1"])?.message).toBe(
      "umg video status: -m is a flag of umg video, not of umg video status; umg video status takes --json, --emulator (see umg video status --help)"
    )
    expect(problem(["video", "--bogus", "status", "vid_1"])?.message).toContain("unknown flag --bogus")
    // effect/cli's own flags may come anywhere.
    expect(problem(["video", "--log-level", "debug", "status", "--emulator", "vid_1"])).toBeUndefined()
  })
})
