import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { resolve } from "node:path";
import type { Bundle } from "../bundle/index.js";

/** The checkout holding wrangler.toml: wrangler always runs there, whatever the caller's folder. */
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** Which POLICIES namespace a command works on: wrangler dev's local state (optionally in a folder) or the deployed one. */
export interface KvTarget {
  where: "local" | "remote";
  persistTo?: string;
}

/** The outcome of one wrangler call. */
export interface WranglerRun {
  ok: boolean;
  stdout: string;
  /** What to tell the user when the call failed. */
  failure: string;
}

function targetFlags(t: KvTarget): string[] {
  return t.persistTo ? [`--${t.where}`, "--persist-to", resolve(t.persistTo)] : [`--${t.where}`];
}

/** Runs `wrangler kv …` on the POLICIES binding; wrangler's own stderr goes to the user. */
export function wranglerKv(args: string[], target: KvTarget): WranglerRun {
  const run = spawnSync("npx", ["wrangler", "kv", ...args, "--binding", "POLICIES", ...targetFlags(target)], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const ok = run.status === 0;
  return {
    ok,
    stdout: run.stdout ?? "",
    failure: ok ? "" : `wrangler kv ${args.slice(0, 3).join(" ")} failed (exit ${run.status ?? run.signal})`,
  };
}

/** The revision `bundle:current` points at in the target namespace, null when there is no pointer. */
export function readPointer(
  target: KvTarget,
): { ok: true; revision: string | null } | { ok: false; failure: string } {
  const run = wranglerKv(["key", "get", "bundle:current", "--text"], target);
  if (!run.ok) return { ok: false, failure: run.failure };
  const text = run.stdout.trim();
  // wrangler prints "Value not found" (and exits 0) for an absent key.
  return { ok: true, revision: /^[0-9a-f]{64}$/.test(text) ? text : null };
}

/** Reads one stored bundle; null when it is absent or not a bundle of that revision. */
export function readBundle(target: KvTarget, revision: string): Bundle | null {
  const run = wranglerKv(["key", "get", `bundle:${revision}`, "--text"], target);
  if (!run.ok) return null;
  try {
    const bundle = JSON.parse(run.stdout) as Bundle;
    return bundle.revision === revision ? bundle : null;
  } catch {
    return null;
  }
}

/** The bundle this checkout embeds in the Worker (built by `npm start`, `npm test` and deploy), if it was built. */
export function embeddedBundle(): Bundle | null {
  const path = `${REPO_ROOT}src/bundle/embedded.generated.json`;
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, "utf8")) as Bundle;
  } catch {
    return null;
  }
}
