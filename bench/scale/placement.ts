/**
 * Scale series: a placement decision over 10 / 100 / 300 / 1,000 / 3,000
 * rules, each a `user` rule with its own filter regex, for a user no filter
 * admits (so every rule's filter is tested) before `fixed root.default`.
 * The loaded policy keeps each rule's gate (the literal prefix its filter
 * regexp needs) in one packed array, so an unexplained decision skips these
 * rules without reading them (src/engines/placement/load.ts).
 */
import { compilePlacement, decidePlacement, loadPlacement } from "../../src/engines/placement/index.js";
import { hardRule, placementWithRules } from "../fixtures.js";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { collect, cpuMicros, measureSeries, median, report } from "./series.js";

const SIZES = [10, 100, 300, 1_000, 3_000];

function policyText(n: number): string {
  return placementWithRules(
    n,
    (i) => `{name: user, create: true, filter: {type: allow, users: ["^team${i}-[a-z]+$"]}}`,
  );
}

const request = { user: "carol", groups: ["staff"], queue: "", tags: {} };

const result = measureSeries(
  "placement: N user rules, each with its own filter regex, none admitting the user",
  SIZES,
  (n) => {
    const compiled = compilePlacement(policyText(n));
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.error[0]));
    const policy = loadPlacement(compiled.value);
    const check = decidePlacement(policy, request as never, { explain: false });
    if (JSON.stringify(check.verdict).indexOf("root.default") < 0)
      throw new Error(`unexpected ${JSON.stringify(check.verdict)}`);
    return { run: () => decidePlacement(policy, request as never, { explain: false }) };
  },
);
report(result);

/**
 * The hard shape (issue 31): rules whose regexes have no literal prefix, with
 * groups and a parent rule, for a user and groups none admits. Each filter's
 * gate needs the literal its regex always contains and the group names, so a
 * decision skips the rule without running the regex; compiling the file (YAML
 * and one compile per regex) is noted per size.
 */
function hardText(n: number): string {
  return placementWithRules(n, hardRule, ["{name: users, parent: true}"]);
}

const hardRequest = { user: "carol", groups: ["staff", "dev"], queue: "", tags: {} };
const compileNotes: string[] = [];
const hard = measureSeries(
  "placement, hard shape: N user rules, regexes without literal prefix, with groups and parent",
  SIZES,
  (n) => {
    const text = hardText(n);
    const t0 = process.cpuUsage();
    const compiled = compilePlacement(text);
    const d = process.cpuUsage(t0);
    if (!compiled.ok) throw new Error(JSON.stringify(compiled.error[0]));
    const l0 = process.cpuUsage();
    const policy = loadPlacement(compiled.value);
    const l = process.cpuUsage(l0);
    compileNotes.push(
      `${n} rules: compile ${((d.user + d.system) / 1000).toFixed(0)} ms, load ${((l.user + l.system) / 1000).toFixed(1)} ms`,
    );
    const check = decidePlacement(policy, hardRequest as never, { explain: false });
    if (JSON.stringify(check.verdict).indexOf("root.default") < 0)
      throw new Error(`unexpected ${JSON.stringify(check.verdict)}`);
    return { run: () => decidePlacement(policy, hardRequest as never, { explain: false }) };
  },
);

/**
 * Compiling the 3,000-rule hard file warm (median of 5 compiles in this
 * process after the series and one untimed compile) and cold (the first compile of a fresh process,
 * median of 5 processes: bench/placement-cold.ts), with the cold process's
 * load of the stored policy and its first decision.
 */
function compileFigures(): string[] {
  const text = hardText(3_000);
  const warm: number[] = [];
  // one untimed compile, then no full collection between the timed ones (it would shrink the young generation again)
  collect();
  compilePlacement(text);
  for (let i = 0; i < 5; i++) {
    const t0 = cpuMicros();
    compilePlacement(text);
    warm.push((cpuMicros() - t0) / 1000);
  }
  const file = fileURLToPath(new URL("../placement-cold.ts", import.meta.url));
  const cold: { compileMs: number; loadMs: number; firstDecisionUs: number }[] = [];
  for (let i = 0; i < 5; i++) {
    const r = spawnSync(process.execPath, ["--import", "tsx", file], { encoding: "utf8" });
    const line = r.stdout.split("\n").find((l) => l.startsWith("COLD "));
    if (r.status !== 0 || line === undefined)
      throw new Error(`placement-cold: exited ${r.status}: ${r.stderr.slice(-400)}`);
    cold.push(JSON.parse(line.slice(5)));
  }
  const m = (xs: number[]) => median(xs);
  return [
    `compile 3,000 hard rules: warm ${m(warm).toFixed(0)} ms (median of 5 in one process, after one untimed), cold ${m(cold.map((c) => c.compileMs)).toFixed(0)} ms (first compile of a fresh process, median of 5: ${cold.map((c) => c.compileMs.toFixed(0)).join(" / ")})`,
    `after the cold compile: load ${m(cold.map((c) => c.loadMs)).toFixed(1)} ms, first decision ${m(cold.map((c) => c.firstDecisionUs)).toFixed(0)} µs (medians of the same 5 processes)`,
  ];
}

report({ ...hard, notes: [...hard.notes, ...compileNotes, ...compileFigures()] });
