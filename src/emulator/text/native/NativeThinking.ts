/**
 * What thinking a zeta model takes (E10, protocol notes §2.6). Budgets on the 2.5 class, levels on
 * the 3 class, the model id's thinking suffix, and an explicit `thinkingConfig` that must not
 * contradict that suffix; each check returns the message of a 400, or `undefined`.
 */
import { textOf } from "../TextGen.js"

type Obj = Record<string, unknown>

const isNum = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v)

/** A model id's thinking suffix, as NativeRequest reads it. */
export interface ThinkingSuffix {
  readonly on: boolean
  readonly budget?: number
  readonly level?: string
}

/** A zeta model: its id without the suffix, and the suffix. */
interface Model {
  readonly base: string
  readonly suffix: ThinkingSuffix | undefined
}

const LEVELS = ["MINIMAL", "LOW", "MEDIUM", "HIGH"]
const TC = "* GenerateContentRequest.generation_config.thinking_config"

const isTwoFive = (base: string): boolean => base.startsWith("zeta-2.5")

/** The budgets a 2.5 model takes besides -1 (dynamic), as ranges; `undefined`: not checked. */
const thinkingBudgets = (base: string): ReadonlyArray<readonly [number, number]> | undefined =>
  base.startsWith("zeta-2.5-pro")
    ? [[128, 32768]]
    : base.startsWith("zeta-2.5-flash-lite")
      ? [
          [0, 0],
          [512, 24576]
        ]
      : base.startsWith("zeta-2.5-flash")
        ? [[0, 24576]]
        : undefined

/**
 * The levels a 3-class model takes: LOW and HIGH (the contract's 3 class, 3 Pro), all four on the
 * 3 Flash and 3.x Flash-Lite models; `undefined` for a model of another class.
 */
const thinkingLevels = (base: string): ReadonlyArray<string> | undefined =>
  /^zeta-3(?:\.\d+)?-flash(?:-|$)/.test(base) ? LEVELS : /^zeta-3(?:\.\d+)?-/.test(base) ? ["LOW", "HIGH"] : undefined

/** Whether a model can turn thinking off: a budget of 0 on the 2.5 class, the level MINIMAL on the 3 class. */
const canTurnOff = (base: string): boolean => {
  const budgets = thinkingBudgets(base)
  if (budgets !== undefined) return budgets.some(([lo, hi]) => lo <= 0 && 0 <= hi)
  const levels = thinkingLevels(base)
  return levels === undefined || levels.includes("MINIMAL")
}

/** A budget outside the model's ranges (-1, dynamic, is always taken), in upstream's wording. */
const budgetProblem = (base: string, budget: number): string | undefined => {
  if (budget === 0 && base === "zeta-2.5-pro") return "Budget 0 is invalid. This model only works in thinking mode."
  const budgets = thinkingBudgets(base)
  if (budget === -1 || budgets === undefined || budgets.some(([lo, hi]) => budget >= lo && budget <= hi))
    return undefined
  return `The thinking budget ${budget} is invalid. Please choose a value between ${budgets
    .map(([lo, hi]) => (lo === hi ? `${lo}` : `${lo} and ${hi}`))
    .join(", or ")}.`
}

/**
 * The suffix against the model's class: a level (`-thinking-low|high`) only on the 3 class, a budget
 * (`-thinking-<n>`) only on the 2.5 class (a 3-class model takes a `thinkingBudget` in its
 * thinkingConfig, not a budget suffix), greater than 0 and within the model's range, `-nothinking`
 * only on a model that can turn thinking off (not 2.5 Pro, not 3 Pro).
 */
