/**
 * The flags every gateway command takes (`--json`, `--emulator`), kept apart from `Connection` so
 * that the command tree can be built without loading the gateway.
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

/** The parsed common options. @category models */
export interface CommonOptions {
  readonly json: boolean
  readonly emulator: boolean
}
