/**
 * `umg realtime`: one text turn over the realtime WebSocket. It opens a text-only session, sends the
 * user's text as a conversation item and `response.create`, then prints the text deltas as they
 * arrive until `response.done`. The model picks the event style (v1 or v2).
 */
import { Effect, Option, Stream } from "effect"
import { Gateway } from "../../adapters/Gateway.js"
import * as GatewayConfig from "../../adapters/GatewayConfig.js"
import { secretsOf } from "../../adapters/internal/Secrets.js"
import {
  IncompleteStream,
  type SessionError,
  type SessionOpenError,
  TimeoutError
} from "../../core/errors/GatewayError.js"
import type { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { redactText } from "../../core/errors/Redact.js"
import { type RealtimeServerEvent, realtimeTextDelta, realtimeVersion } from "../../core/realtime/Realtime.js"
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

/** The message of a server `error` event (outside text: the caller redacts it). */
const errorMessageOf = (event: RealtimeServerEvent): string =>
  "error" in event && typeof event.error === "object" && event.error !== null && "message" in event.error
    ? String(event.error.message)
    : "the session reported an error"

/** The `status` of a `response.done` event's response, if it has one. */
const statusOf = (event: RealtimeServerEvent): string | undefined => {
  const response = "response" in event ? event.response : undefined
  return typeof response === "object" &&
    response !== null &&
    "status" in response &&
    typeof response.status === "string"
    ? response.status
    : undefined
}

/**
 * Opens a session for `model`, sends one text turn and collects the reply, calling `onDelta` for
 * each text piece. The socket closes when the turn is done (the session is scoped to this call).
 * The connection's settings decide the rest, as for every other command: its `allowUnknownModels`
 * lets a model the catalog does not list through, its `timeoutMs` (`UMG_TIMEOUT_MS`) bounds the wait
 * for the turn's events (then `TimeoutError`), and its secrets are taken out of an `error` event's
 * text before it becomes the `IncompleteStream`'s message.
 * @category constructors
 */
export const realtimeTurn = (
  model: string,
  text: string,
  onDelta: (delta: string) => Effect.Effect<void>
): Effect.Effect<
  RealtimeTurn,
  SessionOpenError | SessionError | IncompleteStream | TimeoutError | InvalidRequest,
  Gateway | Connection.Connection
> =>
  Effect.scoped(
    Effect.gen(function* () {
      const gateway = yield* Gateway
      // The settings the gateway layer was built from, resolved as it resolved them.
      const config = GatewayConfig.make((yield* Connection.Connection).config)
      const secrets = secretsOf(config)
      const version = yield* realtimeVersion(model, { allowUnknownModels: config.allowUnknownModels })
      const session = yield* gateway.realtime.connect({
        model,
        session: version === "v1" ? { modalities: ["text"] } : { output_modalities: ["text"] }
      })
      let reply = ""
      let events = 0
      let status: string | undefined
      const turn = Effect.gen(function* () {
        yield* session.send({
          type: "conversation.item.create",
          item: { type: "message", role: "user", content: [{ type: "input_text", text }] }
        })
        yield* session.send({ type: "response.create" })
        return yield* session.events.pipe(
          Stream.takeUntil((event) => event.type === "response.done" || event.type === "error"),
          Stream.tap((event) =>
            Effect.gen(function* () {
              events++
              if (event.type === "error") {
                // The server's text may echo what it was sent (the key): redacted, as every outside text is.
                const message = redactText(errorMessageOf(event), secrets)
                return yield* Effect.fail(
                  new IncompleteStream({ family: "realtime", reason: "error-event", message, partial: reply })
                )
              }
              if (event.type === "response.done") status = statusOf(event)
              const delta = realtimeTextDelta(event)
              if (delta !== undefined) {
                reply += delta
                yield* onDelta(delta)
              }
            })
          ),
          Stream.runLast
        )
      })
      // One deadline for the whole turn, as a request has one (a server that accepts the upgrade and
      // then says nothing would otherwise be waited for forever); the scope then closes the socket.
      const last = yield* Effect.timeoutOrElse(turn, {
        duration: config.timeoutMs,
        orElse: () =>
          Effect.fail(
            new TimeoutError({
              family: "realtime",
              phase: "request",
              timeoutMs: config.timeoutMs,
              message: `the realtime turn got no response.done within ${config.timeoutMs} ms (UMG_TIMEOUT_MS); ${events} events received`
            })
          )
      })
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
      return { version: session.version, text: reply, events, status }
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
