// ESLint: typescript-eslint's recommended rules plus the type-aware rules that catch real defects
// (promises nobody awaits or handles, conditions the types say are always the same). Formatting is
// Prettier's (.prettierrc.json), not ESLint's.
import js from "@eslint/js"
import globals from "globals"
import tseslint from "typescript-eslint"

export default tseslint.config(
  {
    ignores: [
      "**/dist/**",
      "node_modules/**",
      "tmp/**",
      "coverage/**",
      "bench/out/**",
      "bench/results/**",
      ".umg/**",
      "**/*.d.ts"
    ]
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  { files: ["**/*.mjs"], languageOptions: { globals: globals.node } },
  {
    files: ["**/*.ts"],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname }
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/no-unnecessary-condition": "error",
      "@typescript-eslint/await-thenable": "error",
      // A `let` assigned once from a call whose callbacks may run synchronously (a subscription, an
      // opened body) is read by those callbacks while still undefined; as a `const` it would throw.
      "prefer-const": ["error", { ignoreReadBeforeAssign: true }],
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }
      ]
    }
  }
)
