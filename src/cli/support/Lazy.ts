/**
 * A command's implementation, loaded when the command runs rather than when `umg` starts. The
 * command tree (flags, help, the check of a command line) is built without the gateway, the batch
 * engine or the emulator, so `umg batch status` or `umg --help` loads only what it uses.
 */
import * as Effect from "effect/Effect"

/**
 * Runs `run` on the module `load` imports. A module that cannot be loaded is a defect (exit 1), as a
 * missing static import would have been.
 * @category combinators
 */
export const lazily = <M, A, E, R>(
  load: () => Promise<M>,
  run: (module: M) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => Effect.flatMap(Effect.promise(load), run)
