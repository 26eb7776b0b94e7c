/** `umg video` and its `status` and `download` as the command tree holds them: flags and help; what they do is `commands/video.ts`, loaded when one runs. */
import { Argument, Command, Flag } from "effect/cli"
import { videoAspectRatios, videoResolutions } from "../../core/video/VideoFields.js"
import { commonOptions, modelOptions } from "../support/CommonOptions.js"
import { lazily } from "../support/Lazy.js"

const load = () => import("../commands/video.js")

const text = (name: string, description: string) =>
  Flag.String(name).pipe(Flag.withDescription(description), Flag.optional)
const int = (name: string, description: string) => Flag.Int(name).pipe(Flag.withDescription(description), Flag.optional)

const videoOptions = {
  ...commonOptions,
  model: Flag.String("model").pipe(
    Flag.withAlias("m"),
    Flag.withDescription("video model id, e.g. delta-1-5-pro-251215"),
    Flag.optional
  ),
  prompt: text("prompt", "scene description"),
  duration: int("duration", "seconds (allowed values depend on the model)"),
  resolution: Flag.Literals("resolution", videoResolutions).pipe(
    Flag.withDescription("the resolution (each model allows some)"),
    Flag.optional
  ),
  aspectRatio: Flag.Literals("aspect-ratio", videoAspectRatios).pipe(
    Flag.withDescription("the aspect ratio (each model allows some)"),
    Flag.optional
  ),
  image: text("image", "first frame: a local image path, an http(s) URL or a data URL"),
  lastFrame: text("last-frame", "last frame: a local image path or URL"),
  reference: Flag.String("reference").pipe(Flag.withDescription("a reference image (repeatable)"), Flag.atLeast(0)),
  seed: int("seed", "random seed"),
  noWait: Flag.Boolean("no-wait").pipe(
    Flag.withDescription("print the task id after submitting and return"),
    Flag.withDefault(false)
  ),
  dryRun: Flag.Boolean("dry-run").pipe(
    Flag.withDescription("print the body that would be sent and send nothing"),
    Flag.withDefault(false)
  ),
  output: Flag.String("output").pipe(
    Flag.withMetavar("file"),
    Flag.withAlias("o"),
    Flag.withDescription("where to write the video (default <task_id>.mp4)"),
    Flag.optional
  ),
  timeout: Flag.String("timeout").pipe(
    Flag.withDescription("the whole command's deadline: 300 (seconds), 90s, 5m or 1500ms (default 300)"),
    Flag.withDefault("300")
  ),
  ...modelOptions
}

const taskId = Argument.String("TASK_ID")

const statusCommand = Command.make("status", { ...commonOptions, taskId }, (o) =>
  lazily(load, (m) => m.runVideoStatus(o))
).pipe(Command.withDescription(`query a video task by its id. Example: umg video status video_abc123`))

const downloadCommand = Command.make(
  "download",
  {
    ...commonOptions,
    taskId,
    model: Flag.String("model").pipe(
      Flag.withAlias("m"),
      Flag.withDescription("the task's model (default: alpha, whose video is downloaded from the gateway)"),
      Flag.optional
    ),
    output: Flag.String("output").pipe(
      Flag.withMetavar("file"),
      Flag.withAlias("o"),
      Flag.withDescription("where to write the video")
    )
  },
  (o) => lazily(load, (m) => m.runVideoDownload(o))
).pipe(
  Command.withDescription(
    "write a succeeded task's video to a file. Example: umg video download -o out.mp4 video_abc123"
  )
)

/** The `umg video` command with its `status` and `download` subcommands. @category commands */
export const videoCommand = Command.make("video", videoOptions, (o) => lazily(load, (m) => m.runVideo(o))).pipe(
  Command.withDescription(
    `generate a video: build the family's body, submit, poll with progress, save. Example: umg video -m beta-3.1-fast-generate-001 --prompt "a calm sea" --duration 8 --timeout 5m`
  ),
  Command.withSubcommands([statusCommand, downloadCommand])
)
