/**
 * `npm run bench:ab -- --base <checkout> [--head <checkout>]`: the decision rows
 * of `npm run bench` on two trees, paired. Each tree's code is bundled by esbuild
 * (as wrangler bundles the Worker) with the same rows and fixtures. Every round
 * starts a fresh process per group of rows (an engine's rows, bench/ab/groups.ts)
 * that loads both trees' rows of that group, checks their answers agree, warms
 * every row on both trees in turn until it is steady, then measures the rows one
 * at a time in CPU time (bench/ab/child.ts): the same call count for both trees,
 * `reps` paired samples, the order alternating; rounds alternate which tree is
 * loaded, warmed and sampled first. So a row is measured in the same state on
 * both trees, and what other engines' rows left in a heap never reaches it.
 * Prints, per row, the median µs of each tree, head / base, the spread of the
 * paired ratios (10th–90th percentile) and their count, and flags rows more than
 * 10% slower or faster. head / base is the geometric mean over rounds of each
 * round's median paired ratio: a process is the unit that varies (a sub-µs row's
 * whole tree can run 15-25% faster or slower in one process than the same code
 * loaded beside it, at random), so rounds are averaged, samples within one only
 * outvote a collection that hit one sample. Options: --rounds (8), --reps per
 * round (3), --ms per sample (40; at least 4 calls), --filter <regex on row
 * names>, --json <file> to keep the samples, --cold <processes per tree> (8; 0
 * for none): the cold rows, each sample the first compile of the 3,000-rule
 * placement file in a fresh `node --single-threaded` process of one tree
 * (bench/placement-cold.ts), the trees alternating, then that process's load and
 * first decision; each pair of processes counts as a round.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import path from "node:path";
import { readSharedData } from "../../test/support/shared-data.js";
import { bundleFor } from "./bundle.js";
import { ROW_GROUPS } from "./groups.js";
import { quantile } from "../scale/series.js";
import type { Fixtures } from "./rows.js";

const argv = process.argv.slice(2);
function opt(name: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return i < 0 ? undefined : argv[i + 1];
}

const OWN = path.resolve(import.meta.dirname, "../..");
const base = opt("base");
if (base === undefined) {
  console.error(
    "usage: npm run bench:ab -- --base <checkout> [--head <checkout>] [--rounds 8] [--reps 3] [--ms 40] [--filter re] [--json file] [--cold 8]",
  );
  process.exit(2);
}
const head = path.resolve(opt("head") ?? OWN);
const rounds = Number(opt("rounds") ?? 8);
const reps = opt("reps") ?? "3";
const ms = opt("ms") ?? "40";
const filter = opt("filter");
const coldRounds = Number(opt("cold") ?? 8);

const dir = mkdtempSync(path.join(tmpdir(), "arbiter-ab-"));
const fixtures: Fixtures = {
  limits: readFileSync(path.join(OWN, "policies/limits.json"), "utf8"),
  placement: readFileSync(path.join(OWN, "policies/placement.yaml"), "utf8"),
};
const limits4x = readSharedData("pscheduler", "toolkit-default-limits-4x.json");
if (limits4x !== undefined) fixtures.limits4x = limits4x;
writeFileSync(path.join(dir, "fixtures.json"), JSON.stringify(fixtures));

const rowsEntry = path.join(import.meta.dirname, "rows.ts");
await bundleFor(rowsEntry, path.join(dir, "base.mjs"), path.resolve(base));
await bundleFor(rowsEntry, path.join(dir, "head.mjs"), head);
await bundleFor(path.join(import.meta.dirname, "child.ts"), path.join(dir, "child.mjs"), OWN, false);
const coldEntry = path.join(import.meta.dirname, "../placement-cold.ts");
await bundleFor(coldEntry, path.join(dir, "cold-base.mjs"), path.resolve(base));
await bundleFor(coldEntry, path.join(dir, "cold-head.mjs"), head);

interface RoundRow {
  name: string;
  a: number[];
  b: number[];
}

const load0 = loadavg()[0];
console.log(
  `base ${path.resolve(base)}\nhead ${head}\n${rounds} rounds × ${reps} paired samples of ~${ms} ms CPU per row and tree; load average ${load0.toFixed(1)}`,
);
/** Per row: every sample of each tree, every paired ratio, and each round's median ratio. */
interface Acc {
  a: number[];
  b: number[];
  ratios: number[];
  roundRatios: number[];
}
const all = new Map<string, Acc>();
const accOf = (name: string): Acc => {
  const acc = all.get(name) ?? { a: [], b: [], ratios: [], roundRatios: [] };
  all.set(name, acc);
  return acc;
};
const differ = new Set<string>();
for (let r = 0; r < rounds; r++) {
  const flip = r % 2 === 1;
  // one process per group: a row's heap and code state hold only its own engine's rows
  for (const group of ROW_GROUPS) {
    const childArgs = [
      path.join(dir, "child.mjs"),
      "--a",
      path.join(dir, "base.mjs"),
      "--b",
      path.join(dir, "head.mjs"),
      "--fixtures",
      path.join(dir, "fixtures.json"),
      "--group",
      group,
      "--reps",
      reps,
      "--ms",
      ms,
    ];
    if (flip) childArgs.push("--flip");
    if (filter !== undefined) childArgs.push("--filter", filter);
    const out = spawnSync(process.execPath, ["--expose-gc", ...childArgs], {
      encoding: "utf8",
      maxBuffer: 1 << 26,
    });
    if (out.status !== 0) {
      console.error(`round ${r + 1}, ${group} rows, failed:\n${out.stderr}`);
      process.exit(1);
    }
    const result = JSON.parse(out.stdout.trim().split("\n").pop()!) as {
      rows: RoundRow[];
      differ: string[];
    };
    for (const d of result.differ) differ.add(d);
    for (const row of result.rows) {
      const acc = accOf(row.name);
      acc.a.push(...row.a);
      acc.b.push(...row.b);
      const ratios = row.a.map((a, i) => row.b[i] / a);
      acc.ratios.push(...ratios);
      acc.roundRatios.push(quantile(ratios, 0.5));
    }
  }
  process.stderr.write(`round ${r + 1}/${rounds} done (load ${loadavg()[0].toFixed(1)})\n`);
}

