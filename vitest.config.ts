import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      {
        plugins: [cloudflareTest({ wrangler: { configPath: "./wrangler.toml" } })],
        test: { name: "worker", include: ["test/worker/**/*.test.ts"] },
      },
      {
        test: { name: "node", include: ["src/**/*.test.ts", "test/**/*.test.ts"], exclude: ["test/worker/**"], environment: "node" },
      },
    ],
  },
});
