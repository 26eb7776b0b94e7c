/** Tools' public names: a tool's definition (`Tool.make`) and the steps of the tool loop. */
import { make, maxTools, toolNamePattern } from "./Tool.js"

/** Tools: `Tool.make({ name, description, parameters, handler })`, and the bounds on names and counts. @category constructors */
export const Tool = { make, maxTools, toolNamePattern } as const
export type { AnyTool, Tool as ToolOf, ToolDefinition } from "./Tool.js"
export {
  type DoneStep,
  type LoopUsage,
  type ModelTurnStep,
  type ToolCallStep,
  ToolFailure,
  type ToolResultStep,
  type ToolStep
} from "./ToolStep.js"
