// The check both stream-fold drafts share: a folder run over a whole stream against a reference fold.
import { expect } from "vitest"
import type { Folder } from "../src/core/text/Accumulator.js"

/** A reference fold's verdict on one event: the next snapshot, or why the event does not fit. */
export type Verdict<S> = { readonly ok: S } | { readonly message: string; readonly partial: S }

/**
 * Runs `folder` over `events` beside `reference`, event by event: the same verdict, failure message
 * and partial snapshot; an event that does not fit leaves the folder as it was (and the stream goes
 * on); snapshots taken where `takes` says equal the reference's and never change afterwards, however
 * the folder goes on.
 */
export const expectFoldsLike = <E, S>(
  folder: Folder<E, S>,
  initial: S,
  reference: (snapshot: S, event: E) => Verdict<S>,
  events: ReadonlyArray<E>,
  takes: ReadonlyArray<boolean>
): void => {
  let expected = initial
  const handedOut: Array<[S, S]> = []
  for (const [i, event] of events.entries()) {
    const verdict = reference(expected, event)
    const failure = folder.push(event)
    if ("message" in verdict) {
      expect(failure?.message).toBe(verdict.message)
      expect(failure?.partial).toEqual(verdict.partial)
      expect(folder.snapshot()).toEqual(expected)
      continue
    }
    expect(failure).toBeUndefined()
    expected = verdict.ok
    if (takes[i] === true) {
      const snapshot = folder.snapshot()
      expect(snapshot).toEqual(expected)
      handedOut.push([snapshot, structuredClone(snapshot)])
    }
  }
  expect(folder.snapshot()).toEqual(expected)
  for (const [snapshot, copy] of handedOut) expect(snapshot).toEqual(copy)
}
