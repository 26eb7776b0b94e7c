/** The gateway as a whole: the emulator's model catalogue and E11 model list. */
export * from "./Models.js"
