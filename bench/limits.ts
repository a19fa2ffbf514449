/**
 * Limits benchmark: µs per decision in-process on the embedded toolkit default
 * configuration (policies/limits.json) for a typical throughput task, with and
 * without the rewriter, against the cost of reading the same request
 * (JSON.parse + the route's zod LimitsRequest) measured in the same run.
 * The DNS identifier (ip-cymru-bogon) answers from an in-memory resolver so
 * the figure is the engine's own cost. Goal: under 10 µs per decision.
 * A last row repeats the first case with the engine bundled by esbuild, as
 * wrangler ships it (tsx adds a getter call to every cross-module reference).
 * Run directly with `npx tsx bench/limits.ts`.
 */
import { readFileSync } from "node:fs";
import * as limitsSource from "../src/engines/limits/index.js";
import {
  decideLimits,
  limitsEngine,
  type LimitsContext,
  type LimitsPolicy,
  type LimitsRequest,
} from "../src/engines/limits/index.js";
import { LimitsRequest as LimitsRequestSchema } from "../src/http/schemas/limits.js";
import { readSharedData, SHARED_DATA_ABSENT } from "../test/support/shared-data.js";
import { bundled } from "./bundled.js";
import { measure, measureAsync, pairedCpu, printTable, type BenchRow } from "./support.js";
import { libraryAsText, LIMITS_REQUEST as REQUEST } from "./fixtures.js";
import { BUILTIN_MODULES } from "../src/jq/modules.js";
import { pschedulerRows } from "./limits-pscheduler.js";

const SOURCE = readFileSync(new URL("../policies/limits.json", import.meta.url), "utf8");
/** The pre-5.0 toolkit file: `test` limits evaluated natively, so no jq runs when rewrite is off. */
const SOURCE_4X = readSharedData("pscheduler", "toolkit-default-limits-4x.json");

const NXDOMAIN = Promise.resolve({ status: "nxdomain" as const, answers: [] });

const CONTEXT: LimitsContext = {
  now: Date.parse("2026-06-01T12:00:00Z"),
  explain: false,
  dns: { lookup: () => NXDOMAIN },
  cidrList: () => undefined,
  localAddresses: ["192.0.2.1", "2001:db8::1"],
};

/** Compiles and loads the pre-5.0 toolkit file. */
function load4x(source: string): LimitsPolicy {
  const compiled = limitsEngine.compile(source);
  if (!compiled.ok) throw new Error(`the 4.x toolkit file does not compile: ${compiled.error[0].message}`);
  return limitsEngine.load(compiled.value);
}

/** Every string of a JSON value with pScheduler's library imports replaced by the library's jq text. */
function withLibraryText(v: unknown): unknown {
  if (typeof v === "string") return libraryAsText(v, BUILTIN_MODULES);
  // a script given as lines: the import and the calls are on different lines
  if (Array.isArray(v) && v.some((x) => typeof x === "string" && x.includes('import "pscheduler/')))
    return [libraryAsText(v.join("\n"), BUILTIN_MODULES)];
  if (Array.isArray(v)) return v.map(withLibraryText);
  if (v !== null && typeof v === "object")
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withLibraryText(x)]));
  return v;
}

/**
 * Issue 31 goal 1: the toolkit default with pScheduler's iso8601 definitions as jq text in
 * every script (what pScheduler itself runs) against the same file on our native `iso::`,
 * interleaved in the same run; then both against pScheduler's own LimitProcessor measured in
 * the same run when it can run here (bench/limits-pscheduler.ts; otherwise a line says why
 * and no ratio to it is printed).
 */
async function libraryTextRows(native: LimitsPolicy, request: LimitsRequest): Promise<BenchRow[]> {
  const text = JSON.stringify(withLibraryText(JSON.parse(SOURCE)));
  const compiled = limitsEngine.compile(text);
  if (!compiled.ok)
    throw new Error(`the library-as-text toolkit does not compile: ${compiled.error[0].message}`);
  const policy = limitsEngine.load(compiled.value);
  const rows: BenchRow[] = [];
  for (const [label, req] of [
    ["with rewrite", request],
    ["no rewrite", { ...request, rewrite: false }],
  ] as const) {
    const a0 = await decideLimits(native, req, CONTEXT);
    const b0 = await decideLimits(policy, req, CONTEXT);
    if (JSON.stringify(a0.verdict) !== JSON.stringify(b0.verdict))
      throw new Error(`limits ${label}: the library as text and native iso:: disagree`);
    const m = await pairedCpu(
      () => decideLimits(native, req, CONTEXT),
      () => decideLimits(policy, req, CONTEXT),
      9,
      60,
    );
    rows.push({
      name: `toolkit default, ${label}, iso8601 as jq text (CPU)`,
      microsPerOp: m.other,
      baselineName: `native iso:: ${m.base.toFixed(1)} µs (same run)`,
      ratio: m.ratio,
    });
  }
  rows.push(...(await pschedulerRows(native, policy, request, CONTEXT)));
  return rows;
}

