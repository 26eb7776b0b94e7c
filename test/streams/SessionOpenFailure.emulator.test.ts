// A realtime or live session refused at open (a wrong key), used as the docs show: sends fired and forgotten
// inside `mergeMap` never crash the process, an awaited send rejects with the refusal, `state$` keeps `closed`.
import { lastValueFrom, mergeMap, type Observable } from "rxjs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startEmulator, type Emulator } from "../../src/emulator/index.js"
import { createGateway, type RxGateway, type RxSession, type SessionState } from "../../src/streams/index.js"
import { recordUnhandledRejections } from "../fixtures/unhandled.js"

let emu: Emulator
let gw: RxGateway
beforeAll(async () => {
  emu = await startEmulator({ fast: true })
  gw = createGateway({ baseUrl: emu.url, apiKey: "wrong-key" })
})
afterAll(async () => {
  await gw.dispose()
  await emu.close()
})

const unhandled = recordUnhandledRejections()

const macrotask = () => new Promise((resolve) => setTimeout(resolve, 20))
/** A session of either kind, sending one event of its own kind (never delivered: the session never opens). */
type AnySession = RxSession<unknown, never, unknown>
const kinds: Record<"realtime" | "live", { open: () => Observable<AnySession>; event: never }> = {
  realtime: { open: () => gw.realtime.connect$("gpt-realtime-mini"), event: { type: "response.create" } as never },
  live: {
    open: () => gw.live.connect$("zeta-live-2.5-flash-native-audio"),
    event: { clientContent: { turnComplete: true } } as never
  }
}

describe.each(Object.keys(kinds) as Array<keyof typeof kinds>)("%s.connect$ refused at open", (kind) => {
  it("fire-and-forget sends in mergeMap: the program catches the refusal, no unhandled rejection", async () => {
    let awaited: Promise<void> | undefined
    let session: AnySession | undefined
    const outcome = await lastValueFrom(
      kinds[kind].open().pipe(
        mergeMap((s) => {
          session = s
          void s.send(kinds[kind].event)
          awaited = s.send(kinds[kind].event)
          return s.events$
        })
      )
    ).then(
      () => "completed",
      (error: { _tag?: string }) => error._tag
    )
    expect(outcome).toBe("AuthenticationError")
    await expect(awaited).rejects.toMatchObject({ _tag: "AuthenticationError" })
    await macrotask()
    expect(unhandled.seen()).toEqual([])
    const seen: Array<SessionState | "complete"> = []
    session!.state$.subscribe({ next: (s) => seen.push(s), complete: () => seen.push("complete") })
    expect(seen).toMatchObject([{ status: "closed", error: { _tag: "AuthenticationError" } }, "complete"])
  })
})
