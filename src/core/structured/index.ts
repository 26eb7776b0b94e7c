/** Structured output's public names: the schemas umg accepts, the JSON Schema sent for them, and the errors of a typed answer. */
export { type AnySchema, type JsonSchemaObject, jsonSchemaOf, type TypeOf } from "./AnySchema.js"
export { OutputMismatch, OutputRefused, SchemaMismatch, SchemaNotExpressible } from "./StructuredErrors.js"
export type { StructuredOptions } from "./Mechanisms.js"
