/**
 * How `umg batch video` and `umg batch worker` keep their memory near what they hold, for hours and
 * for any number of lines. What a batch process holds stays the same size (about 60 MB of live heap);
 * its peak RSS is V8's headroom over that, which these two settings bound.
 *
 * - The old generation grows by at most 40 % over what its last full collection kept
 *   (`--heap-growing-percent`; V8 lets a busy process grow it up to four times).
 * - The young generation stops growing at 32 MB. V8 doubles it while a process allocates fast, up to
 *   128 MB here, and a batch allocates fast (a few hundred KB per line: requests, answers,
 *   statements); 96 MB of RSS for collections that a 32 MB young generation does about as cheaply.
 *   That is the size collections leave it at: between two, V8 may add pages while it allocates (a
 *   few MB; 58.5 MB was seen once on a loaded machine), given back at the next collection.
 *
 * Node sizes the young generation's limit when it starts (`--max-semi-space-size`, a flag of `node`
 * itself), so the limit is kept here instead: once the young generation is 32 MB (or at once, when
 * it is larger already), V8 is told to grow it by a factor of 1 (`--semi-space-growth-factor`, which
 * V8 reads each time it would grow it). Both are V8 flags set at run time, for this process only.
 */
import { PerformanceObserver } from "node:perf_hooks"
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8"

/** The young generation's size at which it stops growing (V8's `new_space`). @category constants */
export const youngGenerationBytes = 32 * 2 ** 20

/** How much the old generation may grow over what its last full collection kept, in percent. @category constants */
export const oldGenerationGrowthPercent = 40

const newSpaceBytes = (): number =>
  getHeapSpaceStatistics().find((space) => space.space_name === "new_space")?.space_size ?? 0

const stopGrowing = () => setFlagsFromString("--semi-space-growth-factor=1")

/**
 * Bounds this process's heap as described above; call it before a batch's modules are loaded. The
 * young generation is looked at after each collection until it has reached its size.
 * @category constructors
 */
export const boundBatchHeap = (): void => {
  setFlagsFromString(`--heap-growing-percent=${oldGenerationGrowthPercent}`)
  if (newSpaceBytes() >= youngGenerationBytes) return stopGrowing()
  const watch = new PerformanceObserver(() => {
    if (newSpaceBytes() < youngGenerationBytes) return
    stopGrowing()
    watch.disconnect()
  })
  watch.observe({ entryTypes: ["gc"] })
}
