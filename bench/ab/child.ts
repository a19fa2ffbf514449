/**
 * One round of the A/B harness for one group of rows, in a fresh process:
 * loads both trees' rows of that group (bundles made by bench/ab/bundle.ts),
 * checks that they give the same answers, warms every row on both trees in turn
 * until its µs a call is steady, then takes the rows one at a time: both trees
 * run the row again briefly, one call count is set for both (from those warm
 * figures, at least MIN_CALLS), then `reps` pairs of samples, A and B in turn
 * with the order alternating from pair to pair. Every row on every tree has a
 * timing loop of its own. Times are CPU time of this process (user + system:
 * garbage collection and compiles on V8's helper threads count, time the
 * process spends waiting for a core does not). Prints one JSON line.
 *
 * Why (wt/abrow, docs/performance.md): with every row of every group in one
 * process and each tree's call count taken from its own 60 ms calibration, whose
 * first calls were cold, the tree calibrated first (always A) got fewer calls a
 * sample: on the 7 ms placement compile 1 call against 3, so B's samples nearly
 * always held a scavenge (4-14 ms) and A's mostly did not, and the same code
 * read 1.41× slower on B. A forced full GC before every row was tried and made
 * things worse: it shrinks the young generation and the heap's limit, and the
 * next ~100 ms of a row ran 2-10× slower while they grew back. Only a row that
 * asks for it (`collectBeforeSample`, the 3,000-rule compile, whose calls leave
 * a full collection every dozen calls) starts each sample from a full
 * collection and three untimed calls; run.ts starts this with --expose-gc.
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import type { Fixtures, Row } from "./rows.js";

interface Args {
  a: string;
  b: string;
  fixtures: string;
  reps: number;
  ms: number;
  flip: boolean;
  group?: string;
  filter?: RegExp;
}

function parseArgs(argv: string[]): Args {
  const get = (k: string) => {
    const i = argv.indexOf(`--${k}`);
    return i < 0 ? undefined : argv[i + 1];
  };
  const filter = get("filter");
  const group = get("group");
  return {
    a: get("a")!,
    b: get("b")!,
    fixtures: get("fixtures")!,
    reps: Number(get("reps") ?? 3),
    ms: Number(get("ms") ?? 40),
    flip: argv.includes("--flip"),
    ...(group === undefined ? {} : { group }),
    ...(filter === undefined ? {} : { filter: new RegExp(filter, "i") }),
  };
}

/** The fewest calls a sample makes, so a sample of a slow row holds more than one call's collections. */
const MIN_CALLS = 4;
/**
 * CPU ms of one warm-up stretch. Before any row is measured, each row runs on both trees in turn,
 * stretch by stretch, until a stretch's µs a call is within 15% of the stretch before on both
 * trees (at least two stretches a tree, at most WARM_MAX): most rows settle in 40 ms, a jq-heavy one
 * (the limits rewrite) runs 10-100 µs a call for its first ~5,000 calls while V8 optimises it.
 */
const WARM_MS = 20;
/** The most warm-up stretches a tree runs a row for before the measured rows start. */
const WARM_MAX = 10;
/** CPU ms each tree runs a row again after the full GC before its samples (the call count is taken from it). */
const REWARM_MS = 20;

function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** Calls `run` `n` times (awaiting each promise) and returns CPU µs per call. */
type TimeN = (run: () => unknown, n: number) => Promise<number>;

const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
  ...params: string[]
) => (run: () => unknown, n: number, cpu: () => number, kept: { last: unknown }) => Promise<number>;

/** The last answer of every timing loop, kept so the calls cannot be dropped as unused. */
const kept = { last: undefined as unknown };

/**
 * A timing loop of its own for one row on one tree: compiled from its own source, so its call
 * site `run()` has its own type feedback. One loop shared by every row and both trees sees all
 * their closures; V8 then optimises it inlining whichever closure it saw first, and on a row of
 * 60 ns (classad Rank) that tree read 15-25% faster, a different tree in different processes.
 */
function makeTimeN(): TimeN {
  const loop = new AsyncFunction(
    "run",
    "n",
    "cpu",
    "kept",
    `const t0 = cpu();
    for (let i = 0; i < n; i++) {
      const r = run();
      kept.last = r instanceof Promise ? await r : r;
    }
    return (cpu() - t0) / n;`,
  );
  return (run, n) => loop(run, n, cpuMicros, kept);
}

/** Runs `run` for about `ms` of CPU and returns µs per call (the warm-up and the calibration). */
async function calibrate(timeN: TimeN, run: () => unknown, ms: number): Promise<number> {
  let n = 1;
  let used = 0;
  let calls = 0;
  const t0 = cpuMicros();
  while (used < ms * 1000) {
    await timeN(run, n);
    calls += n;
    used = cpuMicros() - t0;
    n = Math.min(n * 2, 1 << 14);
  }
  return used / calls;
}

async function answerOf(row: Row): Promise<string> {
  try {
    return JSON.stringify(await row.answer!());
  } catch (e) {
    return `threw ${(e as Error).message}`;
  }
}

