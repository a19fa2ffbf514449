/**
 * jq engine benchmark: five pScheduler-style scripts evaluated by our engine and by
 * jq-web (jq 1.7 compiled to WebAssembly, the only published jq usable from JS),
 * measured in the same run, plus the compile time of a 20-line script. Each script, the
 * goal-1 rows and the compile are also measured against libjq 1.7.1 (jq's C library, built
 * by bench/native/build-libjq.sh; bench/native/libjq.ts) in alternating CPU-time samples of
 * the same run; `LIBJQ=off` skips those, and where libjq cannot be built a line says why.
 * Run: npx tsx bench/jq.ts
 */
import { createRequire } from "node:module";
import type { Json } from "../src/engines/common/json.js";
import * as jqSource from "../src/jq/index.js";
import type { JqProgram } from "../src/jq/index.js";
import { BUILTIN_MODULES } from "../src/jq/modules.js";
import { bundled } from "./bundled.js";
import { libjq, type Libjq } from "./native/libjq.js";
import { cpuPerCall, measure, pairedCpu, printTable, type BenchRow } from "./support.js";
import {
  CIDR_TRANSFORM,
  CIDRS,
  CLASSIFIERS_HAS,
  COMPILE_20,
  ISO_COMPARE,
  libraryAsText,
  REGEX_CAPTURE,
  REGEX_MATCH,
  REGEX_TWO,
  TASK,
  THROUGHPUT_LIMITS,
  TOOLKIT_REWRITE,
} from "./fixtures.js";

interface JqWeb {
  json(input: unknown, filter: string): unknown;
}

/** jq-web has no pscheduler modules: their definitions go inline with `alias_` prefixed names. */
function inlineModules(src: string): string {
  return libraryAsText(src, BUILTIN_MODULES);
}

type JqModule = typeof jqSource;

/** Alternating CPU-time samples of ours and of libjq for one libjq row. */
const LIBJQ_ROUNDS = 5;

