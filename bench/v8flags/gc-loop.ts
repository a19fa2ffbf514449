/**
 * `npx tsx bench/v8flags/gc-loop.ts [mode] [rounds]`: how many optimized functions each full collection
 * throws away because an object their code embedded died ("embedded weak objects cleared"), for one
 * engine path run in a loop inside workerd (bench/v8flags/gc-loop-worker.ts: `match`, `read`, `lex`),
 * with no HTTP, Miniflare or open loop around it. Serves that Worker from workerd directly (a config of
 * its own, V8 flags `--expose-gc --trace-deopt` and GC_LOOP_FLAGS), then `rounds` times (8) runs the path
 * GC_LOOP_N times (3,000) and a full collection; prints the count per collection and, with
 * GC_LOOP_NAMES=1, the functions. The counts vary from run to run (a function thrown away is only counted
 * again once V8 has optimized it again before the next collection).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { benchPort } from "../workerd.js";

const mode = process.argv[2] ?? "match";
const rounds = Number(process.argv[3] ?? 8);
const n = Number(process.env.GC_LOOP_N ?? 3000);
const extra = (process.env.GC_LOOP_FLAGS ?? "").split(" ").filter((f) => f !== "");

const dir = mkdtempSync(join(tmpdir(), "gc-loop-"));
try {
  const { build } = (await import("esbuild")) as { build(o: object): Promise<unknown> };
  await build({
    entryPoints: [fileURLToPath(new URL("./gc-loop-worker.ts", import.meta.url))],
    bundle: true,
    format: "esm",
    platform: "browser",
    outfile: join(dir, "worker.mjs"),
    logLevel: "error",
  });
  const port = await benchPort(0);
  const flags = [...extra, "--expose-gc", "--trace-deopt"].map((f) => JSON.stringify(f)).join(", ");
  writeFileSync(
    join(dir, "config.capnp"),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .w) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
  v8Flags = [ ${flags} ],
);
const w :Workerd.Worker = (
  modules = [ (name = "worker", esModule = embed "worker.mjs") ],
  compatibilityDate = "2026-04-01",
);
`,
  );
  const fromWrangler = createRequire(createRequire(import.meta.url).resolve("wrangler/package.json"));
  const binary = fromWrangler("workerd") as { default?: string } | string;
  const workerd = spawn(
    "stdbuf",
    ["-oL", typeof binary === "string" ? binary : (binary.default ?? ""), "serve", join(dir, "config.capnp")],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  workerd.stdout.on("data", (c: Buffer) => (out += c.toString()));
  const url = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    try {
      await fetch(`${url}/run?mode=${mode}&n=1`);
      break;
    } catch (e) {
      if (tries > 100) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  for (let i = 0; i < rounds; i++) {
    const ran = await fetch(`${url}/run?mode=${mode}&n=${n}`);
    if (!ran.ok) throw new Error(await ran.text());
    await (await fetch(`${url}/gc`)).text();
  }
  await new Promise((r) => setTimeout(r, 300));
  workerd.kill();
  // the deopt lines of a collection come after its "=== gc" line
  const perGc = out.split("=== gc").slice(1);
  const names = perGc.map((part) =>
    [
      ...part.matchAll(
        /<SharedFunctionInfo ?([^>]*)>\) \(opt id \d+\) for deoptimization, reason: embedded weak/g,
      ),
    ].map((m) => m[1] || "(anonymous)"),
  );
  console.log(
    `${mode}: optimized functions thrown away by each of ${rounds} full collections (${n} runs before each): ${names.map((l) => l.length).join(" ")}`,
  );
  if (process.env.GC_LOOP_NAMES === "1") names.forEach((l, i) => console.log(`  ${i + 1}: ${l.join(", ")}`));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
