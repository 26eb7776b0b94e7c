/**
 * A bad command line, said in one line: which flag or argument, what it allows, and the command's
 * usage. The command line is read against the commands' parameters (their flags, value types,
 * choices and arguments) before effect/cli parses it — so that every problem is named the same way,
 * the flag and what it allows — and again when effect/cli rejects it (a missing flag or argument),
 * whose `CliError`s are turned into the same one line.
 */
import { GlobalFlag, Param, Primitive, type CliError, type Command } from "effect/cli"
import * as Data from "effect/Data"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { nearestName } from "../../core/validation/DidYouMean.js"
import { reportOf } from "./ExitCode.js"

/** One flag of a command: its names, the value it takes, and whether it must or may repeat. @category models */
export interface FlagSpec {
  /** `-m`, `--model`: the last is the long name. */
  readonly names: ReadonlyArray<string>
  /** `boolean` (no value), a value type (`text`, `integer`, `float`, `file`, `directory`, …) or `choice`. */
  readonly value: string
  /** The allowed values of a `choice`. */
  readonly choices: ReadonlyArray<string>
  readonly required: boolean
  readonly repeated: boolean
}

/** One positional argument of a command (`<PROMPT>`). @category models */
export interface ArgSpec {
  readonly name: string
  readonly repeated: boolean
}

/** What a command accepts, read from its parameters. @category models */
export interface CommandSpec {
  /** `umg video status` */
  readonly path: string
  readonly flags: ReadonlyArray<FlagSpec>
  readonly args: ReadonlyArray<ArgSpec>
  readonly children: ReadonlyArray<CommandSpec>
}

// effect/cli's names of value types, as umg names them (`--model <text>`, `expects a number`).
const valueNames: Readonly<Record<string, string>> = {
  string: "text",
  integer: "integer",
  number: "float",
  boolean: "boolean"
}

type AnyParam = Param.Param<Param.ParamKind, unknown>

/** A parameter's single flag or argument, and whether it may be absent or repeated (its wrappers: `optional`, `withDefault`, `atLeast`, …). */
const unwrap = (
  param: AnyParam,
  optional = false,
  repeated = false
): {
  readonly single: Param.Single<Param.ParamKind, unknown>
  readonly optional: boolean
  readonly repeated: boolean
} => {
  if (Param.isSingle(param)) return { single: param, optional, repeated }
  switch (param._tag) {
    case "Optional":
      return unwrap((param as Param.Optional<Param.ParamKind, unknown>).param, true, repeated)
    case "Variadic":
      return unwrap((param as Param.Variadic<Param.ParamKind, unknown>).param, optional, true)
    default:
      // Map and Transform (`withDefault`, `withSchema`, …) keep the parameter they change.
      return unwrap((param as Param.Map<Param.ParamKind, unknown, unknown>).param, optional, repeated)
  }
}

// A choice's values: effect/cli keeps them on its `Choice` primitive, which its type does not show.
const choicesOf = (primitive: Primitive.Primitive<unknown>): ReadonlyArray<string> | undefined => {
  const keys: unknown =
    primitive._tag === "Choice" ? (primitive as { readonly choiceKeys?: unknown }).choiceKeys : undefined
  return Array.isArray(keys) && keys.every((k) => typeof k === "string") ? keys : undefined
}

/** The flag of one flag parameter: its name and aliases, value type or choices, whether required or repeatable. @category constructors */
export const flagSpecOf = (param: AnyParam): FlagSpec => {
  const { single, optional, repeated } = unwrap(param)
  const names = [...single.aliases.map((a) => (a.length === 1 ? `-${a}` : `--${a}`)), `--${single.name}`]
  const choices = choicesOf(single.primitiveType)
  const type = single.typeName ?? Primitive.getTypeName(single.primitiveType)
  const value = choices !== undefined ? "choice" : (valueNames[type] ?? type)
  return { names, value, choices: choices ?? [], required: !optional && !repeated && value !== "boolean", repeated }
}

