/** The validation rules the body builders share: field paths, allowed values, ranges and their messages. */
export * as Rules from "./Rules.js"
export * from "./Closed.js"
export * from "./NestedFields.js"
export * from "./FieldRules.js"
export * from "./Conform.js"
