/**
 * The `scale` section of `npm run bench` (alone: `npx tsx bench/scale/run.ts
 * [series…]`): runs each series file in a fresh Node process (with --expose-gc,
 * so every timed run starts from a collected heap and earlier work does not
 * colour later figures), then prints each series with its sizes, its figures
 * and the growth exponent between its last two sizes (1 = linear).
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { growthExponent, printedExponent, quantile, type SeriesResult } from "./series.js";

/** Series files in bench/scale/, in the order they are run. */
export const SERIES = [
  "classad-match",
  "classad-parse",
  "cidr",
  "customs",
  "jobfilter",
  "jobfilter-counts",
  "jobfilter-reach",
  "placement",
] as const;

/** Runs one series file in a fresh process and returns its results. */
export function runSeriesFile(name: string): SeriesResult[] {
  const file = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  const r = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", file], {
    encoding: "utf8",
    maxBuffer: 1 << 24,
  });
  if (r.status !== 0)
    throw new Error(`${name}: exited ${r.status}: ${r.stderr.trim().split("\n").slice(-5).join("\n")}`);
  return r.stdout
    .split("\n")
    .filter((l) => l.startsWith("SCALE "))
    .map((l) => JSON.parse(l.slice(6)) as SeriesResult);
}

/** A figure with three significant digits (thousands separated). */
function fig(v: number): string {
  if (v >= 100) return Math.round(v).toLocaleString("en");
  if (v >= 10) return v.toFixed(1);
  if (v >= 1) return v.toFixed(2);
  return v.toPrecision(2);
}

/** Prints one series as a table row block. */
export function printSeries(r: SeriesResult): void {
  const exp = printedExponent(r);
  const pairs = r.exponents ?? [];
  console.log(`\n${r.name} (${r.unit})`);
  console.log(
    `  size   ${r.sizes.map((s) => s.toLocaleString("en").padStart(10)).join("")}   growth exponent (last two sizes${pairs.length > 0 ? ", median of pairs" : ""})`,
  );
  console.log(
    `  ${r.unit.padEnd(5)}  ${r.values.map((v) => fig(v).padStart(10)).join("")}   ${Number.isFinite(exp) ? exp.toFixed(2) : "-"}`,
  );
  if (pairs.length > 0) {
    const n = r.sizes.length;
    const span = `${r.sizes[n - 2].toLocaleString("en")} → ${r.sizes[n - 1].toLocaleString("en")}`;
    const f = (q: number) => quantile(pairs, q).toFixed(2);
    console.log(
      `  growth exponent ${span}: median ${exp.toFixed(2)} of ${pairs.length} pairs of back-to-back timed runs (CPU time), interquartile ${f(0.25)}–${f(0.75)}, range ${f(0)}–${f(1)}; of the medians above ${growthExponent(r).toFixed(2)}`,
    );
  }
  for (const n of r.notes) console.log(`  ${n}`);
}

/** Runs the given series (default: all) and prints them; returns every result. */
export function runScale(names: readonly string[] = SERIES): SeriesResult[] {
  console.log("\n=== scale: each series in a fresh process; medians of interleaved rounds ===");
  const all: SeriesResult[] = [];
  for (const name of names) {
    try {
      const results = runSeriesFile(name);
      for (const r of results) printSeries(r);
      all.push(...results);
    } catch (e) {
      console.error(`scale ${name}: failed: ${(e as Error).message}`);
      process.exitCode = 1;
    }
  }
  return all;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const wanted = process.argv.slice(2);
  runScale(wanted.length > 0 ? wanted : SERIES);
}
