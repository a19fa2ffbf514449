/**
 * Metrics benchmark: what recording a decision in the isolate's registry costs,
 * against the cheapest decision there is (placement with the seed policy, decided
 * in-process, measured in the same run), and what one scrape's rendering costs.
 * Also counts the garbage collections during five million recordings (recording
 * is meant to allocate nothing, so none), beside those of a loop that does
 * allocate. Run directly with `npx tsx bench/metrics.ts`.
 */
import { readFileSync } from "node:fs";
import { PerformanceObserver } from "node:perf_hooks";
import { compilePlacement, decidePlacement, loadPlacement } from "../src/engines/placement/index.js";
import { isolateFamilies, MetricsRegistry, renderExposition } from "../src/metrics/index.js";
import { measure, printTable, type BenchRow } from "./support.js";

const OUTCOMES = ["placed", "rejected"];
const CACHE = ["hit", "miss", "bypass"] as const;

/** Measures recording and rendering; returns the rows `npm run bench` prints. */
export async function runMetricsBench(): Promise<BenchRow[]> {
  const compiled = compilePlacement(
    readFileSync(new URL("../policies/placement.yaml", import.meta.url), "utf8"),
  );
  if (!compiled.ok) throw new Error("seed placement policy does not compile");
  const policy = loadPlacement(compiled.value);
  const request = { user: "sarah", groups: ["sarah", "dev_app"], tags: { namespace: "newapp" } };
  const baseline = measure(() => decidePlacement(policy, request, { explain: false }));
  const baselineName = "placement decide";
  const registry = new MetricsRegistry();
  let i = 0;
  const record = measure(() => {
    i++;
    registry.decision("placement", OUTCOMES[i & 1], CACHE[i % 3], i & 7, false);
  });
  registry.objectCall("JobQueue", "submit", 3, true);
  const render = measure(() => renderExposition(isolateFamilies(registry)), 300);
  return [
    { name: "placement decide (seed policy)", microsPerOp: baseline, baselineName, ratio: 1 },
    {
      name: "record one decision in the registry",
      microsPerOp: record,
      baselineName,
      ratio: record / baseline,
    },
    {
      name: "render /metrics (isolate families)",
      microsPerOp: render,
      baselineName,
      ratio: render / baseline,
    },
  ];
}

/**
 * Garbage collections that happen while `n` calls of `fn` run: a loop that
 * allocates nothing triggers none. Counted with a `gc` performance observer.
 */
export async function collectionsDuring(fn: (k: number) => void, n: number): Promise<number> {
  let count = 0;
  const observer = new PerformanceObserver((list) => {
    count += list.getEntries().length;
  });
  observer.observe({ entryTypes: ["gc"] });
  for (let k = 0; k < n; k++) fn(k);
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  return count;
}

/**
 * Collections during 5 million calls of an empty function (the control: the
 * loop itself), during 5 million recordings, and during 5 million small
 * allocations (to show the count can move).
 */
export async function allocationCheck(): Promise<{ empty: number; recording: number; allocating: number }> {
  const registry = new MetricsRegistry();
  const empty = await collectionsDuring(() => {}, 5_000_000);
  const recording = await collectionsDuring(
    (k) => registry.decision("placement", OUTCOMES[k & 1], CACHE[k % 3], k & 7, false),
    5_000_000,
  );
  let sink: unknown;
  const allocating = await collectionsDuring((k) => {
    sink = { k };
  }, 5_000_000);
  if (sink === undefined) throw new Error("unreachable");
  return { empty, recording, allocating };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // First, before the timed loops leave garbage behind that any later allocation could collect.
  const gcs = await allocationCheck();
  printTable("metrics: µs per operation, ratio to a placement decision (same run)", await runMetricsBench());
  console.log(
    `garbage collections during 5,000,000 recordings: ${gcs.recording} (empty loop: ${gcs.empty}; 5,000,000 one-field object allocations: ${gcs.allocating})`,
  );
}
