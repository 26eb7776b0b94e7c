/**
 * The command's local files: images given as paths become data URLs (URLs and data URLs pass
 * through), results are written to the paths named with `-o`, and input lists are read line by line.
 * A missing input file is invalid input (exit 2, nothing sent); a failed write is a failure (exit 1).
 */
import { constants } from "node:fs"
import { access, mkdir, readFile, rmdir, stat, writeFile } from "node:fs/promises"
import { dirname, extname, resolve, sep } from "node:path"
import { Data, Effect, Exit } from "effect"
import { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { UsageError } from "./UsageError.js"

/** Writing a result to disk failed. @category errors */
export class FileWriteError extends Data.TaggedError("FileWriteError")<{
  readonly path: string
  readonly message: string
}> {}

const imageTypes: Readonly<Record<string, string>> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".webp": "image/webp",
  ".gif": "image/gif"
}

/** True for what the gateway takes as it is: an http(s) URL or a data URL. @category predicates */
export const isRemoteOrDataUrl = (value: string): boolean => /^(https?:\/\/|data:)/i.test(value)

/**
 * An image option's value as the gateway takes it: a URL or data URL unchanged, a local path read
 * and encoded as a `data:<mime>;base64,` URL. `field` names the option in errors.
 * @category constructors
 */
export const imageInput = (value: string, field: string): Effect.Effect<string, InvalidRequest> => {
  if (isRemoteOrDataUrl(value)) return Effect.succeed(value)
  const mime = imageTypes[extname(value).toLowerCase()]
  if (mime === undefined) {
    return Effect.fail(
      new InvalidRequest({
        field,
        rule: "image-file",
        message: `${field}: ${JSON.stringify(value)} is neither an http(s)/data URL nor a .png, .jpg, .jpeg, .webp or .gif file`
      })
    )
  }
  return Effect.tryPromise({
    try: () => readFile(value),
    catch: (e) =>
      new InvalidRequest({
        field,
        rule: "image-file",
        message: `${field}: cannot read ${JSON.stringify(value)}: ${(e as Error).message}`
      })
  }).pipe(Effect.map((bytes) => `data:${mime};base64,${bytes.toString("base64")}`))
}

/** The most standard input a command reads (`-` as PROMPT or `--file`): 16 MiB. @category constants */
export const maxStdinBytes = 16 * 1024 * 1024

/** `-` as an input: standard input. @category predicates */
export const isStdin = (value: string): boolean => value === "-"

/**
 * All of standard input as UTF-8 text, read to its end (`-` in place of PROMPT or a file), at most
 * `limit` bytes: past it, or when it cannot be read, invalid input naming `field`. Interrupted
 * (Ctrl-C), it stops reading.
 * @category constructors
 */
export const readStdin = (field: string, limit = maxStdinBytes): Effect.Effect<string, InvalidRequest> =>
  Effect.callback<string, InvalidRequest>((resume) => {
    const stdin = process.stdin
    const chunks: Array<Buffer> = []
    let size = 0
    const stop = (): void => {
      stdin.off("data", onData)
      stdin.off("end", onEnd)
      stdin.off("error", onError)
      stdin.pause()
    }
    const refuse = (rule: string, message: string): void => {
      stop()
      resume(Effect.fail(new InvalidRequest({ field, rule, message: `${field}: ${message}` })))
    }
    const onData = (chunk: Buffer): void => {
      size += chunk.length
      if (size > limit) return refuse("max-size", `standard input is larger than ${limit} bytes`)
      chunks.push(chunk)
    }
    const onEnd = (): void => {
      stop()
      resume(Effect.succeed(Buffer.concat(chunks, size).toString("utf8")))
    }
    const onError = (e: Error): void => refuse("readable", `cannot read standard input: ${e.message}`)
    stdin.on("data", onData)
    stdin.once("end", onEnd)
    stdin.once("error", onError)
    return Effect.sync(stop)
  })

/**
 * A prompt or text argument as given: the text itself, or all of standard input for `-` (`cat
 * notes.md | umg chat -m M -`); either must hold more than white space. `field` names it in errors.
 * @category constructors
 */
export const promptText = (prompt: string, field = "PROMPT"): Effect.Effect<string, InvalidRequest> =>
  isStdin(prompt)
    ? Effect.flatMap(readStdin(field), (text) =>
        text.trim() === ""
          ? Effect.fail(
              new InvalidRequest({ field, rule: "required", message: `${field}: standard input (-) held no text` })
            )
          : Effect.succeed(text)
      )
    : prompt.trim() === ""
      ? Effect.fail(
          new InvalidRequest({
            field,
            rule: "required",
            message: `${field}: empty; allowed: some text, or - to read it from standard input`
          })
        )
      : Effect.succeed(prompt)

/**
 * The non-blank lines of a text file (`--file`), or of standard input for `-`, each with its line number
 * (from 1). A leading UTF-8 byte-order mark (files saved by Windows editors) is not part of the first line.
 * @category constructors
 */
