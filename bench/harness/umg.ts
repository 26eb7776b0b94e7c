/**
 * Where the benches load umg from: the built package in `dist/` — what users run, like every other
 * contender's published JavaScript — or, with `UMG_BENCH_SOURCE=1`, the TypeScript sources through tsx.
 * The sources cost more than users pay: tsx keeps function names by a call for every closure made,
 * measured at +1.7 µs per decoded stream event (4.2 µs against 2.5 µs from `dist/`). `npm run bench`
 * builds `dist/` first; run `npm run build` before running one bench by hand.
 */
import { existsSync } from "node:fs"
import { fileURLToPath, pathToFileURL } from "node:url"

type GatewayModule = typeof import("../../src/adapters/Gateway.js")
type RxModule = typeof import("../../src/streams/index.js")
type SseTransportModule = typeof import("../../src/adapters/sse/SseTransport.js")
type MessagesModule = typeof import("../../src/adapters/groups/Messages.js")
type ByteSourceModule = typeof import("../../src/adapters/http/ByteSource.js")
type ErrorsModule = typeof import("../../src/core/errors/GatewayError.js")
type SseModule = typeof import("../../src/core/wire/Sse.js")
type NodeByteTextModule = typeof import("../../src/adapters/sse/NodeByteText.js")

const SOURCE = process.env.UMG_BENCH_SOURCE === "1"
const root = new URL("../../", import.meta.url)

/** Another build to measure instead of this checkout's `dist/` (`bench/ab.ts` sets it per worker). */
const DIST = process.env.UMG_BENCH_DIST

const load = async <M>(path: string): Promise<M> => {
  const file = SOURCE
    ? new URL(`src/${path}.ts`, root)
    : DIST !== undefined
      ? pathToFileURL(`${DIST.replace(/\/$/, "")}/${path}.js`)
      : new URL(`dist/${path}.js`, root)
  if (!SOURCE && !existsSync(fileURLToPath(file)))
    throw new Error(`${fileURLToPath(file)} is missing: run \`npm run build\` first (or set UMG_BENCH_SOURCE=1)`)
  return (await import(file.href)) as M
}

/** `Gateway` and its module, from `dist/` or the sources. @category constructors */
export const gatewayModule = (): Promise<GatewayModule> => load<GatewayModule>("adapters/Gateway")

/** `umg/rx`, from `dist/` or the sources. @category constructors */
export const rxModule = (): Promise<RxModule> => load<RxModule>("streams/index")

/**
 * The SSE decoder, the messages family's stream spec, body sources and the typed errors, from `dist/`
 * or the sources.
 * @category constructors
 */
export const sseModules = async (): Promise<{
  readonly transport: SseTransportModule
  readonly messages: MessagesModule
  readonly byteSource: ByteSourceModule
  readonly errors: ErrorsModule
}> => ({
  transport: await load<SseTransportModule>("adapters/sse/SseTransport"),
  messages: await load<MessagesModule>("adapters/groups/Messages"),
  byteSource: await load<ByteSourceModule>("adapters/http/ByteSource"),
  errors: await load<ErrorsModule>("core/errors/GatewayError")
})

/** The core's SSE parser, from `dist/` or the sources. @category constructors */
export const sseParserModule = (): Promise<SseModule> => load<SseModule>("core/wire/Sse")

/**
 * The `ByteText` the gateway's streams give that parser on Node (`#umg/bytes`), from `dist/` or the
 * sources: what umg's parser reads bytes with in every stream it runs on Node.
 * @category constructors
 */
export const nodeByteText = async (): Promise<NodeByteTextModule["platformByteText"]> =>
  (await load<NodeByteTextModule>("adapters/sse/NodeByteText")).platformByteText

/** What the tables say about where umg was loaded from. @category constants */
export const umgBuild = SOURCE
  ? "umg from its sources (tsx)"
  : DIST !== undefined
    ? `umg from ${DIST} (built by tsc)`
    : "umg from dist/ (built by tsc)"
