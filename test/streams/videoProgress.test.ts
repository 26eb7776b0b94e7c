import { TestScheduler } from "rxjs/testing"
import { describe, expect, it } from "vitest"
import { PollClock } from "../../src/streams/PollClock.js"
import { pollTask$, type PollableTask } from "../../src/streams/pollTask.js"
import { videoProgress } from "../../src/streams/videoProgress.js"

const task = (status: string): PollableTask => ({ task_id: "vid_7", status })

describe("videoProgress", () => {
  it("turns each status change into a record with elapsed time and poll count", () => {
    const ts = new TestScheduler((a, b) => expect(a).toEqual(b))
    ts.run(({ cold, expectObservable }) => {
      const answers = [cold("-a|", { a: task("queued") }), cold("-a|", { a: task("queued") }), cold("-a|", { a: task("in_progress") }), cold("-a|", { a: task("succeeded") })]
      let i = 0
      const progress = pollTask$(() => answers[i++]!, { intervalMs: 3000, clock: new PollClock(ts, 1) }).pipe(videoProgress())
      expectObservable(progress).toBe("-a 5999ms b 2999ms (c|)", {
        a: { taskId: "vid_7", status: "queued", elapsedMs: 1, polls: 1, done: false },
        b: { taskId: "vid_7", status: "in_progress", elapsedMs: 6001, polls: 3, done: false },
        c: { taskId: "vid_7", status: "succeeded", elapsedMs: 9001, polls: 4, done: true }
      })
    })
  })
})
