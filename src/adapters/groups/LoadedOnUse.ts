/**
 * The groups and helpers that browsers load on their first call (video, realtime, live; the text
 * groups' structured output and tool loop), so a page that streams chat ships none of their code.
 *
 * Their modules come from `#umg/group-modules`: on Node they are imported with the rest (every call
 * goes straight to the group, as before); in browsers each is an `import()`, which a bundler puts in a
 * chunk of its own. Each group here has the group's shape, every call handed to the group once loaded
 * (`loadOnUse`): the same arguments, the same Effect or Stream, its span and errors the group's own.
 * The text groups' own calls (create, stream) are not deferred: every client uses them.
 */
import type * as Effect from "effect/Effect"
import type * as Stream from "effect/Stream"
import { groupModules } from "#umg/group-modules"
import { loadOnUse, type LoadOnUse } from "../internal/LoadOnUse.js"
import type { LiveGroup } from "./Live.js"
import type { RealtimeGroup } from "./Realtime.js"
import type { VideoGroup } from "./Video.js"

/** A module, here already or to import. */
type Loader<M> = () => M | Promise<M>

/**
 * Where each deferred module comes from: the platform's `#umg/group-modules` (imported now on Node, on
 * first use in browsers).
 * @category models
 */
export interface GroupModules {
  readonly video: Loader<typeof import("./Video.js")>
  readonly realtime: Loader<typeof import("./Realtime.js")>
  readonly live: Loader<typeof import("./Live.js")>
  readonly textHelpers: Loader<typeof import("./TextHelpers.js")>
}

/**
 * The `video` group, its module (bodies of four families, polls, downloads) imported on its first call.
 * @category constructors
 */
export const video = (group: LoadOnUse<VideoGroup>): VideoGroup => ({
  check: (input) => group.effect((g) => g.check(input)),
  submit: (input, options) => group.effect((g) => g.submit(input, options)),
  get: (taskId, options) => group.effect((g) => g.get(taskId, options)),
  download: (taskId, options) => group.effect((g) => g.download(taskId, options)),
  downloadStream: (taskId, options) => group.stream((g) => g.downloadStream(taskId, options)),
  wait: (taskId, options, callOptions) => group.effect((g) => g.wait(taskId, options, callOptions)),
  waitAll: (taskIds, options, callOptions) => group.effect((g) => g.waitAll(taskIds, options, callOptions)),
  follow: (taskId, options, onEnd, callOptions) => group.effect((g) => g.follow(taskId, options, onEnd, callOptions)),
  poll: (taskId, options, callOptions) => group.stream((g) => g.poll(taskId, options, callOptions)),
  generate: (input, options, callOptions) => group.effect((g) => g.generate(input, options, callOptions))
})

/** The `realtime` group, its module (events, sessions) imported on the first `connect`. @category constructors */
export const realtime = (group: LoadOnUse<RealtimeGroup>): RealtimeGroup => ({
  connect: (options, callOptions) => group.effect((g) => g.connect(options, callOptions))
})

/** The `live` group, its module (messages, sessions) imported on the first `connect`. @category constructors */
export const live = (group: LoadOnUse<LiveGroup>): LiveGroup => ({
  connect: (options, callOptions) => group.effect((g) => g.connect(options, callOptions))
})

/** A text group's helpers: what `textHelpers` makes and hands each call to. */
interface TextHelperCalls {
  readonly parse: unknown
  readonly parseStream: unknown
  readonly runTools: unknown
}

type Call = (...args: ReadonlyArray<unknown>) => unknown

/**
 * One text group's helpers (`parse` an Effect, `parseStream` and `runTools` Streams), made from its
 * calls by `make` once their module (JSON Schema, partial JSON, the tool loop) is here: on the group's
 * first helper call. Each call is handed, arguments as they are, to the helper of the same name.
 * @category constructors
 */
export const textHelpers = <H extends TextHelperCalls>(make: (module: typeof import("./TextHelpers.js")) => H): H => {
  const helpers = loadOnUse(groupModules.textHelpers, make)
  const effect =
    (name: "parse") =>
    (...args: ReadonlyArray<unknown>) =>
      helpers.effect((h) => (h[name] as Call)(...args) as Effect.Effect<unknown, unknown, unknown>)
  const stream =
    (name: "parseStream" | "runTools") =>
    (...args: ReadonlyArray<unknown>) =>
      helpers.stream((h) => (h[name] as Call)(...args) as Stream.Stream<unknown, unknown, unknown>)
  // Each forwards what it is given to the loaded helper of its name: the same signature, so `H`.
  return { parse: effect("parse"), parseStream: stream("parseStream"), runTools: stream("runTools") } as unknown as H
}
