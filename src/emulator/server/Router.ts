/**
 * Path patterns with `{param}` segments, matched exactly; a parameter may be followed by a literal
 * suffix in the same segment, as in the native-content paths `/v1beta/models/{model}:generateContent`.
 */

/** A compiled pattern: matches a path and returns its parameters, or `undefined`. */
export interface PathPattern {
  readonly source: string
  /** How many parameters the pattern has; literal patterns win over parametrised ones. */
  readonly params: number
  match(path: string): Record<string, string> | undefined
}

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** Compiles `pattern`; a parameter matches one or more characters of a single path segment. */
export const compilePattern = (pattern: string): PathPattern => {
  const names: Array<string> = []
  let re = ""
  let last = 0
  for (const m of pattern.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)) {
    re += escape(pattern.slice(last, m.index))
    // Non-greedy so that a literal suffix (`:generateContent`) stays outside the parameter.
    re += "([^/]+?)"
    names.push(m[1]!)
    last = m.index + m[0].length
  }
  re += escape(pattern.slice(last))
  const regex = new RegExp(`^${re}$`)
  return {
    source: pattern,
    params: names.length,
    match: (path) => {
      const m = regex.exec(path)
      if (m === null) return undefined
      const out: Record<string, string> = {}
      for (let i = 0; i < names.length; i++) {
        try {
          out[names[i]!] = decodeURIComponent(m[i + 1]!)
        } catch {
          return undefined // a malformed escape is not a match (404 rather than a crash)
        }
      }
      return out
    }
  }
}

/** Something routable: a path pattern and a method. */
export interface Routable {
  readonly path: string
  readonly method?: string
}

/** The outcome of routing: the route and its parameters, a 405 (path known, method not), or nothing. */
export type RouteMatch<R> =
  | { readonly kind: "found"; readonly route: R; readonly params: Readonly<Record<string, string>> }
  | { readonly kind: "method-not-allowed"; readonly allowed: ReadonlyArray<string> }
  | { readonly kind: "not-found" }

/** A table of routes; the literal pattern wins when a literal and a parametrised pattern both match. */
export class Router<R extends Routable> {
  private readonly entries: ReadonlyArray<{ readonly route: R; readonly pattern: PathPattern }>
  constructor(routes: ReadonlyArray<R>) {
    const entries = routes.map((route) => ({ route, pattern: compilePattern(route.path) }))
    // Stable sort: fewer parameters first, declaration order otherwise.
    this.entries = entries
      .map((e, i) => ({ e, i }))
      .sort((a, b) => a.e.pattern.params - b.e.pattern.params || a.i - b.i)
      .map((x) => x.e)
  }

  find(method: string | undefined, path: string): RouteMatch<R> {
    const allowed: Array<string> = []
    for (const { route, pattern } of this.entries) {
      const params = pattern.match(path)
      if (params === undefined) continue
      if (method === undefined || route.method === undefined || route.method === method)
        return { kind: "found", route, params }
      allowed.push(route.method)
    }
    return allowed.length > 0 ? { kind: "method-not-allowed", allowed } : { kind: "not-found" }
  }
}
