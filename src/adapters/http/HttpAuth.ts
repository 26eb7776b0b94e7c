/**
 * How one request carries its credential, applied at the last moment so the secret stays `Redacted`
 * everywhere else. The credential goes in a Bearer header, a raw header such as `x-vendor-api-key` or
 * the platform's ready-made `Bearer …` token, or a `?key=` query parameter.
 */
import * as Redacted from "effect/Redacted"

/** A request's credential. @category models */
export type Auth =
  /** `Authorization: Bearer <token>`. */
  | { readonly _tag: "Bearer"; readonly token: Redacted.Redacted<string> }
  /** `<header>: <value>` as given (the platform token already starts with `Bearer `). */
  | { readonly _tag: "Header"; readonly header: string; readonly value: Redacted.Redacted<string> }
  /** `?<name>=<value>`. */
  | { readonly _tag: "Query"; readonly name: string; readonly value: Redacted.Redacted<string> }
  /** Several credential headers at once (the model list's format-selecting headers). */
  | { readonly _tag: "Headers"; readonly headers: Redacted.Redacted<Readonly<Record<string, string>>> }
  | { readonly _tag: "None" }

/** No credential (E7, cross-origin redirects). @category constructors */
export const none: Auth = { _tag: "None" }

/** `Authorization: Bearer <token>`. @category constructors */
export const bearer = (token: Redacted.Redacted<string>): Auth => ({ _tag: "Bearer", token })

/**
 * The `Authorization` header with a value used verbatim. The E7 token's `data` already begins with
 * `Bearer `; a value without that prefix gets it, so neither `Bearer Bearer x` nor a bare token is sent.
 * @category constructors
 */
export const platformToken = (data: Redacted.Redacted<string>): Auth => {
  const raw = Redacted.value(data).trim()
  const value = /^bearer\s+/i.test(raw) ? `Bearer ${raw.replace(/^bearer\s+/i, "")}` : `Bearer ${raw}`
  return { _tag: "Header", header: "authorization", value: Redacted.make(value) }
}

/** Header names that hold a credential: redacted in spans and never sent across origins. @category models */
export const secretHeaderNames: ReadonlyArray<string> = [
  "authorization",
  "x-api-key",
  "x-vendor-api-key",
  "cookie",
  "set-cookie"
]

/**
 * The headers that carry the credential (`undefined` for a query parameter or none), so a request's
 * headers are made in one go with them; a query credential is `queryOf`.
 * @category accessors
 */
export const headersOf = (auth: Auth): Readonly<Record<string, string>> | undefined => {
  switch (auth._tag) {
    case "Bearer":
      return { authorization: `Bearer ${Redacted.value(auth.token)}` }
    case "Header":
      return { [auth.header]: Redacted.value(auth.value) }
    case "Headers":
      return Redacted.value(auth.headers)
    case "Query":
    case "None":
      return undefined
  }
}

/** The URL parameter that carries a `?<name>=<value>` credential, `undefined` for any other. @category accessors */
export const queryOf = (auth: Auth): readonly [name: string, value: string] | undefined =>
  auth._tag === "Query" ? [auth.name, Redacted.value(auth.value)] : undefined
