/** A minimal SSE splitter for the emulator tests: raw text → events, keeping `event:` names and CRLF framing visible. */

/** One event as written on the wire. */
export interface RawEvent {
  readonly event: string | undefined
  readonly data: string
}

/** Splits a whole SSE body into events (comments dropped); accepts `\n` and `\r\n` line ends. */
export const parseSse = (text: string): Array<RawEvent> =>
  text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim().length > 0)
    .map((block) => block.split(/\r?\n/).filter((line) => !line.startsWith(":")))
    .filter((lines) => lines.length > 0)
    .map((lines) => ({
      event: lines.find((l) => l.startsWith("event: "))?.slice(7),
      data: lines
        .filter((l) => l.startsWith("data: "))
        .map((l) => l.slice(6))
        .join("\n")
    }))

/** The JSON payloads of the events (throws on malformed data, which some tests want). */
export const jsonEvents = (text: string): Array<Record<string, unknown>> =>
  parseSse(text)
    .filter((e) => e.data !== "[DONE]")
    .map((e) => JSON.parse(e.data) as Record<string, unknown>)
