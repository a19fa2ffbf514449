/**
 * The decision rows of the A/B harness (`npm run bench:ab`), written once and
 * bundled by esbuild once per tree: every import of `../../src/…` resolves into
 * that tree's `src/`, the work budget's to an empty module on a tree without one
 * (bench/ab/bundle.ts). Each row is one decision of
 * `npm run bench` (and a few jq rows that exercise object building), run as the
 * Worker runs it: inside a fresh work budget when the tree has one.
 */
import { clearExprCache, readAd } from "../../src/engines/classad/ad-input.js";
import type { ClassAd } from "../../src/engines/classad/classad.js";
import { evalAttr } from "../../src/engines/classad/evaluate.js";
import { decideMatch, decideParsedMatch, symmetricMatch } from "../../src/engines/classad/match.js";
import { compileMatchPolicy, loadMatchPolicy } from "../../src/engines/classad/policy.js";
import { EvalState } from "../../src/engines/classad/state.js";
import * as customs from "../../src/engines/customs/index.js";
import { compileFilters, decideJobfilter, loadFilters } from "../../src/engines/jobfilter/index.js";
import {
  decideLimits,
  limitsEngine,
  type LimitsContext,
  type LimitsRequest,
} from "../../src/engines/limits/index.js";
import { compilePlacement, decidePlacement, loadPlacement } from "../../src/engines/placement/index.js";
import { compileJq } from "../../src/jq/index.js";
import * as hostSchemasModule from "../../src/http/schemas/hosts.js";
import * as jobSchemasModule from "../../src/http/schemas/jobs.js";
import { LimitsRequest as LimitsRequestSchema } from "../../src/http/schemas/limits.js";
import { PlaceRequest } from "../../src/http/schemas/placement.js";
import * as budgetModule from "../../src/engines/common/budget.js";
import * as exactJson from "../../src/engines/common/exact-json.js";
import {
  chain,
  CLASSAD_POLICY,
  COMPILE_20,
  JOB_AD,
  job as jobfilterJob,
  JQ_CASES,
  LARGE_PLACEMENT_REQUEST,
  largePlacement,
  LIMITS_REQUEST,
  manyRules,
  hardRule,
  placementWithRules,
  slotAd,
  SEED_PLACEMENT_REQUEST,
  CUSTOMS_REQUEST,
  rawHosts,
} from "../fixtures.js";
import { ROW_GROUPS, type RowGroup } from "./groups.js";

/** One measured operation; `answer` gives the JSON the two trees must agree on. */
export interface Row {
  readonly name: string;
  readonly run: () => unknown;
  readonly answer?: () => unknown;
  /**
   * CPU ms of one sample when `--ms` is shorter: for a row whose calls each leave so much garbage
   * that a collection lands in one sample and not the next (the 3,000-rule compile), so that a
   * sample holds several collections, whichever tree it runs.
   */
  readonly sampleMs?: number;
  /**
   * Each sample starts from a full collection and three untimed calls (`node --expose-gc`), so
   * both trees' samples start in the same heap state, wherever the last sample left the old
   * generation's cycle.
   */
  readonly collectBeforeSample?: boolean;
}

/** Policy texts read by the harness from its own checkout (both trees decide on the same ones). */
export interface Fixtures {
  limits: string;
  limits4x?: string;
  placement: string;
}

interface BudgetApi {
  decisionBudget?: (setting: string | undefined) => { run<T>(fn: () => T): T };
}
const budgets = budgetModule as unknown as BudgetApi;

/** A fresh per-decision budget (as `src/http/decision.ts` makes one, `setting` as DECISION_BUDGET), or null on a tree without budgets. */
function freshBudget(setting?: string): { run<T>(fn: () => T): T } | null {
  return budgets.decisionBudget ? budgets.decisionBudget(setting) : null;
}

/** Runs `fn` as the Worker runs a decision: with a fresh budget current, when the tree has budgets. */
function decision<T>(fn: (budget: unknown) => T, setting?: string): () => T {
  if (budgets.decisionBudget === undefined) return () => fn(undefined);
  return () => {
    const b = freshBudget(setting)!;
    return b.run(() => fn(b));
  };
}

/** A schema module's schemas: built by its `build` function on a tree that makes them on first use, else its own exports. */
function builtSchemas<T>(module: object, build: string): T {
  const make = (module as Record<string, unknown>)[build];
  return (typeof make === "function" ? (make as () => T)() : module) as T;
}

function ok<T>(r: { ok: true; value: T } | { ok: false; error: unknown }, what: string): T {
  if (!r.ok) throw new Error(`${what}: ${JSON.stringify(r.error).slice(0, 300)}`);
  return r.value;
}

