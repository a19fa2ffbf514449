/**
 * `npx tsx bench/ab/profile.ts --row <regex> [--tree <checkout>] [--reps 30] [--top 25] [--inclusive]`:
 * runs the A/B rows matching `--row` on one tree (bundled as bench:ab bundles it)
 * under `node --cpu-prof`, then prints the functions with the most self time (or
 * inclusive time) in the measured stretch and
 * the path of the .cpuprofile (open it in Chrome's DevTools for the call tree).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { readSharedData } from "../../test/support/shared-data.js";
import { bundleFor } from "./bundle.js";
import type { Fixtures } from "./rows.js";

const argv = process.argv.slice(2);
function opt(name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return i < 0 ? undefined : argv[i + 1];
}

const OWN = path.resolve(import.meta.dirname, "../..");
const row = opt("row");
if (row === undefined) {
  console.error(
    "usage: npx tsx bench/ab/profile.ts --row <regex> [--tree <checkout>] [--reps 30] [--top 25]",
  );
  process.exit(2);
}
const tree = path.resolve(opt("tree") ?? OWN);
const dir = mkdtempSync(path.join(tmpdir(), "arbiter-prof-"));
const fixtures: Fixtures = {
  limits: readFileSync(path.join(OWN, "policies/limits.json"), "utf8"),
  placement: readFileSync(path.join(OWN, "policies/placement.yaml"), "utf8"),
};
const limits4x = readSharedData("pscheduler", "toolkit-default-limits-4x.json");
if (limits4x !== undefined) fixtures.limits4x = limits4x;
writeFileSync(path.join(dir, "fixtures.json"), JSON.stringify(fixtures));
await bundleFor(path.join(import.meta.dirname, "rows.ts"), path.join(dir, "tree.mjs"), tree);
await bundleFor(path.join(import.meta.dirname, "child.ts"), path.join(dir, "child.mjs"), OWN, false);

const tree0 = path.join(dir, "tree.mjs");
const args = [
  "--expose-gc",
  "--cpu-prof",
  "--cpu-prof-dir",
  dir,
  "--cpu-prof-interval",
  "100",
  path.join(dir, "child.mjs"),
];
args.push(
  "--a",
  tree0,
  "--b",
  tree0,
  "--fixtures",
  path.join(dir, "fixtures.json"),
  "--reps",
  opt("reps") ?? "30",
  "--filter",
  row,
);
const out = spawnSync(process.execPath, args, { encoding: "utf8", maxBuffer: 1 << 26 });
if (out.status !== 0) {
  console.error(out.stderr);
  process.exit(1);
}

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const file = readdirSync(dir).find((f) => f.endsWith(".cpuprofile"))!;
const prof = JSON.parse(readFileSync(path.join(dir, file), "utf8")) as {
  nodes: Node[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
};
// only samples from the rows' sampled stretches count (not building the fixtures or the warm-ups)
const { windows } = JSON.parse(out.stdout.trim().split("\n").pop()!) as { windows: [number, number][] };
const hitsOf = new Map<number, number>();
let t = prof.startTime;
for (let i = 0; i < prof.samples.length; i++) {
  t += prof.timeDeltas[i];
  if (windows.some(([from, to]) => t >= from && t < to))
    hitsOf.set(prof.samples[i], (hitsOf.get(prof.samples[i]) ?? 0) + 1);
}
const keyOf = (n: Node) =>
  `${n.callFrame.functionName || "(anonymous)"} ${path.basename(n.callFrame.url)}:${n.callFrame.lineNumber + 1}`;
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
// self time, or with --inclusive the time of each function with what it calls (each sample counted once per function)
const inclusive = argv.includes("--inclusive");
const self = new Map<string, number>();
let total = 0;
for (const [id, hits] of hitsOf) {
  total += hits;
  const keys = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = inclusive ? parent.get(at) : undefined)
    keys.add(keyOf(byId.get(at)!));
  for (const key of keys) self.set(key, (self.get(key) ?? 0) + hits);
}
const top = Number(opt("top") ?? 25);
console.log(
  `rows matching /${row}/ on ${tree}; ${inclusive ? "inclusive" : "self"} time, ${total} samples\n`,
);
for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top))
  console.log(`${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
console.log(`\nprofile: ${path.join(dir, file)} (bundle ${tree0})`);
