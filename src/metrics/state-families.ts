/**
 * Families read from the Durable Objects that hold the deployment's state at
 * scrape time: each job queue's running and queued jobs and its lease expiries,
 * each host pool's available and unavailable hosts. The same from every isolate.
 */
import type { Label, MetricFamily } from "./exposition.js";

/** One job queue's figures as its object reports them. */
export interface QueueFigures {
  queue: string;
  running: number;
  queued: number;
  /** Leases that ran out since the queue was created (their slots freed, the jobs marked expired). */
  leaseExpiries: number;
}

/** One host pool's (network number's) figures. */
export interface PoolFigures {
  net: number;
  available: number;
  unavailable: number;
}

/** How many of the registered queues and pools a scrape read, and whether that was all of them. */
export interface StateCoverage {
  queues: number;
  queuesComplete: boolean;
  pools: number;
  poolsComplete: boolean;
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Per-queue jobs and lease expiries, per-pool hosts, and how much of the registries the scrape covered. */
export function stateFamilies(
  queues: readonly QueueFigures[],
  pools: readonly PoolFigures[],
  coverage: StateCoverage,
): MetricFamily[] {
  const q = [...queues].sort((a, b) => byText(a.queue, b.queue));
  const p = [...pools].sort((a, b) => a.net - b.net);
  const queueLabel = (x: QueueFigures): Label[] => [["queue", x.queue]];
  const poolLabels = (x: PoolFigures, state: string): Label[] => [
    ["net", String(x.net)],
    ["state", state],
  ];
  return [
    {
      name: "arbiter_queue_jobs",
      help: "Jobs in each job queue now, by state: running (holding a slot under a lease) and queued (held). Read from the queue's Durable Object at scrape time.",
      type: "gauge",
      samples: q.flatMap((x) => [
        { labels: [...queueLabel(x), ["state", "queued"]] as Label[], value: x.queued },
        { labels: [...queueLabel(x), ["state", "running"]] as Label[], value: x.running },
      ]),
    },
    {
      name: "arbiter_lease_expiries_total",
      help: "Leases of each job queue that ran out without a heartbeat (the job marked expired, its slot freed), kept in the queue's Durable Object.",
      type: "counter",
      samples: q.map((x) => ({ labels: queueLabel(x), value: x.leaseExpiries })),
    },
    {
      name: "arbiter_pool_hosts",
      help: "Hosts in each customs host pool (network number) now, by state: available (would be offered jobs) or unavailable (down, or a limit or its load keeps it out). Read from the pool's Durable Object at scrape time.",
      type: "gauge",
      samples: p.flatMap((x) => [
        { labels: poolLabels(x, "available"), value: x.available },
        { labels: poolLabels(x, "unavailable"), value: x.unavailable },
      ]),
    },
    {
      name: "arbiter_scrape_state_objects",
      help: "Job queues and host pools this scrape read, and whether that was every registered one (complete 1) or the first ones by name up to the scrape's bound (complete 0).",
      type: "gauge",
      samples: [
        {
          labels: [
            ["kind", "pool"],
            ["complete", coverage.poolsComplete ? "1" : "0"],
          ],
          value: coverage.pools,
        },
        {
          labels: [
            ["kind", "queue"],
            ["complete", coverage.queuesComplete ? "1" : "0"],
          ],
          value: coverage.queues,
        },
      ],
    },
  ];
}
