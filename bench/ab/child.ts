/**
 * One round of the A/B harness, in a fresh process: loads the rows of both
 * trees (bundles made by bench/ab/bundle.ts), checks that they give the same
 * answers, warms every row up, then measures each row on A and on B in turn
 * (the order alternating from pair to pair), in CPU time of this process
 * (user + system: garbage collection on V8's helper threads counts, time the
 * process spends waiting for a core does not). Prints one JSON line.
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
  filter?: RegExp;
}

function parseArgs(argv: string[]): Args {
  const get = (k: string) => {
    const i = argv.indexOf(`--${k}`);
    return i < 0 ? undefined : argv[i + 1];
  };
  const filter = get("filter");
  return {
    a: get("a")!,
    b: get("b")!,
    fixtures: get("fixtures")!,
    reps: Number(get("reps") ?? 3),
    ms: Number(get("ms") ?? 40),
    flip: argv.includes("--flip"),
    ...(filter === undefined ? {} : { filter: new RegExp(filter, "i") }),
  };
}

let sink: unknown;

function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** Calls `run` `n` times (awaiting each promise) and returns CPU µs per call. */
async function timeN(run: () => unknown, n: number): Promise<number> {
  const t0 = cpuMicros();
  for (let i = 0; i < n; i++) {
    const r = run();
    sink = r instanceof Promise ? await r : r;
  }
  return (cpuMicros() - t0) / n;
}

/** Runs `run` for about `ms` of CPU and returns µs per call (the warm-up and the calibration). */
async function calibrate(run: () => unknown, ms: number): Promise<number> {
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
type RowsModule = { makeRows(f: Fixtures): Row[] };
const [modA, modB] = (await Promise.all([
  import(pathToFileURL(args.a).href),
  import(pathToFileURL(args.b).href),
])) as RowsModule[];
const rowsA = new Map(modA.makeRows(fixtures).map((r) => [r.name, r]));
const rowsB = new Map(modB.makeRows(fixtures).map((r) => [r.name, r]));
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

// warm-up and per-row call counts: each timed sample runs about `ms` of CPU
const counts = new Map<string, [number, number]>();
for (const n of names) {
  const perA = await calibrate(rowsA.get(n)!.run, 60);
  const perB = await calibrate(rowsB.get(n)!.run, 60);
  counts.set(n, [
    Math.max(1, Math.round((args.ms * 1000) / perA)),
    Math.max(1, Math.round((args.ms * 1000) / perB)),
  ]);
}

// the measured stretch starts here (monotonic µs, the clock of V8's CPU profiles)
const measureStart = Number(process.hrtime.bigint() / 1000n);
const samples = new Map<string, { a: number[]; b: number[] }>(names.map((n) => [n, { a: [], b: [] }]));
for (let rep = 0; rep < args.reps; rep++) {
  for (let i = 0; i < names.length; i++) {
    const n = names[i];
    const [na, nb] = counts.get(n)!;
    const s = samples.get(n)!;
    if ((rep + i + (args.flip ? 1 : 0)) % 2 === 0) {
      s.a.push(await timeN(rowsA.get(n)!.run, na));
      s.b.push(await timeN(rowsB.get(n)!.run, nb));
    } else {
      s.b.push(await timeN(rowsB.get(n)!.run, nb));
      s.a.push(await timeN(rowsA.get(n)!.run, na));
    }
  }
}

process.stdout.write(
  JSON.stringify({
    rows: names.map((n) => ({ name: n, ...samples.get(n)! })),
    differ,
    measureStart,
    kept: typeof sink,
  }) + "\n",
);
