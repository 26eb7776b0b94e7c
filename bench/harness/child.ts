/**
 * A contender forked into a process of its own that warms up, says it is ready, then answers each
 * `{ run: true }` with one repetition's measurement: what the in-memory benches (sse, sse-stability,
 * validation) share.
 */
import { type ChildProcess, fork } from "node:child_process"

/** A forked contender: what it said when ready, a way to ask it for one repetition, and its end. */
export interface Runner<Ready, Result> {
  readonly ready: Ready
  readonly run: () => Promise<Result>
  readonly close: () => void
}

/**
 * Forks `file` with `args`, and resolves once the child sends a message with `ready: true`; every
 * other message it sends answers the pending `run` (read by `resultOf`). Rejects when the child fails
 * to start or exits with an error.
 */
export const spawnRunner = <Ready extends { readonly ready: true }, Message, Result>(options: {
  readonly name: string
  readonly file: string
  readonly args: ReadonlyArray<string>
  readonly execArgv: ReadonlyArray<string>
  readonly env: NodeJS.ProcessEnv
  readonly resultOf: (message: Message) => Result
}): Promise<Runner<Ready, Result>> =>
  new Promise((resolve, reject) => {
    const proc: ChildProcess = fork(options.file, [...options.args], {
      execArgv: [...options.execArgv],
      env: options.env
    })
    let pending: ((result: Result) => void) | undefined
    proc.on("error", reject)
    proc.on("exit", (code) => {
      if (code !== 0 && code !== null) reject(new Error(`${options.name} child exited with ${code}`))
    })
    proc.on("message", (message: Ready | Message) => {
      if (typeof message === "object" && message !== null && "ready" in message) {
        resolve({
          ready: message,
          run: () =>
            new Promise<Result>((done) => {
              pending = done
              proc.send({ run: true })
            }),
          close: () => void proc.kill()
        })
      } else {
        pending?.(options.resultOf(message as Message))
      }
    })
  })