const args = parseArgs(process.argv.slice(2));
const fixtures = JSON.parse(readFileSync(args.fixtures, "utf8")) as Fixtures;
type RowsModule = { makeRows(f: Fixtures, group?: string): Row[] };
// the tree loaded (and compiled) first alternates with --flip, as the order of each pair does
const load = async (file: string) => (await import(pathToFileURL(file).href)) as RowsModule;
let modA: RowsModule;
let modB: RowsModule;
if (args.flip) {
  modB = await load(args.b);
  modA = await load(args.a);
} else {
  modA = await load(args.a);
  modB = await load(args.b);
}
// the tree built first alternates with --flip, as the order of each pair does
const build = (m: RowsModule) => new Map(m.makeRows(fixtures, args.group).map((r) => [r.name, r]));
let rowsA: Map<string, Row>;
let rowsB: Map<string, Row>;
if (args.flip) {
  rowsB = build(modB);
  rowsA = build(modA);
} else {
  rowsA = build(modA);
  rowsB = build(modB);
}
const names = [...rowsA.keys()].filter(
  (n) => rowsB.has(n) && (args.filter === undefined || args.filter.test(n)),
);

const differ: string[] = [];
for (const n of names) {
  const [a, b] = [rowsA.get(n)!, rowsB.get(n)!];
  if (a.answer === undefined) continue;
  const [x, y] = [await answerOf(a), await answerOf(b)];
  if (x !== y) differ.push(`${n}: A ${x.slice(0, 200)} | B ${y.slice(0, 200)}`);
}

// every row warmed on both trees first, in turn (the first tree alternating from row to row), so
// the JIT's background compiles a row starts have finished (on other rows' time, both trees alike)
// before the row is measured: a jq-heavy row (the limits rewrite) takes about 5,000 calls to settle
const first = (i: number) => (i + (args.flip ? 1 : 0)) % 2 === 0;
/** Each row on each tree with its own timing loop. */
const timed = names.map((n) => ({
  a: { run: rowsA.get(n)!.run, time: makeTimeN() },
  b: { run: rowsB.get(n)!.run, time: makeTimeN() },
}));
type Timed = (typeof timed)[number]["a"];
const warm = (t: Timed, ms: number) => calibrate(t.time, t.run, ms);
const fullGc = (globalThis as { gc?: () => void }).gc;
/** One sample; for a row that asks for it, from a full collection and three untimed calls. */
async function sample(t: Timed, calls: number, collect: boolean): Promise<number> {
  if (collect) {
    if (fullGc === undefined) throw new Error("bench/ab/child.ts needs node --expose-gc");
    fullGc();
    await t.time(t.run, 3);
  }
  return t.time(t.run, calls);
}
for (let i = 0; i < names.length; i++) {
  const { a, b } = timed[i];
  const [x, y] = first(i) ? [a, b] : [b, a];
  let [px, py] = [await warm(x, WARM_MS), await warm(y, WARM_MS)];
  for (let k = 1; k < WARM_MAX; k++) {
    const [cx, cy] = [await warm(x, WARM_MS), await warm(y, WARM_MS)];
    if (Math.abs(cx / px - 1) < 0.15 && Math.abs(cy / py - 1) < 0.15) break;
    [px, py] = [cx, cy];
  }
}

// each row's sampled stretch (monotonic µs, the clock of V8's CPU profiles)
const nowMicros = () => Number(process.hrtime.bigint() / 1000n);
const windows: [number, number][] = [];
const samples = new Map<string, { a: number[]; b: number[]; calls: number }>();
for (let i = 0; i < names.length; i++) {
  const { a, b } = timed[i];
  // both trees run the row again in turn (the other tree first this time); the call count comes
  // from these warm figures. (No forced full GC here: it shrinks the young generation and the
  // heap's limit, and the next ~100 ms of a row ran 2-10× slower while they grew back.)
  const [x, y] = first(i) ? [b, a] : [a, b];
  const perX = await warm(x, REWARM_MS);
  const perY = await warm(y, REWARM_MS);
  // one call count for both trees: a sample of each does the same work (and allocates alike)
  const row = rowsA.get(names[i])!;
  const ms = Math.max(args.ms, row.sampleMs ?? 0);
  const collect = row.collectBeforeSample === true;
  const calls = Math.max(MIN_CALLS, Math.round((ms * 1000) / ((perX + perY) / 2)));
  const s = { a: [] as number[], b: [] as number[], calls };
  const from = nowMicros();
  for (let rep = 0; rep < args.reps; rep++) {
    if ((rep + i + (args.flip ? 1 : 0)) % 2 === 0) {
      s.a.push(await sample(a, calls, collect));
      s.b.push(await sample(b, calls, collect));
    } else {
      s.b.push(await sample(b, calls, collect));
      s.a.push(await sample(a, calls, collect));
    }
  }
  windows.push([from, nowMicros()]);
  samples.set(names[i], s);
}

process.stdout.write(
  JSON.stringify({
    rows: names.map((n) => ({ name: n, ...samples.get(n)! })),
    differ,
    windows,
    kept: typeof kept.last,
  }) + "\n",
);
