/** Validation: the rules the body Schemas carry (FieldRules), the check against them (Conform), closed bodies, and the paths and messages every path shares (Rules). */
export * as Rules from "./Rules.js"
export * from "./Closed.js"
export * from "./NestedFields.js"
export * from "./FieldRules.js"
export * from "./Conform.js"
