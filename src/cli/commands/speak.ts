/** `umg speak`: text to speech (E14), the audio written to a file. */
import { Argument, Command, Flag } from "effect/cli"
import { Effect, Option } from "effect"
import { Gateway } from "../../adapters/Gateway.js"
import { buildSpeechBody, speechFormats, speechVoices } from "../../core/media/Speech.js"
import * as Connection from "../support/Connection.js"
import { ensureWritable, isStdout, writeBytes } from "../support/LocalFiles.js"
import * as Output from "../support/Output.js"

const options = {
  ...Connection.commonOptions,
  model: Flag.String("model").pipe(Flag.withAlias("m"), Flag.withDescription("speech model id, e.g. gpt-4o-mini-tts")),
  voice: Flag.Literals("voice", speechVoices).pipe(Flag.withDescription("the voice")),
  format: Flag.Literals("format", speechFormats).pipe(
    Flag.withDescription("the audio format (default mp3)"),
    Flag.optional
  ),
  speed: Flag.Finite("speed").pipe(Flag.withDescription("0.25 to 4.0 (default 1.0)"), Flag.optional),
  output: Flag.String("output").pipe(
    Flag.withAlias("o"),
    Flag.withDescription("where to write the audio (- for stdout)")
  ),
  text: Argument.String("TEXT")
}

/** The `umg speak` command. @category commands */
export const speakCommand = Command.make("speak", options, (o) =>
  Effect.gen(function* () {
    const body = yield* buildSpeechBody({
      model: o.model,
      input: o.text,
      voice: o.voice,
      ...Option.match(o.format, { onNone: () => ({}), onSome: (response_format) => ({ response_format }) }),
      ...Option.match(o.speed, { onNone: () => ({}), onSome: (speed) => ({ speed }) })
    })
    // The call costs money: the output is checked before it is made.
    yield* ensureWritable(o.output)
    yield* Connection.run(
      o,
      Effect.gen(function* () {
        const gateway = yield* Gateway
        const audio = yield* gateway.speech.create(body)
        yield* writeBytes(o.output, audio.bytes)
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
  })
).pipe(
  Command.withDescription(
    `turn text into speech and write the audio to a file. Example: umg speak -m gpt-4o-mini-tts --voice alloy -o hello.mp3 "Hello there"`
  )
)
