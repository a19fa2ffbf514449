import tseslint from "typescript-eslint";

const impure = {
  patterns: [
    { group: ["**/http/**", "**/state/**", "**/cron/**", "**/cli/**", "**/worker"], message: "inner layers (engines, jq, bundle, metrics) stay pure: no imports from outer layers" },
    { group: ["hono", "hono/*", "cloudflare:*", "node:*"], message: "inner layers (engines, jq, bundle, metrics) never touch the runtime" },
  ],
};

export default tseslint.config(
  { ignores: ["node_modules/**", ".wrangler/**", ".bench/**", "src/bundle/embedded.generated.json", "src/http/playground/assets.generated.js", "coverage/**"] },
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
    rules: { "no-restricted-imports": ["error", { patterns: [{ group: ["**/http/**", "**/cli/**"], message: "state/ and cron/ never import from http/ or cli/" }] }] },
  },
  {
    // Every log line is one JSON object: the Worker writes them through src/log-line.ts only (the CLI's output is not a log).
    files: ["src/**/*.ts"],
    ignores: ["**/*.test.ts", "src/log-line.ts", "src/cli/**"],
    rules: { "no-console": "error" },
  },
  {
    files: ["src/engines/**/*.ts", "src/jq/**/*.ts", "src/bundle/**/*.ts", "src/metrics/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: { "no-restricted-imports": ["error", impure] },
  },
);
