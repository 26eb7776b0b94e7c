/**
 * The E3 download (family alpha) as a stream of the video's bytes, in memory bounded by a chunk. The
 * JSON answer is read as it arrives, the base64 video decoded as it comes and handed on, and the
 * answer checked as `decodeVideoDownload` checks it — `success`, `format`, `size` equal to the bytes
 * decoded, strict base64, a `data_url` of `data:video/mp4;base64,` with the same data (compared
 * by a running digest, never held), and a `generation_id` that is the requested id — failing the
 * stream with a `DecodeError` at the first fault or at its end.
 */
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { DecodeError, type RequestError, type TransportError } from "../../core/errors/GatewayError.js"
import { InvalidRequest } from "../../core/errors/InvalidRequest.js"
import { pathSegment } from "../../core/wire/JsonSafety.js"
import type { CallOptions } from "../CallOptions.js"
import type { GroupContext } from "../internal/GroupContext.js"
import { otherTaskFault } from "./VideoTaskId.js"

const decodeError = (message: string) => new DecodeError({ family: "video", what: "video download", message })

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
/**
 * A running digest of a string's characters (two independent 32-bit hashes and the length): enough
 * to tell `data_url`'s data from `base64`'s when they differ, without holding either.
 */
interface Digest {
  update: (code: number) => void
  value: () => string
}

const digest = (): Digest => {
  let a = 0x811c9dc5
  let b = 0x01000193
  let n = 0
  return {
    update: (code) => {
      a = Math.imul(a ^ code, 0x01000193)
      b = Math.imul(b + code + 0x9e3779b9, 0x85ebca6b) ^ (b >>> 13)
      n++
    },
    value: () => `${(a >>> 0).toString(16)}:${(b >>> 0).toString(16)}:${n}`
  }
}

// 255: not in the alphabet.
const CODES: Uint8Array = (() => {
  const table = new Uint8Array(256).fill(255)
  for (let i = 0; i < ALPHABET.length; i++) table[ALPHABET.charCodeAt(i)] = i
  return table
})()
const PAD = 0x3d
const DATA_PREFIX = "data:video/mp4;base64,"

/**
 * Strict base64 decoded a character at a time (as `Base64.decode` decodes it whole): the alphabet,
 * at most two `=` and only at the end, zero unused bits before the padding.
 */
interface Base64Sink {
  /** Takes one character; returns the bytes it completes (0 to 3), or a fault. */
  readonly push: (code: number, out: Array<number>) => string | undefined
  /** After the last character: a fault, or undefined. */
  readonly end: () => string | undefined
  readonly count: () => number
}

const base64Sink = (): Base64Sink => {
  const quad = [0, 0, 0, 0]
  let filled = 0
  let padding = 0
  let chars = 0
  let bytes = 0
  return {
    push: (code, out) => {
      chars++
      if (padding > 0 && code !== PAD) return "base64 has characters after its padding"
      if (code === PAD) {
        if (filled < 2) return `base64 padding in the wrong place near offset ${chars - 1}`
        padding++
        quad[filled++] = 0
      } else {
        const value = CODES[code]!
        if (value === 255 || code > 127) return `invalid base64 character near offset ${chars - 1}`
        quad[filled++] = value
      }
      if (filled < 4) return undefined
      filled = 0
      const n = (quad[0]! << 18) | (quad[1]! << 12) | (quad[2]! << 6) | quad[3]!
      if (padding === 2 && (n & 0xffff) !== 0) return "base64 has non-zero bits before its padding"
      if (padding === 1 && (n & 0xff) !== 0) return "base64 has non-zero bits before its padding"
      out.push((n >> 16) & 0xff)
      bytes++
      if (padding < 2) {
        out.push((n >> 8) & 0xff)
        bytes++
      }
      if (padding < 1) {
        out.push(n & 0xff)
        bytes++
      }
      return undefined
    },
    end: () => (filled !== 0 ? `base64 length must be a multiple of 4, got ${chars}` : undefined),
    count: () => bytes
  }
}