// Options effect/cli adds to every command (shown in `--help` under GLOBAL FLAGS).
const builtIns: ReadonlyArray<FlagSpec> = GlobalFlag.BuiltIns.map((flag) => flagSpecOf(flag.flag))

// The parameters effect/cli keeps on a command (its parser and its help read them); `Command`'s type
// does not show them, so they are read here, checked at run time: a framework that moved them fails
// loudly (and test/cli with it), never silently accepting any command line.
interface CommandParams {
  readonly config: { readonly flags: ReadonlyArray<AnyParam>; readonly arguments: ReadonlyArray<AnyParam> }
}
const hasParams = (command: object): command is CommandParams => {
  const config: unknown = (command as { readonly config?: unknown }).config
  return (
    typeof config === "object" &&
    config !== null &&
    Array.isArray((config as { flags?: unknown }).flags) &&
    Array.isArray((config as { arguments?: unknown }).arguments)
  )
}

const paramsOf = (command: Command.Command.Any): CommandParams["config"] => {
  if (!hasParams(command)) throw new Error(`umg: cannot read the parameters of command ${command.name} from effect/cli`)
  return command.config
}

/** The command's flags and arguments. @category constructors */
export const specOfCommand = (
  command: Command.Command.Any
): { readonly name: string; readonly flags: ReadonlyArray<FlagSpec>; readonly args: ReadonlyArray<ArgSpec> } => {
  const { flags, arguments: args } = paramsOf(command)
  return {
    name: command.name,
    flags: flags.map(flagSpecOf),
    args: args.map((param) => {
      const { single, repeated } = unwrap(param)
      return { name: `<${single.name}>`, repeated }
    })
  }
}

const subcommandsOf = (command: Command.Command.Any): ReadonlyArray<Command.Command.Any> =>
  command.subcommands.flatMap((group) => group.commands)

/**
 * The spec of a program and its commands (each with its subcommands, if any).
 * @category constructors
 */
export const commandSpecs = (program: string, commands: ReadonlyArray<Command.Command.Any>): CommandSpec => ({
  path: program,
  flags: [],
  args: [],
  children: commands.map((command) => {
    const own = specOfCommand(command)
    const path = `${program} ${own.name}`
    return {
      path,
      flags: own.flags,
      args: own.args,
      children: subcommandsOf(command).map((sub) => {
        const spec = specOfCommand(sub)
        return { path: `${path} ${spec.name}`, flags: spec.flags, args: spec.args, children: [] }
      })
    }
  })
})

/**
 * A command line umg does not accept. `message` is the whole line, starting with the command
 * (`umg video: --resolution "9000p" is not allowed; allowed: 480p, 720p, 1080p, 4k`).
 * @category errors
 */
export class UsageError extends Data.TaggedError("UsageError")<{
  /** The command concerned: `umg video status`. */
  readonly command: string
  /** The flag or argument at fault (`--resolution`, `<PROMPT>`), when there is one. */
  readonly field?: string
  /** `one-of`, `integer`, `number`, `unknown-flag`, `value-required`, `once`, `required`, `value`, `unexpected-argument`, `unknown-command`, `usage`. */
  readonly rule: string
  readonly message: string
}> {}

const usageError = (spec: CommandSpec, rule: string, message: string, field?: string): UsageError =>
  new UsageError({
    command: spec.path,
    rule,
    message: `${spec.path}: ${message}`,
    ...(field !== undefined ? { field } : {})
  })

