import { ConfigProvider, Effect } from "effect"
import { CliError } from "effect/cli"
import { describe, expect, it } from "vitest"
import { configuredSecrets, describeReport, ExitCode, redactReport, reportOf } from "../../src/cli/support/ExitCode.js"
import { UsageError } from "../../src/cli/support/UsageError.js"
import { IncompleteStream, RateLimited, TransportError, VideoTaskFailed } from "../../src/core/errors/GatewayError.js"
import { InvalidRequest } from "../../src/core/errors/InvalidRequest.js"
import { BatchInvalidInput } from "../../src/batch/BatchError.js"

describe("exit codes and failure reports", () => {
  it("reports invalid input with exit 2, its field and rule, and says nothing was sent", () => {
    const report = reportOf(
      new InvalidRequest({
        field: "voice",
        rule: "one-of",
        message: 'voice: "bob" is not allowed; allowed: alloy, echo'
      })
    )
    expect(report).toMatchObject({
      exitCode: ExitCode.invalidInput,
      type: "InvalidRequest",
      field: "voice",
      rule: "one-of"
    })
    expect(describeReport(report)).toBe(
      'invalid input (field voice, rule one-of): voice: "bob" is not allowed; allowed: alloy, echo\nnothing was sent.'
    )
  })

  it("tells how to send a model id the catalog does not list from the command line, for a request and a batch line", () => {
    const message =
      'model: "gpt-9" is not a model umg knows for chat; for a model newer than umg\'s catalog pass allowUnknownModels: true'
    const reports = [
      reportOf(new InvalidRequest({ field: "model", rule: "unknown-model", message })),
      reportOf(new BatchInvalidInput({ line: 3, field: "model", rule: "unknown-model", message }))
    ]
    for (const report of reports) {
      expect(report.exitCode).toBe(ExitCode.invalidInput)
      expect(report.message).toBe(
        `${message} (on the command line: --allow-unknown-models, or UMG_ALLOW_UNKNOWN_MODELS=1)`
      )
    }
    // Other rules keep the library's message as it is.
    const other = reportOf(new InvalidRequest({ field: "model", rule: "route", message: "model: use chat" }))
    expect(other.message).toBe("model: use chat")
  })

  it("names a batch line's field with its line, and a batch option as its flag (no line 0)", () => {
    const line = reportOf(new BatchInvalidInput({ line: 7, field: "duration", rule: "one-of", message: "duration: 5" }))
    expect(line.field).toBe("line 7: duration")
    const option = reportOf(
      new BatchInvalidInput({ line: 0, field: "concurrency", rule: "batch-option", message: "concurrency: 0" })
    )
    expect(option).toMatchObject({ exitCode: ExitCode.invalidInput, field: "--concurrency" })
    const file = reportOf(
      new BatchInvalidInput({ line: 0, field: "inputs", rule: "readable", message: "inputs: cannot read" })
    )
    expect(file.field).toBe("FILE")
  })

  it("reports a gateway answer with exit 1, its type, status, gateway type and request id", () => {
    const report = reportOf(
      new RateLimited({
        family: "messages",
        status: 429,
        type: "rate_limit_error",
        message: "slow down",
        requestId: "req_1"
      })
    )
    expect(report.exitCode).toBe(ExitCode.failure)
    expect(describeReport(report)).toBe(
      "RateLimited (status 429, type rate_limit_error, family messages, request id req_1): slow down"
    )
  })

  it("reports a failed video task with exit 1, its task id and error code, in JSON and in text", () => {
    const report = reportOf(
      new VideoTaskFailed({ family: "video", taskId: "video_9", code: 1301, message: "prompt rejected" })
    )
    expect(JSON.parse(JSON.stringify({ error: report }))).toEqual({
      error: {
        exitCode: ExitCode.failure,
        type: "VideoTaskFailed",
        message: "prompt rejected",
        taskId: "video_9",
        code: 1301,
        family: "video"
      }
    })
    expect(describeReport(report)).toBe("VideoTaskFailed (task video_9, code 1301, family video): prompt rejected")
  })

  it("reports a network failure with exit 1 and no status", () => {
    const report = reportOf(new TransportError({ family: "openai", reason: "connect", message: "connection refused" }))
    expect(report).toMatchObject({ exitCode: 1, type: "TransportError", message: "connection refused" })
    expect(report.status).toBeUndefined()
  })

  it("reports a bad command line with exit 2 in one line, the flag as its field", () => {
    const report = reportOf(
      new UsageError({
        command: "umg video",
        field: "--resolution",
        rule: "one-of",
        message: 'umg video: --resolution "9000p" is not allowed; allowed: 480p, 720p, 1080p, 4k'
      })
    )
    expect(report).toMatchObject({
      exitCode: ExitCode.invalidInput,
      type: "UsageError",
      field: "--resolution",
      rule: "one-of"
    })
    expect(describeReport(report)).toBe(
      'umg video: --resolution "9000p" is not allowed; allowed: 480p, 720p, 1080p, 4k'
    )
  })

  it("treats a bad command line as invalid input", () => {
    expect(reportOf(new CliError.MissingArgument({ argument: "PROMPT" })).exitCode).toBe(ExitCode.invalidInput)
    expect(
      reportOf(
        new CliError.ShowHelp({
          commandPath: ["umg", "chat"],
          errors: [new CliError.MissingArgument({ argument: "PROMPT" })]
        })
      ).exitCode
    ).toBe(ExitCode.invalidInput)
  })

  it("prints no configured secret, whichever field of the error holds it, even when another variable is wrong", async () => {
    const key = "sk-umg-printer-secret-4242"
    const password = "platform-pass-9876"
    const secrets = await Effect.runPromise(
      configuredSecrets.pipe(
        Effect.provideService(
          ConfigProvider.ConfigProvider,
          ConfigProvider.fromEnvRecord({ UMG_API_KEY: key, UMG_PLATFORM_PASSWORD: password, UMG_TIMEOUT_MS: "soon" })
        )
      )
    )
    expect(secrets).toEqual([key, password])
    const report = redactReport(
      reportOf(
        new IncompleteStream({
          family: "realtime",
          reason: "error-event",
          message: `Bad key ${key} given; password ${password}`,
          partial: ""
        })
      ),
      secrets
    )
    expect(report).toMatchObject({
      exitCode: ExitCode.failure,
      type: "IncompleteStream",
      message: "Bad key [redacted] given; password [redacted]",
      family: "realtime"
    })
    const gateway = redactReport(
      reportOf(
        new RateLimited({ family: "messages", status: 429, type: "t", message: "slow", requestId: `req-${key}` })
      ),
      secrets
    )
    expect(describeReport(gateway)).not.toContain(key)
    // Long messages are not cut: the net only hides, the adapters bound outside text.
    const long = "x".repeat(2_000)
    expect(redactReport(reportOf(new Error(long)), secrets).message).toBe(long)
  })
})