/** What the answer's small fields and its two big ones came to. */
interface Fields {
  readonly small: Map<string, unknown>
  base64Digest?: string
  dataDigest?: string
  decoded?: number
}

// Longest key or small value kept (ids, `format`, `size`, `success`): far above what E3 sends.
const maxSmall = 4_096

type Mode = "value" | "key" | "colon" | "comma" | "string" | "literal" | "nested" | "done"

const isSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09

/**
 * The checks of the whole answer, once it ended: a fault, or undefined. (`generation_id` is checked
 * against the requested id as soon as it is read, by `keep`.)
 */
const checkFields = (fields: Fields): string | undefined => {
  const s = fields.small
  if (s.get("success") !== true) return "the download reported success: false (or no success)"
  if (s.get("format") !== "mp4") return "format is not mp4"
  if (typeof s.get("task_id") !== "string" || typeof s.get("generation_id") !== "string")
    return "task_id or generation_id is missing"
  const size = s.get("size")
  if (typeof size !== "number" || !Number.isInteger(size) || size < 0) return "size is not a whole number"
  if (fields.base64Digest === undefined || fields.dataDigest === undefined) return "base64 or data_url is missing"
  if (fields.decoded !== size) return `size says ${size} bytes but base64 holds ${fields.decoded}`
  if (fields.base64Digest !== fields.dataDigest)
    return "data_url is not data:video/mp4;base64, followed by the same data as base64"
  return undefined
}

/**
 * A push parser of the E3 answer: a JSON object whose `base64` (or, when it comes first, the
 * `data_url` after its prefix) is decoded into bytes as it is read. Other values are kept when short,
 * skipped when nested.
 */
class DownloadParser {
  private readonly fields: Fields = { small: new Map() }
  private mode: Mode | "start" = "start"
  private key = ""
  private raw: Array<number> = []
  private inKey = false
  /** 0 none, 1 after a backslash, 2 to 5 reading the digits of `\uXXXX`. */
  private escape = 0
  private depth = 0
  private nestedString = false
  private decoding = false
  private sink: Base64Sink | undefined
  private hash: Digest | undefined
  private prefixAt = 0
  private readonly seen = new Set<string>()

  /** `videoId`: the requested id, which `generation_id` must be (unchecked when undefined). */
  constructor(private readonly videoId: string | undefined) {}

  /** Reads a chunk of the answer: the video bytes it completes, or a fault. */
  push(chunk: Uint8Array): Uint8Array | string {
    const out: Array<number> = []
    for (let i = 0; i < chunk.length; i++) {
      const code = chunk[i]!
      const fault =
        this.mode === "string"
          ? this.stringByte(code, out)
          : this.mode === "nested"
            ? this.nestedByte(code)
            : this.structureByte(code)
      if (fault !== undefined) return fault
    }
    return Uint8Array.from(out)
  }

  /** After the last chunk: the checks of the whole answer. */
  end(): string | undefined {
    return this.mode === "done" ? checkFields(this.fields) : "the answer ended before its end"
  }

  private get isBig(): boolean {
    return !this.inKey && (this.key === "base64" || this.key === "data_url")
  }

  // A character of the `base64` or `data_url` string, unescaped.
  private big(code: number, out: Array<number>): string | undefined {
    if (this.key === "data_url" && this.prefixAt < DATA_PREFIX.length) {
      if (code !== DATA_PREFIX.charCodeAt(this.prefixAt++)) return `data_url does not start with ${DATA_PREFIX}`
      return undefined
    }
    this.hash!.update(code)
    if (this.decoding) return this.sink!.push(code, out)
    return code === PAD || CODES[code] !== 255 ? undefined : `invalid base64 character in ${this.key}`
  }

