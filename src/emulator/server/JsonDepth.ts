/**
 * The emulator's bound on how deep the JSON it reads may nest (requests and WebSocket frames), checked
 * without recursion; deeper input is the family's invalid-argument answer, never a stack overflow.
 */

/** Deepest JSON a request may nest; deeper is the family's 400 (never a stack overflow in a route). */
export const MAX_JSON_DEPTH = 64

/** Whether `value` nests deeper than `max` (iterative: a 100,000-deep array cannot overflow the stack). */
export const tooDeep = (value: unknown, max: number): boolean => {
  const stack: Array<[unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!
    if (v === null || typeof v !== "object") continue
    if (depth + 1 > max) return true
    for (const child of Array.isArray(v) ? v : Object.values(v))
      if (child !== null && typeof child === "object") stack.push([child, depth + 1])
  }
  return false
}
