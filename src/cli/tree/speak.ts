/** `umg speak` as the command tree holds it: its flags and help; what it does is `commands/speak.ts`, loaded when it runs. */
import { Argument, Command, Flag } from "effect/cli"
import { speechFormats, speechVoices } from "../../core/media/Speech.js"
import { commonOptions, modelOptions } from "../support/CommonOptions.js"
import { lazily } from "../support/Lazy.js"

const options = {
  ...commonOptions,
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
  text: Argument.String("TEXT").pipe(Argument.withDescription("the text to speak; - reads it from standard input")),
  ...modelOptions
}

/** The `umg speak` command. @category commands */
export const speakCommand = Command.make("speak", options, (o) =>
  lazily(
    () => import("../commands/speak.js"),
    (m) => m.runSpeak(o)
  )
).pipe(
  Command.withDescription(
    `turn text into speech and write the audio to a file. Example: umg speak -m gpt-4o-mini-tts --voice alloy -o hello.mp3 "Hello there"`
  )
)