const longName = (flag: FlagSpec): string => flag.names[flag.names.length - 1] ?? ""
const lastWord = (spec: CommandSpec): string => spec.path.split(" ").pop() ?? ""
const childNames = (spec: CommandSpec): ReadonlyArray<string> => spec.children.map(lastWord).sort()
const normalize = (text: string) => text.toLowerCase()
const isTrue = (v: string) => ["true", "1", "y", "yes", "on"].includes(v)
const isFalse = (v: string) => ["false", "0", "n", "no", "off"].includes(v)
// A flag is `-x`, `--name` or `--name=value`; `-`, `-5` and `- a list` are values.
const isFlag = (token: string) => /^--?[A-Za-z][^\s=]*(=[\s\S]*)?$/.test(token)
// The same decoders effect/cli's integer and number flags use (`Primitive.Int`, `Primitive.Finite`).
const decodeFloat = Schema.decodeUnknownOption(Schema.toCodecStringTree(Schema.Finite))
const decodeInteger = Schema.decodeUnknownOption(Schema.toCodecStringTree(Schema.Int))

const placeholder = (flag: FlagSpec): string =>
  flag.value === "boolean" ? "" : flag.value === "choice" ? ` ${flag.choices.join("|")}` : ` <${flag.value}>`

/** The command's usage in one line: required flags, `[options]`, arguments, subcommands. @category rendering */
export const usageLine = (spec: CommandSpec): string => {
  const required = spec.flags.filter((f) => f.required).map((f) => `${longName(f)}${placeholder(f)}`)
  const optional = spec.flags.some((f) => !f.required) ? ["[options]"] : []
  const args = spec.args.map((a) => (a.repeated ? `${a.name}...` : a.name))
  const own = [spec.path, ...required, ...optional, ...args].join(" ")
  return spec.children.length > 0 ? `${own} or ${spec.path} <${childNames(spec).join("|")}> ...` : own
}

// The one "did you mean" rule of umg (body fields, flags, commands): `--zzz` is not a misspelt `--json`.
const nearest = nearestName

// `umg video "a fox"`: the command takes its prompt as a flag.
const promptHint = (spec: CommandSpec): string =>
  spec.flags.some((f) => f.names.includes("--prompt")) ? " (the prompt goes in --prompt)" : ""

const quoted = (value: string) => JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)

const expected = (flag: FlagSpec): string => {
  switch (flag.value) {
    case "choice":
      return `one of ${flag.choices.join(", ")}`
    case "integer":
      return "an integer"
    case "float":
      return "a number"
    case "file":
    case "directory":
    case "path":
      return `a ${flag.value} path`
    default:
      return flag.value
  }
}

/** Checks one flag's value against its type or choices; `name` is the flag as typed. */
const valueProblem = (spec: CommandSpec, flag: FlagSpec, name: string, value: string): UsageError | undefined => {
  const field = longName(flag)
  if (flag.value === "choice" && !flag.choices.includes(value))
    return usageError(
      spec,
      "one-of",
      `${name} ${quoted(value)} is not allowed; allowed: ${flag.choices.join(", ")}`,
      field
    )
  if (flag.value === "integer" && Option.isNone(decodeInteger(value)))
    return usageError(spec, "integer", `${name} expects an integer, got ${quoted(value)}`, field)
  if (flag.value === "float" && Option.isNone(decodeFloat(value)))
    return usageError(spec, "number", `${name} expects a number, got ${quoted(value)}`, field)
  return undefined
}

const unknownFlag = (spec: CommandSpec, given: string): UsageError => {
  // A long flag is suggested for a long one, a short for a short: `--x` is not a misspelt `-h`.
  const long = given.startsWith("--")
  const suggestion = nearest(
    given,
    [...spec.flags, ...builtIns].flatMap((f) => f.names).filter((n) => n.startsWith("--") === long)
  )
  if (suggestion !== undefined)
    return usageError(spec, "unknown-flag", `unknown flag ${given}; did you mean ${suggestion}?`, given)
  const known =
    spec.flags.length > 0
      ? `${spec.path} takes ${spec.flags.map(longName).join(", ")}`
      : `${spec.path} takes no flags of its own`
  // Text that starts with a dash is still an argument after `--`.
  const dash = spec.args.length > 0 ? "; an argument that starts with - goes after --" : ""
  return usageError(spec, "unknown-flag", `unknown flag ${given}; ${known} (see ${spec.path} --help)${dash}`, given)
}

