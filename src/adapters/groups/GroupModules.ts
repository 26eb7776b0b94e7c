/**
 * The deferred groups' modules on Node: imported with the rest of the client, so every call goes
 * straight to its group (a page in a browser gets `GroupModulesBrowser`, which imports each on first use).
 */
import type { GroupModules } from "./LoadedOnUse.js"
import * as Live from "./Live.js"
import * as Realtime from "./Realtime.js"
import * as TextHelpers from "./TextHelpers.js"
import * as Video from "./Video.js"

/** Each module, here already. @category constructors */
export const groupModules: GroupModules = {
  video: () => Video,
  realtime: () => Realtime,
  live: () => Live,
  textHelpers: () => TextHelpers
}