  private openString(): void {
    if (this.inKey) {
      this.raw = []
      return
    }
    if (this.isBig) {
      this.hash = digest()
      this.prefixAt = 0
      // The first of the two is decoded; the other only digested, to be compared.
      this.decoding = this.sink === undefined
      if (this.decoding) this.sink = base64Sink()
    } else this.raw = [0x22]
  }

  private closeString(): string | undefined {
    if (this.inKey) {
      this.key = new TextDecoder().decode(new Uint8Array(this.raw))
      this.inKey = false
      this.mode = "colon"
      return undefined
    }
    this.mode = "comma"
    if (!this.isBig) {
      this.raw.push(0x22)
      return this.keep()
    }
    if (this.key === "data_url" && this.prefixAt < DATA_PREFIX.length)
      return `data_url does not start with ${DATA_PREFIX}`
    const value = this.hash!.value()
    if (this.key === "base64") this.fields.base64Digest = value
    else this.fields.dataDigest = value
    if (!this.decoding) return undefined
    this.decoding = false
    const fault = this.sink!.end()
    if (fault !== undefined) return fault
    this.fields.decoded = this.sink!.count()
    return undefined
  }

  private keep(): string | undefined {
    let value: unknown
    try {
      value = JSON.parse(new TextDecoder().decode(new Uint8Array(this.raw)))
    } catch {
      return `the value of ${JSON.stringify(this.key)} is not JSON`
    }
    this.fields.small.set(this.key, value)
    // Another task's answer is refused as soon as it says so: before its video, when the id comes first.
    return this.key === "generation_id" && typeof value === "string" && this.videoId !== undefined
      ? otherTaskFault("generation_id", this.videoId, value)
      : undefined
  }

  // One byte inside a string (key or value); `out` gets decoded video bytes.
  private stringByte(code: number, out: Array<number>): string | undefined {
    if (this.escape === 1) {
      this.escape = 0
      if (this.isBig) return code === 0x2f ? this.big(code, out) : `${this.key} holds an escape that is not base64`
      this.raw.push(0x5c, code)
      if (code === 0x75) this.escape = 2
      return this.raw.length > maxSmall ? `a value longer than ${maxSmall} bytes` : undefined
    }
    if (this.escape >= 2) {
      this.raw.push(code)
      this.escape = this.escape === 5 ? 0 : this.escape + 1
      return undefined
    }
    if (code === 0x5c) {
      this.escape = 1
      return undefined
    }
    if (code === 0x22) return this.closeString()
    if (code < 0x20) return "a control character in a string"
    if (this.isBig) return this.big(code, out)
    this.raw.push(code)
    return this.raw.length > maxSmall ? `a value longer than ${maxSmall} bytes` : undefined
  }

  // One byte of a nested value (skipped): only its strings and brackets matter.
  private nestedByte(code: number): undefined {
    if (this.nestedString) {
      if (this.escape === 1) this.escape = 0
      else if (code === 0x5c) this.escape = 1
      else if (code === 0x22) this.nestedString = false
      return undefined
    }
    if (code === 0x22) this.nestedString = true
    else if (code === 0x7b || code === 0x5b) this.depth++
    else if (code === 0x7d || code === 0x5d) {
      this.depth--
      if (this.depth === 0) this.mode = "comma"
    }
    return undefined
  }

  // One byte of a number or literal (`true`, `false`, `null`), ended by what follows it.
  private literalByte(code: number): string | undefined {
    if (code === 0x2c || code === 0x7d || isSpace(code)) {
      const fault = this.keep()
      if (fault !== undefined) return fault
      this.mode = "comma"
      return this.structureByte(code)
    }
    this.raw.push(code)
    return this.raw.length > 64 ? "a number or literal longer than 64 characters" : undefined
  }

  // A value's first byte.
  private valueByte(code: number): undefined {
    if (code === 0x22) {
      this.mode = "string"
      this.openString()
    } else if (code === 0x7b || code === 0x5b) {
      this.mode = "nested"
      this.depth = 1
    } else {
      this.mode = "literal"
      this.raw = [code]
    }
    return undefined
  }