function ad(text: string): ClassAd {
  const r = readAd(text);
  if (!r.ok) throw new Error(r.error.message);
  return r.ad;
}

const NXDOMAIN = Promise.resolve({ status: "nxdomain" as const, answers: [] });

function placementRows(fx: Fixtures): Row[] {
  const rows: Row[] = [];
  const cases: [string, string, object][] = [
    ["placement: seed policy", fx.placement, SEED_PLACEMENT_REQUEST],
    ["placement: 5 rules, 200 queues", largePlacement(), LARGE_PLACEMENT_REQUEST],
  ];
  for (const [label, source, request] of cases) {
    const policy = loadPlacement(ok(compilePlacement(source), label));
    const json = JSON.stringify(request);
    const parsed = PlaceRequest.parse(JSON.parse(json));
    rows.push({ name: `${label}: read request`, run: () => PlaceRequest.parse(JSON.parse(json)) });
    const d = decision(() => decidePlacement(policy, parsed, { explain: false }));
    rows.push({ name: `${label}: decide`, run: d, answer: () => d().verdict });
    const e = decision(() => decidePlacement(policy, parsed, { explain: true }));
    rows.push({ name: `${label}: decide + explain`, run: e, answer: () => e().verdict });
  }
  const hard = placementWithRules(3000, hardRule, ["{name: users, parent: true}"]);
  // 7-12 ms a call, each leaving megabytes (a full collection every dozen calls): a 40 ms sample
  // held 4-6 calls and where the collections fell decided it (6-22 ms a call, same code on both)
  rows.push({
    name: "placement: compile 3,000 hard rules",
    run: () => compilePlacement(hard),
    sampleMs: 200,
    collectBeforeSample: true,
  });
  const hardPolicy = loadPlacement(ok(compilePlacement(hard), "3,000 hard rules"));
  const hardReq = PlaceRequest.parse({ user: "carol", groups: ["staff", "dev"] });
  const hd = decision(() => decidePlacement(hardPolicy, hardReq, { explain: false }));
  rows.push({ name: "placement: 3,000 hard rules, decide", run: hd, answer: () => hd().verdict });
  for (const n of [1000, 3000]) {
    const policy = loadPlacement(ok(compilePlacement(manyRules(n)), `${n} rules`));
    const req = PlaceRequest.parse({ user: "carol", groups: ["staff"] });
    const d = decision(() => decidePlacement(policy, req, { explain: false }));
    rows.push({ name: `placement: ${n} rules, own filter regex each`, run: d, answer: () => d().verdict });
  }
  return rows;
}

function limitsRows(fx: Fixtures): Row[] {
  const policy = limitsEngine.load(ok(limitsEngine.compile(fx.limits), "limits policy"));
  const json = JSON.stringify(LIMITS_REQUEST);
  const request = LimitsRequestSchema.parse(JSON.parse(json)) as LimitsRequest;
  // the route passes the same LOCAL_ADDRESSES list every time (the engine caches its set by identity)
  const localAddresses = ["192.0.2.1", "2001:db8::1"];
  const context = (explain: boolean, budget: unknown): LimitsContext =>
    ({
      now: Date.parse("2026-06-01T12:00:00Z"),
      explain,
      dns: { lookup: () => NXDOMAIN },
      cidrList: () => undefined,
      localAddresses,
      ...(budget === undefined ? {} : { budget }),
    }) as LimitsContext;
  const rows: Row[] = [
    { name: "limits: read request", run: () => LimitsRequestSchema.parse(JSON.parse(json)) },
  ];
  const cases: [string, LimitsRequest, boolean][] = [
    ["limits: with rewrite", request, false],
    ["limits: no rewrite", { ...request, rewrite: false }, false],
    ["limits: friendly requester", { ...request, requester: "192.0.2.1" }, false],
    ["limits: with rewrite + explain", request, true],
  ];
  for (const [name, req, explain] of cases) {
    const d = decision((b) => decideLimits(policy, req, context(explain, b)));
    rows.push({ name, run: d, answer: async () => (await d()).verdict });
  }
  if (fx.limits4x !== undefined) {
    const p4 = limitsEngine.load(ok(limitsEngine.compile(fx.limits4x), "4.x limits"));
    const req = {
      ...request,
      rewrite: false,
      task: { ...request.task, test: { type: "throughput", spec: { duration: "PT30S" } } },
    } as LimitsRequest;
    const d = decision((b) => decideLimits(p4, req, context(false, b)));
    rows.push({ name: "limits: 4.x toolkit, no rewrite", run: d, answer: async () => (await d()).verdict });
  }
  return rows;
}