/**
 * Reads one command's part of the command line: every flag known, given a valid value, given once;
 * then no more positional arguments than the command takes. Returns the first problem, if any.
 */
const scan = (spec: CommandSpec, tokens: ReadonlyArray<string>): UsageError | undefined => {
  const flags = [...spec.flags, ...builtIns]
  const seen = new Set<FlagSpec>()
  const positionals: Array<string> = []
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!
    if (token === "--") {
      positionals.push(...tokens.slice(i + 1))
      break
    }
    if (!isFlag(token)) {
      positionals.push(token)
      continue
    }
    const eq = token.startsWith("--") ? token.indexOf("=") : -1
    const given = eq > 0 ? token.slice(0, eq) : token
    const inline = eq > 0 ? token.slice(eq + 1) : undefined
    const flag = flags.find((f) => f.names.some((n) => normalize(n) === normalize(given)))
    if (flag === undefined) return unknownFlag(spec, given)
    const long = longName(flag)
    // Named as typed, with the long name when a short one was used: `-m (--model)`.
    const name = normalize(given) === normalize(long) ? long : `${given} (${long})`
    if (seen.has(flag) && !flag.repeated)
      return usageError(spec, "once", `${long} is given more than once; give it once`, long)
    seen.add(flag)
    if (flag.value === "boolean") {
      const next = tokens[i + 1]
      if (inline === undefined && next !== undefined && (isTrue(next) || isFalse(next))) i++
      continue
    }
    const value = inline ?? tokens[i + 1]
    if (value === undefined) return usageError(spec, "value-required", `${name} needs a value: ${expected(flag)}`, long)
    if (inline === undefined) i++
    const problem = valueProblem(spec, flag, name, value)
    if (problem !== undefined) return problem
  }
  const capacity = spec.args.some((a) => a.repeated) ? Infinity : spec.args.length
  const extra = positionals[capacity]
  if (extra === undefined) return undefined
  if (spec.children.length > 0) {
    const names = childNames(spec)
    const suggestion = nearest(extra, names)
    const didYouMean = suggestion !== undefined ? `did you mean ${suggestion}? ` : ""
    // A group (`umg platform`) only has subcommands; `umg video` also runs itself, with flags only.
    return spec.flags.length === 0
      ? usageError(
          spec,
          "unknown-command",
          `unknown subcommand ${quoted(extra)}; ${didYouMean}subcommands: ${names.join(", ")}`,
          extra
        )
      : usageError(
          spec,
          "unexpected-argument",
          `unexpected argument ${quoted(extra)}: not a subcommand (${names.join(", ")}) and ${spec.path} takes no arguments${promptHint(spec)}; ${didYouMean}usage: ${usageLine(spec)}`,
          extra
        )
  }
  const hint = spec.args.length > 0 ? " (quote text that has spaces)" : promptHint(spec)
  return usageError(
    spec,
    "unexpected-argument",
    `unexpected argument ${quoted(extra)}${hint}; usage: ${usageLine(spec)}`,
    extra
  )
}

interface Resolved {
  /** The command the line runs. */
  readonly spec: CommandSpec
  /** Each command on the way with the words that belong to it. */
  readonly parts: ReadonlyArray<readonly [CommandSpec, ReadonlyArray<string>]>
  readonly unknownCommand?: UsageError
}

