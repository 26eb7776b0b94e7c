// The packed tarball of this checkout, for the tests that install umg as a user would. `npm pack`
// runs `prepare`, which rebuilds dist/: two test files packing at once (vitest runs files in
// parallel) would build into the same folder together, so a pack holds the run's lock for as long as
// it runs, and a run packs once (test/support/perRun.ts).
import { spawnSync } from "node:child_process"
import { copyFileSync, readdirSync } from "node:fs"
import { basename, dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { runFolder, withRunLock } from "../support/perRun.js"

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..")

/** A command's exit code and its outputs, run with npm's audit and funding notes off. */
export const run = (cmd: string, args: ReadonlyArray<string>, cwd: string) => {
  const out = spawnSync(cmd, args, {
    cwd,
    encoding: "utf8",
    timeout: 300_000,
    env: { ...process.env, npm_config_audit: "false", npm_config_fund: "false" }
  })
  // Both outputs are `undefined` when the command cannot be started, which the type leaves out.
  const stdout = out.stdout as string | undefined
  const stderr = out.stderr as string | undefined
  return { code: out.status ?? -1, stdout: stdout ?? "", stderr: stderr ?? "" }
}

// One pack per test run: the first file to pack leaves its tarball in the run's folder for the others.
const tarballIn = (dir: string): string | undefined => {
  try {
    const name = readdirSync(dir).find((f) => f.endsWith(".tgz"))
    return name === undefined ? undefined : join(dir, name)
  } catch {
    return undefined
  }
}

/**
 * This checkout packed (one pack at a time across processes, and one per test run), copied into
 * `dest`; the copy's path.
 */
export const packUmg = async (dest: string): Promise<string> => {
  const shared = runFolder("pack")
  await withRunLock("pack", () => {
    if (tarballIn(shared) !== undefined) return
    const packed = run("npm", ["pack", "--pack-destination", shared], root)
    if (packed.code !== 0) throw new Error(`npm pack failed: ${(packed.stdout + packed.stderr).slice(-1000)}`)
  })
  const tarball = tarballIn(shared)
  if (tarball === undefined) throw new Error("npm pack made no tarball")
  const copy = join(dest, basename(tarball))
  copyFileSync(tarball, copy)
  return copy
}

/**
 * A user's program (valid TypeScript and JavaScript alike): `Gateway.layer` provided against the
 * installed `umg/emulator`, a models list, a messages stream and a chat completion; it prints
 * `{ node, models, text, chat }` (the Node version and how much each call gave) as JSON.
 */
export const gatewayProgram = [
  `import { Effect, Stream } from "effect"`,
  `import { Gateway } from "umg"`,
  `import { startEmulator } from "umg/emulator"`,
  `const emulator = await startEmulator()`,
  `const program = Effect.gen(function* () {`,
  `  const gateway = yield* Gateway`,
  `  const models = yield* gateway.models.list()`,
  `  let text = ""`,
  `  yield* gateway.messages.stream({ model: "epsilon-haiku-4-5-20251001", max_tokens: 64, messages: [{ role: "user", content: "Say hi" }] }).pipe(`,
  `    Stream.runForEach((event) => Effect.sync(() => { if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text }))`,
  `  )`,
  `  const chat = yield* gateway.chat.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: "Hello" }] })`,
  `  return { node: process.version, models: models.length, text: text.length, chat: chat.choices[0]?.message.content?.length ?? 0 }`,
  `})`,
  `const result = await Effect.runPromise(program.pipe(Effect.provide(Gateway.layer({ baseUrl: emulator.url, apiKey: emulator.apiKey }))))`,
  `await emulator.close()`,
  `console.log(JSON.stringify(result))`,
  ``
].join("\n")
