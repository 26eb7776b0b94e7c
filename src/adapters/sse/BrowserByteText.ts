/**
 * How the gateway's event streams read bytes in browsers (package.json `imports` `#umg/bytes`,
 * `browser` condition): the core's portable `ByteText`, so that no Node module enters a page's
 * bundle. Node gets `NodeByteText.ts`.
 */
import type { ByteText } from "../../core/wire/ByteText.js"

/** The `ByteText` this platform gives the SSE parser: none, the core's own. @category platform */
export const platformByteText: ByteText | undefined = undefined