/** The command a command line names, and the words that belong to each command on the way. */
const resolve = (program: CommandSpec, tokens: ReadonlyArray<string>): Resolved => {
  // Before the command: only effect/cli's own options (`umg --log-level debug chat …`).
  let i = 0
  while (i < tokens.length && isFlag(tokens[i]!)) {
    const flag = builtIns.find((f) => f.names.includes(tokens[i]!))
    i += flag !== undefined && flag.value !== "boolean" ? 2 : 1
  }
  const rootPart = [program, tokens.slice(0, i)] as const
  const name = tokens[i]
  if (name === undefined) return { spec: program, parts: [rootPart] }
  const command = program.children.find((c) => lastWord(c) === name)
  if (command === undefined) {
    const names = program.children.map(lastWord)
    const suggestion = nearest(name, names)
    const message = `unknown command ${quoted(name)}; ${suggestion !== undefined ? `did you mean ${suggestion}? ` : ""}commands: ${names.join(", ")}`
    return { spec: program, parts: [rootPart], unknownCommand: usageError(program, "unknown-command", message, name) }
  }
  const rest = tokens.slice(i + 1)
  // As effect/cli splits it: the parent's part ends at the first word that names a subcommand.
  const at = rest.findIndex((t) => command.children.some((c) => lastWord(c) === t))
  if (at < 0) return { spec: command, parts: [rootPart, [command, rest]] }
  const child = command.children.find((c) => lastWord(c) === rest[at])!
  return { spec: child, parts: [rootPart, [command, rest.slice(0, at)], [child, rest.slice(at + 1)]] }
}

/**
 * `umg video --emulator status ID`: effect/cli reads a subcommand's flags after it only, and refuses
 * any flag between the parent and it (effect/cli's own, such as `--log-level`, excepted). Says where
 * the flag goes, or that the subcommand does not take it.
 */
const flagBeforeSubcommand = (resolved: Resolved): UsageError | undefined => {
  const parent = resolved.parts.length === 3 ? resolved.parts[1] : undefined
  if (parent === undefined) return undefined
  const child = resolved.spec
  const named = (flags: ReadonlyArray<FlagSpec>, given: string) =>
    flags.find((f) => f.names.some((n) => normalize(n) === normalize(given)))
  for (const token of parent[1]) {
    if (token === "--") return undefined
    if (!isFlag(token)) continue
    const eq = token.startsWith("--") ? token.indexOf("=") : -1
    const given = eq > 0 ? token.slice(0, eq) : token
    if (named(builtIns, given) !== undefined) continue
    const flag = named(child.flags, given)
    const parents = named(parent[0].flags, given)
    if (flag === undefined && parents !== undefined)
      return usageError(
        child,
        "unknown-flag",
        `${given} is a flag of ${parent[0].path}, not of ${child.path}; ${child.path} takes ${child.flags.length > 0 ? child.flags.map(longName).join(", ") : "no flags of its own"} (see ${child.path} --help)`,
        given
      )
    if (flag === undefined) return unknownFlag(child, given)
    return usageError(
      child,
      "unknown-flag",
      `${given} goes after the subcommand: ${child.path} ${longName(flag)}${placeholder(flag)} ...`,
      given
    )
  }
  return undefined
}

/**
 * Whether the command line sets the boolean flag `long` (`--json`) of the command it runs, read as
 * `check` reads it and effect/cli parses it: `--json`, `--json=true`, `--json true` set it; `--json=false`
 * or `--json false` do not, nor does a `--json` after `--` or as another flag's value. The program
 * decides from it how its failures are printed, so that they agree with its results.
 * @category getters
 */
export const booleanFlagSet = (program: CommandSpec, args: ReadonlyArray<string>, long: string): boolean => {
  let set = false
  for (const [spec, tokens] of resolve(program, args).parts) {
    const flags = [...spec.flags, ...builtIns]
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i]!
      if (token === "--") break
      if (!isFlag(token)) continue
      const eq = token.startsWith("--") ? token.indexOf("=") : -1
      const given = eq > 0 ? token.slice(0, eq) : token
      const inline = eq > 0 ? token.slice(eq + 1) : undefined
      const flag = flags.find((f) => f.names.some((n) => normalize(n) === normalize(given)))
      if (flag === undefined) continue
      if (flag.value !== "boolean") {
        // Its value is the next word, whatever it looks like (`--system --json`).
        if (inline === undefined) i++
        continue
      }
      const next = tokens[i + 1]
      const value = inline ?? (next !== undefined && (isTrue(next) || isFalse(next)) ? tokens[++i]! : "true")
      if (longName(flag) === long) set = !isFalse(normalize(value))
    }
  }
  return set
}

