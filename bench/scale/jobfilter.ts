/**
 * Scale series: a jobfilter decision for a job that the last of 10 / 100 /
 * 1,000 rules rate-limits, with 10,000 jobs holding slots — as the JobQueue
 * object decides a submission, from its per-rule running counts
 * (`decideCounted`) — then the same with the queue's length varied, and, for
 * comparison in the same run, `decideJob` walking the running jobs (the
 * former path, still used by `POST /v1/jobfilter/decide`, whose request
 * carries its queue).
 */
import {
  RunningCounts,
  buildFilterSet,
  decideCounted,
  decideJob,
  type Job,
} from "../../src/engines/jobfilter/index.js";
import { chain, job } from "../fixtures.js";
import { measureSeries, report } from "./series.js";

const RULES = [10, 100, 1_000];
const QUEUE = 10_000;
const running = Array.from({ length: QUEUE }, (_, i) => job(1_000 + i));
const probe = job(50_000);

function fixture(
  rules: number,
  queue: number,
): { counts: RunningCounts; run: Job[]; set: ReturnType<typeof buildFilterSet> } {
  const set = buildFilterSet(chain(rules));
  const run = running.slice(0, queue);
  const counts = RunningCounts.of(set, run);
  const check = decideCounted(counts, probe);
  const want = queue >= 10 ? "RATE_LIMITED" : "ACCEPT";
  if (check.action !== want) throw new Error(`unexpected ${JSON.stringify(check)}`);
  return { counts, run, set };
}

const byRules = measureSeries(
  `jobfilter: decision, rate-limited by the last of N rules, ${QUEUE.toLocaleString("en")} jobs running (counts)`,
  RULES,
  (n) => {
    const { counts } = fixture(n, QUEUE);
    return { run: () => decideCounted(counts, probe) };
  },
);
const byQueue = measureSeries(
  "jobfilter: the same with 1,000 rules and N jobs running (counts)",
  [10, 1_000, 10_000],
  (n) => {
    const { counts } = fixture(1_000, n);
    return { run: () => decideCounted(counts, probe) };
  },
);
const walking = measureSeries(
  `jobfilter: decideJob walking the ${QUEUE.toLocaleString("en")} running jobs (former path)`,
  RULES,
  (n) => {
    const { run, set } = fixture(n, QUEUE);
    return { run: () => decideJob(set, probe, { running: run, queued: [] }) };
  },
  { rounds: 3, ms: 50 },
);
byRules.notes.push(
  `1,000 rules: ${byRules.values[2].toFixed(1)} µs (goal < 100 µs); ${(walking.values[2] / byRules.values[2]).toFixed(0)}× less than walking the queue`,
);
report(byRules, byQueue, walking);