/** `src` as libjq runs it: the pscheduler modules inline (jq text) and `$name` arguments as literals. */
function libjqSource(src: string, args?: Record<string, Json>): string {
  let out = src;
  for (const [k, v] of Object.entries(args ?? {}))
    out = out.replace(new RegExp(`\\$${k}\\b`, "g"), JSON.stringify(v));
  return inlineModules(out);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/**
 * Ours (`ours`, whose first output is `expected`) against libjq on `program`: LIBJQ_ROUNDS
 * rounds alternating which side goes first, CPU time on each side (ours in this process,
 * libjq in a `jq-time` process), medians and the median of the paired ratios ours / libjq.
 */
async function againstLibjq(
  lj: Extract<Libjq, { ok: true }>,
  ours: () => unknown,
  expected: Json | undefined,
  mode: "run" | "compile",
  program: string,
  input: Json,
  ms: number,
): Promise<{ ours: number; libjq: number; ratio: number }> {
  const probe = lj.time(mode, program, input, Math.min(ms, 20));
  if (JSON.stringify(probe.first) !== JSON.stringify(expected))
    throw new Error(`libjq and ours disagree on ${program.slice(0, 60)}…: ${JSON.stringify(probe.first)}`);
  await cpuPerCall(ours, ms);
  const a: number[] = [];
  const b: number[] = [];
  const r: number[] = [];
  for (let i = 0; i < LIBJQ_ROUNDS; i++) {
    const theirsFirst = i % 2 === 1;
    const t0 = theirsFirst ? lj.time(mode, program, input, ms).us : 0;
    const o = await cpuPerCall(ours, ms);
    const t = theirsFirst ? t0 : lj.time(mode, program, input, ms).us;
    a.push(o);
    b.push(t);
    r.push(o / t);
  }
  return { ours: median(a), libjq: median(b), ratio: median(r) };
}

/** A row of ours against libjq, the ratio ours / libjq (below 1: we are faster). */
function libjqRow(name: string, m: { ours: number; libjq: number; ratio: number }): BenchRow {
  return {
    name: `${name} vs libjq (CPU)`,
    microsPerOp: m.ours,
    baselineName: `libjq 1.7.1, ${m.libjq.toFixed(1)} µs`,
    ratio: m.ratio,
  };
}

/** Compiles run before the compile row is timed (see runJqBench). */
const COMPILE_WARMUP = 2_000;

let compileJq: JqModule["compileJq"] = jqSource.compileJq;

function compile(src: string, args?: Record<string, Json>): JqProgram {
  const r = compileJq(src, { args });
  if (!r.ok) throw new Error(`bench script does not compile: ${r.error[0].message}`);
  return r.value;
}

/** Measures our engine against jq-web on the scripts (five policy-like, three regex) and the compile time of a 20-line script. */
export async function runJqBench(ms = 400): Promise<BenchRow[]> {
  compileJq = (await bundled("src/jq/index.ts", jqSource)).mod.compileJq;
  // compile time first, before jq-web's WebAssembly heap is loaded into this process; the compiler's
  // code takes about 1,500 compiles to reach its optimised tier (1.2 ms a compile at first, 0.15–0.2 ms
  // after), which a timed warm-up under load never reached: warm up by count instead
  for (let j = 0; j < COMPILE_WARMUP; j++) compileJq(COMPILE_20);
  const compileUs = measure(() => compileJq(COMPILE_20), ms);
  const require = createRequire(import.meta.url);
  const jqweb = (await (require("jq-web") as Promise<JqWeb>)) as JqWeb;
  const cases: Array<[string, string, Json, Record<string, Json> | undefined, string]> = [
    ["toolkit default rewrite", TOOLKIT_REWRITE, TASK, undefined, TOOLKIT_REWRITE],
    ["throughput jq limits", THROUGHPUT_LIMITS, TASK, undefined, THROUGHPUT_LIMITS],
    ["classifiers_has check", CLASSIFIERS_HAS, TASK, undefined, CLASSIFIERS_HAS],
    ["CIDR-list transform (5,000 entries)", CIDR_TRANSFORM, CIDRS, undefined, CIDR_TRANSFORM],
    [
      "iso::duration_as_seconds comparison",
      ISO_COMPARE,
      TASK,
      { max: "PT1M" },
      ISO_COMPARE.replace("$max", '"PT1M"'),
    ],
    ["regex: capture, named groups", REGEX_CAPTURE, "25Ki", undefined, REGEX_CAPTURE],
    ["regex: match, group offsets", REGEX_MATCH, "PT10M30S", undefined, REGEX_MATCH],
    ["regex: two patterns alternating", REGEX_TWO, "P2D", undefined, REGEX_TWO],
  ];
  const rows: BenchRow[] = [];
  const speedups: string[] = [];
  const lj = libjq();
  if (!lj.ok) speedups.push(`libjq: not run, so no ratio to it is printed (${lj.reason})`);
  else speedups.push(`${lj.version}: ${LIBJQ_ROUNDS} alternating rounds, CPU time on each side`);
  for (const [name, src, input, args, webSrc0] of cases) {
    let webSrc = webSrc0;
    const prog = compile(src, args);
    const ours = prog.run(input);
    webSrc = inlineModules(webSrc);
    const theirs = jqweb.json(input, webSrc);
    if (JSON.stringify(ours.outputs[0]) !== JSON.stringify(theirs))
      throw new Error(`${name}: engines disagree`);
    const us = measure(() => prog.first(input), ms);
    const web = measure(() => jqweb.json(input, webSrc), ms);
    rows.push({ name: `${name} (jq-web)`, microsPerOp: web, baselineName: "jq-web", ratio: 1 });
    rows.push({ name, microsPerOp: us, baselineName: "jq-web", ratio: us / web });
    speedups.push(
      `${name}: ours ${us.toFixed(3)} µs, jq-web ${web.toFixed(1)} µs, ${(web / us).toFixed(0)}× faster`,
    );
    if (lj.ok) {
      const m = await againstLibjq(
        lj,
        () => prog.first(input),
        ours.outputs[0],
        "run",
        webSrc,
        input,
        ms / 8,
      );
      rows.push(libjqRow(name, m));
      speedups.push(
        `${name}: ours ${m.ours.toFixed(3)} µs, libjq ${m.libjq.toFixed(1)} µs, ${(1 / m.ratio).toFixed(1)}× faster (CPU)`,
      );
    }
  }
  rows.push(...(await libraryRows(ms, lj, speedups)));
  rows.push({
    name: "compile 20-line script",
    microsPerOp: compileUs,
    baselineName: "goal 100 µs",
    ratio: compileUs / 100,
  });
  speedups.push(`compile 20-line script: ${compileUs.toFixed(1)} µs (goal < 100 µs)`);
  if (lj.ok) {
    const first = compile(COMPILE_20).first(TASK);
    const m = await againstLibjq(
      lj,
      () => compileJq(COMPILE_20),
      first,
      "compile",
      libjqSource(COMPILE_20),
      TASK,
      ms / 4,
    );
    rows.push(libjqRow("compile 20-line script", m));
    speedups.push(
      `compile 20-line script: ours ${m.ours.toFixed(1)} µs, libjq ${m.libjq.toFixed(1)} µs, ${(1 / m.ratio).toFixed(1)}× faster (CPU)`,
    );
  }
  lastSpeedups = speedups;
  return rows;
}

let lastSpeedups: string[] = [];

/**
 * Issue 31 goal 1: scripts with pScheduler's iso8601 library as jq text (imported as a
 * module from its source, as pScheduler's jq runs it) against the same scripts on our
 * native `iso::` functions, measured interleaved in the same run (goal: ≤ 1.5×).
 */
async function libraryRows(ms: number, lj: Libjq, speedups: string[]): Promise<BenchRow[]> {
  const modules = { "pscheduler/iso8601": BUILTIN_MODULES["pscheduler/iso8601"] };
  const cases: Array<[string, string, Json, Record<string, Json> | undefined]> = [
    ["toolkit rewrite", TOOLKIT_REWRITE, TASK, undefined],
    ["throughput jq limits", THROUGHPUT_LIMITS, TASK, undefined],
    ["iso duration comparison", ISO_COMPARE, TASK, { max: "PT1M" }],
  ];
  const rows: BenchRow[] = [];
  for (const [name, src, input, args] of cases) {
    const native = compile(src, args);
    const r = compileJq(src, { args, modules });
    if (!r.ok) throw new Error(`${name} with the library as text does not compile: ${r.error[0].message}`);
    const text = r.value;
    if (JSON.stringify(native.run(input)) !== JSON.stringify(text.run(input)))
      throw new Error(`${name}: the library as text and native iso:: disagree`);
    // paired CPU-time samples, so a busy moment colours both alike
    const m = await pairedCpu(
      () => native.first(input),
      () => text.first(input),
      9,
      ms / 8,
    );
    rows.push({
      name: `${name}, native iso:: (CPU)`,
      microsPerOp: m.base,
      baselineName: "native iso::",
      ratio: 1,
    });
    rows.push({
      name: `${name}, iso8601 as jq text (CPU)`,
      microsPerOp: m.other,
      baselineName: "native iso:: (goal ≤ 1.5×)",
      ratio: m.ratio,
    });
    if (lj.ok) {
      // libjq runs pScheduler's iso8601 as jq text, as pScheduler does
      const expected = native.first(input);
      const program = libjqSource(src, args);
      for (const [form, prog] of [
        ["native iso::", native],
        ["iso8601 as jq text", text],
      ] as const) {
        const v = await againstLibjq(lj, () => prog.first(input), expected, "run", program, input, ms / 8);
        rows.push(libjqRow(`${name}, ${form}`, v));
        speedups.push(
          `${name}, ${form}: ours ${v.ours.toFixed(3)} µs, libjq ${v.libjq.toFixed(1)} µs, ${(1 / v.ratio).toFixed(1)}× faster (CPU)`,
        );
      }
    }
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await runJqBench();
  printTable("jq engine vs jq-web (ratio = our µs / jq-web µs)", rows);
  console.log("");
  for (const s of lastSpeedups) console.log(s);
}