  // One byte outside strings: the object's punctuation, a value's start, a literal's characters.
  private structureByte(code: number): string | undefined {
    if (this.mode === "literal") return this.literalByte(code)
    if (isSpace(code)) return undefined
    switch (this.mode) {
      case "start":
        if (code !== 0x7b) return "the answer is not a JSON object"
        this.mode = "key"
        return undefined
      case "key":
        if (code === 0x7d && this.seen.size === 0) {
          this.mode = "done"
          return undefined
        }
        if (code !== 0x22) return "expected a key"
        this.inKey = true
        this.mode = "string"
        this.openString()
        return undefined
      case "colon":
        if (code !== 0x3a) return "expected `:` after a key"
        if (this.seen.has(this.key)) return `the key ${JSON.stringify(this.key)} appears twice`
        this.seen.add(this.key)
        this.mode = "value"
        return undefined
      case "value":
        return this.valueByte(code)
      case "comma":
        if (code === 0x2c || code === 0x7d) {
          this.mode = code === 0x2c ? "key" : "done"
          return undefined
        }
        return "expected `,` or `}`"
      case "done":
        return "bytes after the end of the answer"
      default:
        return undefined
    }
  }
}

/**
 * A parser of one E3 answer: `push` its chunks, then `end`. Given `videoId` (the requested id), an
 * answer whose `generation_id` is another is a fault.
 * @category constructors
 */
export const makeDownloadParser = (
  videoId?: string
): {
  push: (chunk: Uint8Array) => Uint8Array | string
  end: () => string | undefined
} => new DownloadParser(videoId)

/**
 * The video of a succeeded alpha task as a stream of its bytes (E3), never held whole: the answer
 * is checked as it is read, bounded by `limits.maxDownloadBytes`; a fault fails the stream with a
 * `DecodeError` (write it with `writeAtomically`, so a failed download leaves no file). The request
 * is tried again as an idempotent one until its answer starts; a failure after that ends the stream,
 * as does a stalled answer: its time limits are a stream's (`HttpTransport.open`), past one a
 * `TimeoutError`.
 * @category constructors
 */
export const downloadStream = (
  ctx: GroupContext,
  taskId: string,
  options?: CallOptions
): Stream.Stream<Uint8Array, RequestError | TransportError | InvalidRequest | DecodeError> =>
  Stream.unwrap(
    Effect.gen(function* () {
      const segment = pathSegment(taskId)
      if (segment === undefined)
        return yield* Effect.fail(
          new InvalidRequest({
            field: "task_id",
            rule: "path-segment",
            message: "task_id: not a task id (empty, `.`, `..` or holding a slash); it must be one path segment"
          })
        )
      const body = yield* ctx.transport.open({
        family: "video",
        method: "GET",
        url: ctx.gatewayUrl(`/v1/video/generations/download?id=${segment}`),
        auth: ctx.apiAuth,
        kind: "idempotent",
        maxBytes: ctx.config.limits.maxDownloadBytes,
        ...(options === undefined ? {} : { options })
      })
      const parser = makeDownloadParser(taskId)
      const limit = ctx.config.limits.maxDownloadBytes
      let received = 0
      const decoded = Stream.mapEffect(body, (chunk) => {
        received += chunk.length
        if (received > limit)
          return Effect.fail(
            decodeError(`the download is larger than its bound of ${limit} bytes (limits in the config)`)
          )
        const out = parser.push(chunk)
        return typeof out === "string" ? Effect.fail(decodeError(out)) : Effect.succeed(out)
      })
      const ended = Stream.fromEffect(
        Effect.suspend(() => {
          const fault = parser.end()
          return fault === undefined ? Effect.succeed(new Uint8Array(0)) : Effect.fail(decodeError(fault))
        })
      )
      return Stream.concat(decoded, ended).pipe(Stream.filter((bytes) => bytes.length > 0))
    })
  )
