// The types of scripts/bundle-cli.mjs, for the tests that import its options.
import type { BuildOptions } from "esbuild"

export declare const binOptions: BuildOptions
