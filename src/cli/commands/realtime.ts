/**
 * `umg realtime`: one text turn over the realtime WebSocket. It opens a text-only session, sends the
 * user's text as a conversation item and `response.create`, then prints the text deltas as they
 * arrive until `response.done`. The model picks the event style (v1 or v2).
 */
import { Effect, Option, Stream } from "effect"
import { Gateway } from "../../adapters/Gateway.js"
import { IncompleteStream, type SessionError, type SessionOpenError } from "../../core/errors/GatewayError.js"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { realtimeTextDelta, realtimeVersion } from "../../core/realtime/Realtime.js"
import * as Connection from "../support/Connection.js"
import * as Output from "../support/Output.js"

/** What a realtime turn ended with. @category models */
export interface RealtimeTurn {
  readonly version: "v1" | "v2"
  readonly text: string
  /** How many server events the turn took. */
  readonly events: number
  readonly status: string | undefined
}

/**
 * Opens a session for `model`, sends one text turn and collects the reply, calling `onDelta` for
 * each text piece. The socket closes when the turn is done (the session is scoped to this call).
 * @category constructors
 */
export const realtimeTurn = (
  model: string,
  text: string,
  onDelta: (delta: string) => Effect.Effect<void>
): Effect.Effect<RealtimeTurn, SessionOpenError | SessionError | IncompleteStream | InvalidRequest, Gateway> =>
  Effect.scoped(
    Effect.gen(function* () {
      const gateway = yield* Gateway
      const version = yield* realtimeVersion(model)
      const session = yield* gateway.realtime.connect({
        model,
        session: version === "v1" ? { modalities: ["text"] } : { output_modalities: ["text"] }
      })
      yield* session.send({
        type: "conversation.item.create",
        item: { type: "message", role: "user", content: [{ type: "input_text", text }] }
      })
      yield* session.send({ type: "response.create" })
      let reply = ""
      let events = 0
      let status: string | undefined
      const last = yield* session.events.pipe(
        Stream.takeUntil((event) => event.type === "response.done" || event.type === "error"),
        Stream.tap((event) =>
          Effect.gen(function* () {
            events++
            if (event.type === "error") {
              const message =
                "error" in event && typeof event.error === "object" && event.error !== null && "message" in event.error
                  ? String(event.error.message)
                  : "the session reported an error"
              return yield* Effect.fail(
                new IncompleteStream({ family: "realtime", reason: "error-event", message, partial: reply })
              )
            }
            if (event.type === "response.done") {
              const response = "response" in event ? event.response : undefined
              status =
                typeof response === "object" &&
                response !== null &&
                "status" in response &&
                typeof response.status === "string"
                  ? response.status
                  : undefined
            }
            const delta = realtimeTextDelta(event)
            if (delta !== undefined) {
              reply += delta
              yield* onDelta(delta)
            }
          })
        ),
        Stream.runLast
      )
      // The stream stops at `response.done`, fails at `error`: any other last event means the socket ended first.
      if (Option.isNone(last) || last.value.type !== "response.done") {
        return yield* Effect.fail(
          new IncompleteStream({
            family: "realtime",
            reason: "ended-early",
            message: "the socket ended before response.done",
            partial: reply
          })
        )
      }
      return { version, text: reply, events, status }
    })
  )

/** The options of `umg realtime`. @category models */
export interface RealtimeOptions extends Connection.CommonOptions {
  readonly model: string
  readonly text: string
}

/** Runs `umg realtime`. @category commands */
export const runRealtime = (o: RealtimeOptions) =>
  Effect.gen(function* () {
    // Checked before connecting: an unknown realtime model is invalid input, not a socket failure.
    yield* realtimeVersion(o.model, yield* Connection.routing(o))
    yield* Connection.run(
      o,
      Effect.gen(function* () {
        const turn = yield* realtimeTurn(o.model, o.text, (d) => (o.json ? Effect.void : Output.write(d)))
        if (o.json) return yield* Output.json({ model: o.model, ...turn })
        yield* Output.line()
        yield* Output.note(
          Output.errColour.dim(`[realtime ${turn.version}] ${turn.events} events, ${turn.status ?? "done"}`)
        )
      })
    )
  })
