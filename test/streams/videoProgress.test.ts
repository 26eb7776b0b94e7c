import { of, lastValueFrom, toArray } from "rxjs"
import { describe, expect, it } from "vitest"
import { pollTask$, type PollableTask } from "../../src/streams/pollTask.js"
import { videoProgress } from "../../src/streams/videoProgress.js"

const task = (status: string): PollableTask => ({ task_id: "vid_7", status })

describe("videoProgress", () => {
  it("turns each status change into a record with its poll count and a growing elapsed time", async () => {
    const statuses = ["queued", "queued", "in_progress", "succeeded"]
    let i = 0
    const progress = await lastValueFrom(
      pollTask$(() => of(task(statuses[i++]!)), { intervalMs: 20, minIntervalMs: 10 }).pipe(videoProgress(), toArray())
    )
    expect(progress.map(({ elapsedMs: _, ...rest }) => rest)).toEqual([
      { taskId: "vid_7", status: "queued", polls: 1, done: false },
      { taskId: "vid_7", status: "in_progress", polls: 3, done: false },
      { taskId: "vid_7", status: "succeeded", polls: 4, done: true }
    ])
    const elapsed = progress.map((p) => p.elapsedMs)
    expect(elapsed).toEqual([...elapsed].sort((a, b) => a - b))
    expect(elapsed[2]).toBeGreaterThan(elapsed[0]!)
  })
})
