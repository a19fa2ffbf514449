/**
 * One cold placement compile, as an isolate makes it after a publish or a
 * cold start: run this file in a fresh process (bench/scale/placement.ts runs
 * it with tsx, bench/ab bundles it once per tree). It compiles the 3,000-rule
 * hard-shape file (bench/fixtures.ts `hardRule`) once, then loads the policy
 * from its bundle form (the compiled data through JSON, as KV holds it) and
 * makes the first decision, and prints one line `COLD {json}` with the CPU
 * time of each step (user + system, so V8's helper threads count).
 */
import { compilePlacement, decidePlacement, loadPlacement } from "../src/engines/placement/index.js";
import * as storeModule from "../src/engines/placement/store.js";
import { hardRule, placementWithRules } from "./fixtures.js";

const RULES = 3_000;

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

const text = placementWithRules(RULES, hardRule, ["{name: users, parent: true}"]);
const c0 = cpuMs();
const compiled = compilePlacement(text);
const c1 = cpuMs();
if (!compiled.ok) throw new Error(JSON.stringify(compiled.error[0]));
// the stored form, as the bundle keeps it (src/engines/placement/store.ts); a tree from before
// 5e9449f has no store module and keeps the compiled data itself (bench/ab bundles it as empty)
const store = storeModule as Partial<typeof storeModule>;
const stored: unknown = JSON.parse(
  JSON.stringify(store.storePlacement ? store.storePlacement(compiled.value) : compiled.value),
);
const l0 = cpuMs();
const policy = loadPlacement(stored as never);
const l1 = cpuMs();
const verdict = decidePlacement(
  policy,
  { user: "carol", groups: ["staff", "dev"], queue: "", tags: {} } as never,
  {
    explain: false,
  },
).verdict;
const d1 = cpuMs();
if (JSON.stringify(verdict).indexOf("root.default") < 0)
  throw new Error(`unexpected ${JSON.stringify(verdict)}`);
console.log(
  `COLD ${JSON.stringify({ rules: RULES, compileMs: c1 - c0, loadMs: l1 - l0, firstDecisionUs: (d1 - l1) * 1000 })}`,
);