/** The cold rows' names, for the figures bench/placement-cold.ts prints. */
const COLD_ROWS = [
  ["compileMs", "placement: compile 3,000 hard rules, fresh process (ms)"],
  ["loadMs", "placement: then load them, fresh process (ms)"],
  ["firstDecisionUs", "placement: then the first decision, fresh process"],
] as const;

/**
 * One cold sample: a fresh process of one tree. `--single-threaded` runs V8's collections and
 * compiles on the main thread where they are triggered, so the 3,000-rule compile's garbage is
 * collected in the step that made it, not billed by helper threads to whichever later step (the
 * load, the first decision) they overlap: the first decision read 522–1,120 µs in eight fresh
 * processes without it, 593–722 with it.
 */
function coldSample(file: string): Record<string, number> {
  const out = spawnSync(process.execPath, ["--single-threaded", file], { encoding: "utf8" });
  const line = out.stdout.split("\n").find((l) => l.startsWith("COLD "));
  if (out.status !== 0 || line === undefined) {
    console.error(`cold sample failed:\n${out.stderr}`);
    process.exit(1);
  }
  return JSON.parse(line.slice(5)) as Record<string, number>;
}

if (
  coldRounds > 0 &&
  (filter === undefined || COLD_ROWS.some(([, name]) => new RegExp(filter, "i").test(name)))
) {
  for (let r = 0; r < coldRounds; r++) {
    // the trees alternate going first
    let a: Record<string, number>;
    let b: Record<string, number>;
    if (r % 2 === 0) {
      a = coldSample(path.join(dir, "cold-base.mjs"));
      b = coldSample(path.join(dir, "cold-head.mjs"));
    } else {
      b = coldSample(path.join(dir, "cold-head.mjs"));
      a = coldSample(path.join(dir, "cold-base.mjs"));
    }
    for (const [key, name] of COLD_ROWS) {
      const acc = accOf(name);
      acc.a.push(a[key]);
      acc.b.push(b[key]);
      acc.ratios.push(b[key] / a[key]);
      acc.roundRatios.push(b[key] / a[key]);
    }
    process.stderr.write(`cold ${r + 1}/${coldRounds} done (load ${loadavg()[0].toFixed(1)})\n`);
  }
}

const fmt = (us: number) => (us >= 100 ? us.toFixed(0) : us >= 10 ? us.toFixed(1) : us.toFixed(2));
const w = Math.max(...[...all.keys()].map((n) => n.length));
console.log(
  `\n${"row".padEnd(w)}  ${"base µs".padStart(9)}  ${"head µs".padStart(9)}  head/base  p10–p90      n`,
);
const summary: object[] = [];
for (const [name, s] of all) {
  // the geometric mean over rounds (processes) of each round's median ratio: see the header
  const ratio = Math.exp(s.roundRatios.reduce((t, r) => t + Math.log(r), 0) / s.roundRatios.length);
  const flag = ratio > 1.1 ? "  SLOWER" : ratio < 0.9 ? "  faster" : "";
  console.log(
    `${name.padEnd(w)}  ${fmt(quantile(s.a, 0.5)).padStart(9)}  ${fmt(quantile(s.b, 0.5)).padStart(9)}  ${ratio.toFixed(3).padStart(9)}  ${quantile(s.ratios, 0.1).toFixed(2)}–${quantile(s.ratios, 0.9).toFixed(2)}  ${String(s.ratios.length).padStart(3)}${flag}`,
  );
  summary.push({
    name,
    baseMedianUs: quantile(s.a, 0.5),
    headMedianUs: quantile(s.b, 0.5),
    ratio,
    ratioMedian: quantile(s.ratios, 0.5),
    ratioP10: quantile(s.ratios, 0.1),
    ratioP90: quantile(s.ratios, 0.9),
    samples: s,
  });
}
console.log(`\nload average ${load0.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end`);
if (differ.size > 0) {
  console.log("\nrows whose answers differ between the trees:");
  for (const d of differ) console.log(`  ${d}`);
}
const json = opt("json");
if (json !== undefined)
  writeFileSync(
    json,
    JSON.stringify(
      {
        base: path.resolve(base),
        head,
        rounds,
        reps,
        ms,
        load: [load0, loadavg()[0]],
        rows: summary,
        differ: [...differ],
      },
      null,
      1,
    ),
  );
rmSync(dir, { recursive: true, force: true });