export const readLines = (
  path: string,
  field: string
): Effect.Effect<ReadonlyArray<{ readonly text: string; readonly line: number }>, InvalidRequest> =>
  (isStdin(path)
    ? readStdin(field)
    : Effect.tryPromise({
        try: () => readFile(path, "utf8"),
        catch: (e) =>
          new InvalidRequest({
            field,
            rule: "file",
            message: `${field}: cannot read ${JSON.stringify(path)}: ${(e as Error).message}`
          })
      })
  ).pipe(
    Effect.map((text) =>
      (text.startsWith("\uFEFF") ? text.slice(1) : text)
        .split(/\r?\n/)
        .map((line, i) => ({ text: line, line: i + 1 }))
        .filter((line) => line.text.trim() !== "")
    )
  )

/** `-` as an output path: standard output. @category predicates */
export const isStdout = (path: string): boolean => path === "-"

/**
 * Refuses `--json` with `-o -`: stdout would carry the binary result and the JSON document together,
 * which no reader can take apart. Checked before anything is sent; `command` is `umg speak`, … .
 * @category validators
 */
export const jsonNotWithStdout = (command: string, output: string, json: boolean): Effect.Effect<void, UsageError> =>
  json && isStdout(output)
    ? Effect.fail(
        new UsageError({
          command,
          field: "--json",
          rule: "conflict",
          message: `${command}: --json and -o - (--output -) cannot go together: stdout would carry the binary result and the JSON both; write the file with -o FILE and --json, or the bytes with -o - alone`
        })
      )
    : Effect.void

// The checks of `ensureWritable`; answers the outermost folder it made on the way to `path`, if any.
const checkWritable = (path: string, field: string): Effect.Effect<string | undefined, InvalidRequest> =>
  Effect.tryPromise({
    try: async () => {
      const made = await mkdir(dirname(path), { recursive: true })
      await access(dirname(path), constants.W_OK)
      const existing = await stat(path).catch(() => undefined)
      if (existing?.isDirectory()) throw new Error("it is a folder")
      if (existing !== undefined) await access(path, constants.W_OK)
      return made
    },
    catch: (e) =>
      new InvalidRequest({
        field,
        rule: "writable",
        // The report adds that nothing was sent (`describeReport`), once for every refused input.
        message: `${field}: cannot write ${JSON.stringify(path)} (${(e as Error).message})`
      })
  })

/**
 * Checks, before anything is paid for, that a result can be written to `path`: its folder can be made
 * and written to, and the path is not a folder or a read-only file. `-` (stdout) always can.
 * @category validators
 */
export const ensureWritable = (path: string, field = "output"): Effect.Effect<void, InvalidRequest> =>
  isStdout(path) ? Effect.void : Effect.asVoid(checkWritable(path, field))

// Removes the folders made for `path` (`made` and those below it), innermost first. `rmdir` removes an
// empty folder only, so one that something else has filled meanwhile stays, and so do those above it.
const removeMade = async (path: string, made: string): Promise<void> => {
  const outermost = resolve(made)
  const wasMade = (folder: string): boolean => folder === outermost || folder.startsWith(outermost + sep)
  for (let folder = resolve(dirname(path)); wasMade(folder); folder = dirname(folder)) {
    try {
      await rmdir(folder)
    } catch {
      return
    }
  }
}

/**
 * Runs `write`, the paid call whose result goes to `path`, once `path` is checked as `ensureWritable`
 * checks it (making its folders). When `write` fails or is interrupted, the folders made for `path` go
 * again: a failed call leaves no folder behind, and a folder that was there before is never touched.
 * `write` writes the file whole or not at all (`writeAtomically`), so no half file is left either.
 * @category combinators
 */
export const writingTo = <A, E, R>(
  path: string,
  write: Effect.Effect<A, E, R>,
  field = "output"
): Effect.Effect<A, E | InvalidRequest, R> =>
  isStdout(path)
    ? write
    : Effect.acquireUseRelease(
        checkWritable(path, field),
        () => write,
        (made, exit) =>
          made === undefined || Exit.isSuccess(exit) ? Effect.void : Effect.promise(() => removeMade(path, made))
      )

/** Writes bytes to `path` (creating its folder), or to standard output for `-`. @category constructors */
export const writeBytes = (path: string, bytes: Uint8Array): Effect.Effect<void, FileWriteError> =>
  Effect.tryPromise({
    try: async () => {
      if (isStdout(path)) {
        await new Promise<void>((resolve, reject) => process.stdout.write(bytes, (e) => (e ? reject(e) : resolve())))
        return
      }
      await mkdir(dirname(path), { recursive: true })
      await writeFile(path, bytes)
    },
    catch: (e) => new FileWriteError({ path, message: `cannot write ${path}: ${(e as Error).message}` })
  })