/** Measures the limits engine and its baseline; returns the rows `npm run bench` prints. */
export async function runLimitsBench(): Promise<BenchRow[]> {
  const compiled = limitsEngine.compile(SOURCE);
  if (!compiled.ok) throw new Error(`policies/limits.json does not compile: ${compiled.error[0].message}`);
  const policy = limitsEngine.load(compiled.value);
  const policy4x = SOURCE_4X === undefined ? undefined : load4x(SOURCE_4X);
  if (policy4x === undefined) console.warn(`limits: the 4.x toolkit row is skipped: ${SHARED_DATA_ABSENT}`);
  const json = JSON.stringify(REQUEST);
  const baselineName = "JSON.parse + zod";
  const baseline = measure(() => LimitsRequestSchema.parse(JSON.parse(json)));
  const request = LimitsRequestSchema.parse(JSON.parse(json)) as LimitsRequest;
  const noRewrite: LimitsRequest = { ...request, rewrite: false };
  const local: LimitsRequest = { ...request, requester: "192.0.2.1" };
  const check = await decideLimits(policy, request, CONTEXT);
  if (!check.verdict.allowed || check.verdict.changes.length !== 1)
    throw new Error("bench request should pass with one rewrite change");
  const rows: BenchRow[] = [{ name: "read request", microsPerOp: baseline, baselineName, ratio: 1 }];
  const cases: [string, LimitsPolicy, LimitsRequest, LimitsContext][] = [
    ["toolkit default, throughput, with rewrite", policy, request, CONTEXT],
    ["toolkit default, throughput, no rewrite", policy, noRewrite, CONTEXT],
    ["toolkit default, friendly requester", policy, local, CONTEXT],
    ["toolkit default, with rewrite + explain", policy, request, { ...CONTEXT, explain: true }],
  ];
  if (policy4x !== undefined) {
    const nativeTask = { ...noRewrite.task, test: { type: "throughput", spec: { duration: "PT30S" } } };
    cases.push([
      "4.x toolkit (native test limits), no rewrite",
      policy4x,
      { ...noRewrite, task: nativeTask },
      CONTEXT,
    ]);
  }
  // Warm every path up first so the first case does not pay for the JIT.
  for (const [, p, req, ctx] of cases) await measureAsync(() => decideLimits(p, req, ctx), 150);
  for (const [name, p, req, ctx] of cases) {
    // Best of two runs: a GC pause in one run says nothing about the engine.
    const us = Math.min(
      await measureAsync(() => decideLimits(p, req, ctx)),
      await measureAsync(() => decideLimits(p, req, ctx)),
    );
    rows.push({ name, microsPerOp: us, baselineName, ratio: us / baseline });
  }
  rows.push(...(await libraryTextRows(policy, request)));
  const compileUs = measure(() => limitsEngine.compile(SOURCE), 300);
  rows.push({
    name: "compile toolkit default (once per publish)",
    microsPerOp: compileUs,
    baselineName,
    ratio: compileUs / baseline,
  });
  const loadUs = measure(() => limitsEngine.load(compiled.value), 300);
  rows.push({
    name: "load compiled data (once per isolate)",
    microsPerOp: loadUs,
    baselineName,
    ratio: loadUs / baseline,
  });
  // The first case again with the engine bundled as wrangler bundles it (the rows above run the TypeScript through tsx).
  const { mod: bundledEngine, fromBundle } = await bundled("src/engines/limits/index.ts", limitsSource);
  if (fromBundle) {
    const bc = bundledEngine.limitsEngine.compile(SOURCE);
    if (!bc.ok) throw new Error("policies/limits.json does not compile with the bundled engine");
    const bp = bundledEngine.limitsEngine.load(bc.value);
    const decide = bundledEngine.decideLimits;
    await measureAsync(() => decide(bp, request, CONTEXT), 150);
    const us = Math.min(
      await measureAsync(() => decide(bp, request, CONTEXT)),
      await measureAsync(() => decide(bp, request, CONTEXT)),
    );
    rows.push({
      name: "toolkit default, with rewrite (esbuild bundle)",
      microsPerOp: us,
      baselineName,
      ratio: us / baseline,
    });
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await runLimitsBench();
  printTable("limits: µs per operation, ratio to reading the request (same run)", rows);
  for (const r of rows.slice(1).filter((row) => !row.name.includes("once per")))
    console.log(`${r.name}: ${Math.round(1e6 / r.microsPerOp).toLocaleString("en")} decisions/s`);
}
