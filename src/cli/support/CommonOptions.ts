/**
 * The flags the gateway commands share: `--json` and `--emulator` on every one,
 * `--allow-unknown-models` on those that take a model. Kept apart from `Connection` so that the
 * command tree can be built without loading the gateway.
 */
import { Flag } from "effect/cli"

/** The options every gateway command takes. @category options */
export const commonOptions = {
  json: Flag.Boolean("json").pipe(
    Flag.withDescription("machine-readable output on stdout (JSON or JSON lines)"),
    Flag.withDefault(false)
  ),
  emulator: Flag.Boolean("emulator").pipe(
    Flag.withDescription("use an embedded emulator even when UMG_BASE_URL is set"),
    Flag.withDefault(false)
  )
}

/** The flag of the commands that take a model id. @category options */
export const modelOptions = {
  allowUnknownModels: Flag.Boolean("allow-unknown-models").pipe(
    Flag.withDescription(
      "send a model id umg's catalog does not list (a gateway newer than umg); also UMG_ALLOW_UNKNOWN_MODELS=1"
    ),
    Flag.withDefault(false)
  )
}

/** The parsed common options. @category models */
export interface CommonOptions {
  readonly json: boolean
  readonly emulator: boolean
  /** `--allow-unknown-models` (absent: false); `UMG_ALLOW_UNKNOWN_MODELS` may allow them too. */
  readonly allowUnknownModels?: boolean
}
