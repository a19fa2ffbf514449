import tseslint from "typescript-eslint";

const impure = {
  patterns: [
    {
      group: ["**/http/**", "**/state/**", "**/cron/**", "**/cli/**", "**/worker"],
      message: "inner layers (engines, jq, bundle, metrics) stay pure: no imports from outer layers",
    },
    {
      group: ["hono", "hono/*", "cloudflare:*", "node:*"],
      message: "inner layers (engines, jq, bundle, metrics) never touch the runtime",
    },
  ],
};

export default tseslint.config(
  {
    ignores: [
      "node_modules/**",
      ".wrangler/**",
      ".bench/**",
      "src/bundle/embedded.generated.json",
      "src/http/playground/assets.generated.js",
      "coverage/**",
    ],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-explicit-any": "error",
    },
  },
  {
    // State and scheduled work sit under the HTTP layer: they never reach up into it.
    files: ["src/state/**/*.ts", "src/cron/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/http/**", "**/cli/**"],
              message: "state/ and cron/ never import from http/ or cli/",
            },
          ],
        },
      ],
    },
  },
  {
    // Every log line is one JSON object: the Worker writes them through src/log-line.ts only (the CLI's output is not a log).
    files: ["src/**/*.ts"],
    ignores: ["**/*.test.ts", "src/log-line.ts", "src/cli/**"],
    rules: { "no-console": "error" },
  },
  {
    // `import * as z from "zod"`: with the named `z` (zod's namespace object as a value), the
    // Worker's bundle keeps every export of zod, its 48 locales among them, 264 KB of script
    // text and 0.7 MB of heap in every isolate (docs/performance.md, "The isolate's heap").
    files: ["src/**/*.ts"],
    ignores: ["**/*.test.ts", "src/cli/**"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector:
            "ImportDeclaration[source.value='zod'][importKind!='type'] > :matches(ImportSpecifier[imported.name='z'][importKind!='type'], ImportDefaultSpecifier)",
          message: 'write `import * as z from "zod"`: the named `z` keeps all of zod in the Worker',
        },
      ],
    },
  },
  {
    files: ["src/engines/**/*.ts", "src/jq/**/*.ts", "src/bundle/**/*.ts", "src/metrics/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: { "no-restricted-imports": ["error", impure] },
  },
);
