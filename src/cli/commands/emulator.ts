/**
 * `umg emulator`: the local gateway emulator in the foreground, printing the environment that points
 * umg (or any client) at it, until Ctrl-C.
 */
import { Effect } from "effect"
import { startEmulator } from "../../emulator/index.js"
import { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import * as Output from "../support/Output.js"

/** The options of `umg emulator`. @category models */
export interface EmulatorOptions {
  readonly port: number
  readonly host: string
  readonly fast: boolean
  readonly json: boolean
}

/** Runs `umg emulator`. @category commands */
export const runEmulator = (o: EmulatorOptions) =>
  Effect.gen(function* () {
    if (o.port < 0 || o.port > 65535) {
      return yield* Effect.fail(
        new InvalidRequest({
          field: "port",
          rule: "range",
          message: `port: ${o.port} is not allowed; allowed: 0-65535`
        })
      )
    }
    // Acquired in a scope so that Ctrl-C (an interrupt) closes open streams and sockets.
    yield* Effect.scoped(
      Effect.gen(function* () {
        const emulator = yield* Effect.acquireRelease(
          Effect.tryPromise({
            try: () => startEmulator({ port: o.port, host: o.host, fast: o.fast }),
            // A busy port or a host not of this machine is the user's to fix: one line, exit 2, no
            // stack trace, naming the flag at fault (a refused port, or else the host).
            catch: (e) => {
              const code = (e as { code?: unknown }).code
              const field = code === "EADDRINUSE" || code === "EACCES" ? "port" : "host"
              return new InvalidRequest({
                field,
                rule: "listen",
                message:
                  code === "EADDRINUSE"
                    ? `port: ${o.port} on ${o.host} is already in use; pass --port 0 for a free one, or another port`
                    : `${field}: cannot listen on ${o.host}:${o.port} (${String(code ?? (e as Error).message)})`
              })
            }
          }),
          (e) => Effect.promise(() => e.close())
        )
        const info = {
          url: emulator.url,
          UMG_BASE_URL: emulator.url,
          UMG_API_KEY: emulator.apiKey,
          UMG_PLATFORM_URL: emulator.platformUrl,
          UMG_PLATFORM_USERNAME: emulator.platform.username,
          UMG_PLATFORM_PASSWORD: emulator.platform.password,
          fast: o.fast
        }
        // These are the emulator's own demo credentials, not secrets of any real gateway.
        yield* Output.result(o, info, () =>
          [
            `${Output.colour.bold("umg emulator")} listening on ${emulator.url}${o.fast ? " (fast timings)" : ""}`,
            `  export UMG_BASE_URL=${emulator.url}`,
            `  export UMG_API_KEY=${emulator.apiKey}`,
            `  export UMG_PLATFORM_URL=${emulator.platformUrl}`,
            `  export UMG_PLATFORM_USERNAME=${emulator.platform.username}`,
            `  export UMG_PLATFORM_PASSWORD=${emulator.platform.password}`,
            Output.colour.dim("Ctrl-C stops it.")
          ].join("\n")
        )
        return yield* Effect.never
      })
    )
  })