/** An old long-form ad (one `Name = Expr` a line, no backslash in its strings) in new syntax. */
function newSyntax(old: string): string {
  return `[ ${old.split("\n").join("; ")} ]`;
}

function classadRows(): Row[] {
  const rows: Row[] = [];
  const slotText = slotAd(1);
  rows.push({
    name: "classad: parse job + slot ads (cold)",
    run: () => {
      clearExprCache();
      return [ad(JOB_AD), ad(slotText)];
    },
  });
  const job = ad(JOB_AD);
  const slot = ad(slotText);
  const st = new EvalState({ now: 1_700_000_000_000, random: Math.random });
  rows.push({
    name: "classad: job Requirements vs slot",
    run: decision(() => evalAttr(job, "requirements", slot, st)),
    answer: () => evalAttr(job, "requirements", slot, st),
  });
  rows.push({
    name: "classad: symmetric match",
    run: decision(() => symmetricMatch(job, slot, st)),
    answer: () => symmetricMatch(job, slot, st),
  });
  rows.push({
    name: "classad: job Rank vs slot",
    run: decision(() => evalAttr(job, "rank", slot, st)),
    answer: () => evalAttr(job, "rank", slot, st),
  });
  const policy = loadMatchPolicy(ok(compileMatchPolicy(CLASSAD_POLICY), "match policy"));
  const texts = Array.from({ length: 2000 }, (_, i) => slotAd(i));
  const slots = texts.map(ad);
  const ctx = { now: 1_700_000_000_000, random: () => 0.5 };
  const parsed = decision(() => decideParsedMatch(policy, { job, schedd: null, machines: slots }, ctx));
  rows.push({ name: "classad: match over 2,000 parsed slots", run: parsed, answer: () => parsed().verdict });
  const full = decision(() => decideMatch(policy, { job: JOB_AD, machines: texts }, ctx));
  rows.push({ name: "classad: /v1/match from 2,000 ad texts", run: full, answer: () => full().verdict });
  // the same ads in new syntax `[ a = 1; … ]`, as the HTTP benches and the hostile rows send them
  const jobNew = newSyntax(JOB_AD);
  const slotNew = newSyntax(slotText);
  rows.push({
    name: "classad: parse job + slot ads, new syntax (cold)",
    run: () => {
      clearExprCache();
      return [ad(jobNew), ad(slotNew)];
    },
  });
  const textsNew = texts.map(newSyntax);
  const fullNew = decision(() => decideMatch(policy, { job: jobNew, machines: textsNew }, ctx));
  rows.push({
    name: "classad: /v1/match from 2,000 new-syntax ad texts",
    run: fullNew,
    answer: () => fullNew().verdict,
  });
  // the worst case for the shared cache: every machine's Requirements a text no other ad repeats
  const distinct = Array.from(
    { length: 2000 },
    (_, i) =>
      `[ Name = "m${i}"; Memory = ${i}; Requirements = TARGET.RequestMemory <= MY.Memory + ${i} && TARGET.Owner =!= "u${i}" ]`,
  );
  // 2,000 texts of their own cost more than the default budget to read (6 units a character the
  // shared cache lacks, since 2026-11-28): run as with DECISION_BUDGET=4000000, as a pool of such ads must
  const fullDistinct = decision(
    () => decideMatch(policy, { job: jobNew, machines: distinct }, ctx),
    "4000000",
  );
  rows.push({
    name: "classad: /v1/match, 2,000 new-syntax ads, every Requirements distinct",
    run: fullDistinct,
    answer: () => fullDistinct().verdict,
  });
  return rows;
}

