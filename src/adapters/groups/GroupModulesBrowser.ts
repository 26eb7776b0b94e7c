/**
 * The deferred groups' modules in browsers: each imported on its group's first call, so a bundler puts
 * it in a chunk of its own and a page that never makes the call never downloads it.
 */
import type { GroupModules } from "./LoadedOnUse.js"

/** Each module, imported when first needed. @category constructors */
export const groupModules: GroupModules = {
  video: () => import("./Video.js"),
  realtime: () => import("./Realtime.js"),
  live: () => import("./Live.js"),
  textHelpers: () => import("./TextHelpers.js")
}