export const suffixProblem = (model: Model): string | undefined => {
  const { base, suffix } = model
  if (suffix === undefined) return undefined
  if (suffix.level !== undefined && isTwoFive(base))
    return `Thinking level is not supported for this model: the suffix -thinking-${suffix.level.toLowerCase()} is for the 3 class; ${base} takes -thinking, -thinking-<budget> or -nothinking.`
  if (suffix.budget !== undefined && thinkingLevels(base) !== undefined)
    return `The suffix -thinking-${suffix.budget} is invalid: budget suffixes are for the 2.5 class; ${base} takes -thinking, -thinking-low or -thinking-high.`
  if (suffix.budget !== undefined && isTwoFive(base))
    return suffix.budget === 0
      ? `The suffix -thinking-0 turns thinking on with a budget of 0; use ${base}-nothinking to turn it off.`
      : budgetProblem(base, suffix.budget)
  if (!suffix.on && !canTurnOff(base))
    return `The suffix -nothinking is invalid: ${base} only works in thinking mode; use ${base}-thinking.`
  return undefined
}

const contradiction = (field: string, value: unknown, suffix: string): string =>
  `${TC}.${field}: ${JSON.stringify(value)} contradicts the model suffix ${suffix}; leave it out or use the model id without the suffix.`

/** An explicit `thinkingConfig` against the suffix: the suffix sets thinking on or off, a budget or a level. */
const contradictionProblem = (t: Obj, suffix: ThinkingSuffix): string | undefined => {
  const budget = t.thinkingBudget
  const level = t.thinkingLevel === undefined ? undefined : textOf(t.thinkingLevel).toUpperCase()
  if (!suffix.on) {
    if (budget !== undefined && budget !== 0) return contradiction("thinking_budget", budget, "-nothinking")
    if (level !== undefined && level !== "MINIMAL")
      return contradiction("thinking_level", t.thinkingLevel, "-nothinking")
    return undefined
  }
  if (suffix.budget !== undefined) {
    const name = `-thinking-${suffix.budget}`
    if (level !== undefined) return contradiction("thinking_level", t.thinkingLevel, name)
    return budget !== undefined && budget !== suffix.budget ? contradiction("thinking_budget", budget, name) : undefined
  }
  if (suffix.level !== undefined) {
    const name = `-thinking-${suffix.level.toLowerCase()}`
    if (budget !== undefined) return contradiction("thinking_budget", budget, name)
    return level !== undefined && level !== suffix.level
      ? contradiction("thinking_level", t.thinkingLevel, name)
      : undefined
  }
  if (budget === 0) return contradiction("thinking_budget", budget, "-thinking")
  return level === "MINIMAL" ? contradiction("thinking_level", t.thinkingLevel, "-thinking") : undefined
}

/**
 * `generationConfig.thinkingConfig` for the model: not both a budget and a level; a level of the
 * model's class (none on the 2.5 class); a budget of the model's range (a 3-class model still takes a
 * budget alone, for backward compatibility: notes §2.6); nothing the suffix contradicts.
 */
export const thinkingConfigProblem = (t: unknown, model: Model): string | undefined => {
  if (typeof t !== "object" || t === null || Array.isArray(t)) return `${TC}: must be an object`
  const config = t as Obj
  if (config.thinkingBudget !== undefined && config.thinkingLevel !== undefined)
    return "thinking_budget and thinking_level are not supported together."
  if (config.thinkingLevel !== undefined) {
    const level = textOf(config.thinkingLevel).toUpperCase()
    if (!LEVELS.includes(level)) return `${TC}.thinking_level: must be MINIMAL, LOW, MEDIUM or HIGH`
    if (isTwoFive(model.base)) return "Thinking level is not supported for this model."
    const levels = thinkingLevels(model.base)
    if (levels !== undefined && !levels.includes(level))
      return `${TC}.thinking_level: ${level} is not supported for ${model.base}; allowed: ${levels.join(", ")}`
  }
  const budget = config.thinkingBudget
  if (budget !== undefined) {
    if (!isNum(budget) || !Number.isInteger(budget) || budget < -1)
      return `${TC}.thinking_budget: must be an integer >= -1`
    const problem = budgetProblem(model.base, budget)
    if (problem !== undefined) return problem
  }
  return model.suffix === undefined ? undefined : contradictionProblem(config, model.suffix)
}