function customsRows(): Row[] {
  const policy = customs.loadCustomsPolicy(customs.DEFAULT_POLICY_DATA);
  const raw = rawHosts(1000);
  const pool = raw.map((h) => {
    const n = customs.normalizeHost(h, policy.defaults);
    if (!n.ok) throw new Error(n.error[0].message);
    const p = customs.prepareHost(n.value);
    if (!p.ok) throw new Error(p.error[0].message);
    return p.value;
  });
  const json = JSON.stringify(CUSTOMS_REQUEST);
  const { AllocateRequest } = builtSchemas<{ AllocateRequest: { parse(value: unknown): unknown } }>(
    hostSchemasModule,
    "hostSchemas",
  );
  const readRequest = () => {
    const checked = customs.normalizeRequest(AllocateRequest.parse(JSON.parse(json)) as never);
    if (!checked.ok) throw new Error("bad request");
    return customs.prepareRequest(checked.value);
  };
  const prepared = readRequest();
  if (!prepared.ok) throw new Error("bad request");
  const req = prepared.value;
  let last = -1;
  let count = 0;
  const live = pool.slice();
  const allocate = () => {
    const sel = customs.selectHost(live, req, { now: undefined, downFactor: 2, last, ratings: false });
    if (sel.index >= 0) {
      last = sel.index;
      live[sel.index] = customs.withJobs(live[sel.index], live[sel.index].host.jobs + 1);
    }
    if (++count % 50 === 0) for (let i = 0; i < pool.length; i++) live[i] = pool[i];
    return sel;
  };
  const input = { hosts: raw, request: CUSTOMS_REQUEST };
  return [
    { name: "customs: read request", run: readRequest },
    { name: "customs: allocate over 1,000 hosts (prepared)", run: decision(allocate) },
    {
      name: "customs: select + ratings, 1,000 hosts",
      run: decision(() =>
        customs.selectHost(pool, req, { now: undefined, downFactor: 2, last: -1, ratings: true }),
      ),
    },
    {
      name: "customs: pure decision from JSON, 1,000 hosts",
      run: decision(() => customs.decideCustoms(policy, input)),
      answer: () => customs.decideCustoms(policy, input),
    },
  ];
}

function jobfilterRows(): Row[] {
  const policy = loadFilters(ok(compileFilters(JSON.stringify(chain(50))), "filters"));
  const running = Array.from({ length: 5 }, (_, i) => jobfilterJob(200 + i));
  const request = {
    job: jobfilterJob(500),
    queue: { running, queued: [] as ReturnType<typeof jobfilterJob>[] },
  };
  const text = JSON.stringify(request);
  const busy = {
    job: jobfilterJob(900),
    queue: {
      running: Array.from({ length: 10 }, (_, i) => jobfilterJob(300 + i)),
      queued: Array.from({ length: 10 }, (_, i) => jobfilterJob(400 + i)),
    },
  };
  const plain = {
    ...busy,
    job: { id: 901, opcodes: [{ ...jobfilterJob(901).opcodes[0], OP_ID: "OP_INSTANCE_REBOOT" }] },
  };
  // the route reads a job keeping integers past 2^53 exact, where the tree can
  const parse = (exactJson as { parseExactJson?: (t: string) => unknown }).parseExactJson ?? JSON.parse;
  const { JobfilterDecisionRequest } = builtSchemas<{
    JobfilterDecisionRequest: { parse(value: unknown): unknown };
  }>(jobSchemasModule, "jobSchemas");
  const rows: Row[] = [
    { name: "jobfilter: read request", run: () => JobfilterDecisionRequest.parse(parse(text)) },
  ];
  for (const [name, req] of [
    ["jobfilter: 50 rules, 5 running", request],
    ["jobfilter: 50 rules, 10 running + 10 queued", busy],
    ["jobfilter: 50 rules, no rate limit applies", plain],
  ] as const) {
    const d = decision(() => decideJobfilter(policy, req, { explain: false }));
    rows.push({ name, run: d, answer: () => d().verdict });
  }
  return rows;
}

function jqRows(): Row[] {
  const rows: Row[] = [];
  for (const c of JQ_CASES) {
    const prog = ok(compileJq(c.program, c.args === undefined ? undefined : { args: c.args }), c.name);
    const d = decision(() => prog.first(c.input as never));
    rows.push({
      name: `jq: ${c.name}`,
      run: d,
      answer: () => JSON.stringify(prog.run(c.input as never).outputs),
    });
  }
  // the compiler's code reaches its optimised tier after about 1,500 compiles; the row's calibration
  // (60 ms) and samples alone stay before that, where tier-up timing on a loaded machine decides the figure
  for (let j = 0; j < 2_000; j++) compileJq(COMPILE_20);
  rows.push({ name: "jq: compile a 20-line script", run: () => compileJq(COMPILE_20) });
  return rows;
}

const GROUP_ROWS: Record<RowGroup, (fx: Fixtures) => Row[]> = {
  placement: placementRows,
  limits: limitsRows,
  classad: classadRows,
  customs: customsRows,
  jobfilter: jobfilterRows,
  jq: jqRows,
};

/** The rows of one group (bench/ab/groups.ts), or of every group, built from this tree's code on the shared fixtures. */
export function makeRows(fx: Fixtures, group?: string): Row[] {
  if (group === undefined) return ROW_GROUPS.flatMap((g) => GROUP_ROWS[g](fx));
  if (!(ROW_GROUPS as readonly string[]).includes(group)) throw new Error(`no row group ${group}`);
  return GROUP_ROWS[group as RowGroup](fx);
}
