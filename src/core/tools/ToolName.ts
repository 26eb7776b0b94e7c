/**
 * What a tool name may be, on its own so that the request builders that check it (chat's and
 * responses' function tools) do not load the tool loop's modules. Re-exported by `Tool`.
 */

/** What a tool name may be: 1 to 64 letters, digits, `_` or `-` (the strictest of the families' rules). @category models */
export const toolNamePattern: RegExp = /^[a-zA-Z0-9_-]{1,64}$/
