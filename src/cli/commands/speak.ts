/** `umg speak`: text to speech (E14), the audio written to a file. */
import { Effect, Option } from "effect"
import { Gateway } from "../../adapters/Gateway.js"
import { writeAtomically } from "../../batch/AtomicFile.js"
import { buildSpeechBody, type SpeechFormat, type SpeechVoice } from "../../core/media/Speech.js"
import * as Connection from "../support/Connection.js"
import { isStdout, jsonNotWithStdout, promptText, writeBytes, writingTo } from "../support/LocalFiles.js"
import * as Output from "../support/Output.js"

/** The options of `umg speak`. @category models */
export interface SpeakOptions extends Connection.CommonOptions {
  readonly model: string
  readonly voice: SpeechVoice
  readonly format: Option.Option<SpeechFormat>
  readonly speed: Option.Option<number>
  readonly output: string
  readonly text: string
}

/** Runs `umg speak`. @category commands */
export const runSpeak = (o: SpeakOptions) =>
  Effect.gen(function* () {
    yield* jsonNotWithStdout("umg speak", o.output, o.json)
    const body = yield* buildSpeechBody(
      {
        model: o.model,
        input: yield* promptText(o.text, "TEXT"),
        voice: o.voice,
        ...Option.match(o.format, { onNone: () => ({}), onSome: (response_format) => ({ response_format }) }),
        ...Option.match(o.speed, { onNone: () => ({}), onSome: (speed) => ({ speed }) })
      },
      yield* Connection.routing(o)
    )
    // The call costs money: the output is checked (its folders made) before it is made, and if the
    // call fails the folders made for it go again; the file is written whole or not at all.
    yield* writingTo(
      o.output,
      Connection.run(
        o,
        Effect.gen(function* () {
          const gateway = yield* Gateway
          const audio = yield* gateway.speech.create(body)
          yield* isStdout(o.output) ? writeBytes(o.output, audio.bytes) : writeAtomically(o.output, audio.bytes)
          const summary = `wrote ${audio.bytes.length} bytes of ${audio.contentType} to ${isStdout(o.output) ? "stdout" : o.output}`
          // With `-o -` stdout carries the audio itself; the summary goes to stderr.
          if (isStdout(o.output)) yield* Output.note(summary)
          else
            yield* Output.result(
              o,
              { path: o.output, bytes: audio.bytes.length, contentType: audio.contentType },
              () => summary
            )
        })
      )
    )
  })