/**
 * `--wizard` (effect/cli's built-in) asks its questions on a terminal: without one (stdin or stdout
 * piped) it would write its prompts into the output and end as a success when its input ends, so it
 * is refused, exit 2, saying to give the flags instead.
 * @category constructors
 */
export const wizardWithoutTerminal = (
  program: CommandSpec,
  args: ReadonlyArray<string>,
  terminal: boolean
): UsageError | undefined =>
  !terminal && booleanFlagSet(program, args, "--wizard")
    ? usageError(
        resolve(program, args).spec,
        "terminal",
        "--wizard asks its questions on a terminal, and stdin or stdout is not one: give the flags on the command line (--help lists them)",
        "--wizard"
      )
    : undefined

/**
 * The first problem of a command line (`args`: the words after `umg`) that can be seen without
 * parsing it: an unknown command or flag, a flag's value that is not of its type or choices, a flag
 * without its value or given twice, an argument too many. What only parsing sees (a missing
 * required flag or argument) is left to effect/cli and `explain`.
 * @category constructors
 */
export const check = (program: CommandSpec, args: ReadonlyArray<string>): UsageError | undefined => {
  const resolved = resolve(program, args)
  if (resolved.unknownCommand !== undefined) return resolved.unknownCommand
  const early = flagBeforeSubcommand(resolved)
  if (early !== undefined) return early
  for (const [spec, tokens] of resolved.parts) {
    const problem = scan(spec, tokens)
    // `umg --json models`: the command's flags go after it.
    const misplaced =
      spec === program && problem?.rule === "unknown-flag"
        ? resolved.spec.flags.find((f) => f.names.includes(problem.field ?? ""))
        : undefined
    if (misplaced !== undefined) {
      const shown = `${longName(misplaced)}${placeholder(misplaced)}`
      return usageError(
        program,
        "unknown-flag",
        `${problem!.field} is a flag of ${resolved.spec.path} and goes after it: ${resolved.spec.path} ${shown} ...`,
        problem!.field
      )
    }
    if (problem !== undefined) return problem
  }
  return undefined
}

/**
 * Explains why effect/cli rejected `args` (`errors`: the problems its parser found): the problem
 * `check` sees, or else the missing flag or argument effect/cli names, or at last effect/cli's own
 * text — each with the command's usage.
 * @category constructors
 */
export const explain = (
  program: CommandSpec,
  args: ReadonlyArray<string>,
  errors: ReadonlyArray<CliError.CliError>
): UsageError => {
  const seen = check(program, args)
  if (seen !== undefined) return seen
  const spec = resolve(program, args).spec
  const first = errors[0]
  if (first?._tag === "MissingArgument") {
    const name = first.argument.startsWith("<") ? first.argument : `<${first.argument}>`
    return usageError(spec, "required", `missing required argument ${name}; usage: ${usageLine(spec)}`, name)
  }
  if (first?._tag === "MissingOption") {
    const given = first.option.startsWith("-") ? first.option : `--${first.option}`
    const flag = spec.flags.find((f) => f.names.includes(given))
    const field = flag !== undefined ? longName(flag) : given
    const shown = flag !== undefined ? `${field}${placeholder(flag)}` : field
    return usageError(spec, "required", `missing required flag ${shown}; usage: ${usageLine(spec)}`, field)
  }
  if (first?._tag === "InvalidValue") {
    // A value effect/cli checks itself (a FILE that must exist): its reason, without its "Expected:".
    const name = first.kind === "argument" ? `<${first.option}>` : `--${first.option}`
    const reason = first.expected.replace(/^Expected:?\s*/, "")
    return usageError(spec, "value", `${name} ${quoted(first.value)}: ${reason}; usage: ${usageLine(spec)}`, name)
  }
  // effect/cli's own text, on one line.
  const text = first === undefined ? "invalid command line" : reportOf(first).message
  return usageError(spec, "usage", `${text}; usage: ${usageLine(spec)}`)
}
