import type { Env } from "../env.js";
import type { PoolFigures, QueueFigures, StateCoverage } from "../metrics/index.js";
import { registeredPools } from "../state/pool-registry.js";
import { registeredQueues } from "../state/queue-registry.js";
import { activePolicy, poolStub } from "./routes/hosts.js";
import { queueStub } from "./routes/jobs.js";

/** The most job queues, and the most host pools, one scrape reads (the first ones in registry order). */
export const SCRAPE_STATE_MAX = 500;
const PAGE = 100;

/** The registry's names page by page, up to SCRAPE_STATE_MAX; `complete` when that was all of them. */
async function firstRegistered<T>(
  page: (limit: number, cursor: string | undefined) => Promise<{ items: T[]; cursor: string | null }>,
): Promise<{ items: T[]; complete: boolean }> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (;;) {
    const p = await page(Math.min(PAGE, SCRAPE_STATE_MAX - items.length), cursor);
    items.push(...p.items);
    if (p.cursor === null) return { items, complete: true };
    if (items.length >= SCRAPE_STATE_MAX) return { items, complete: false };
    cursor = p.cursor;
  }
}

/**
 * Each registered job queue's running and queued jobs and lease expiries, and
 * each registered host pool's available and unavailable hosts, asked of their
 * Durable Objects at once. An object that fails to answer is left out, and the
 * coverage says the scrape was incomplete.
 */
export async function stateFigures(
  env: Env,
): Promise<{ queues: QueueFigures[]; pools: PoolFigures[]; coverage: StateCoverage }> {
  const [queueNames, poolNets, policy] = await Promise.all([
    firstRegistered(async (limit, cursor) => {
      const p = await registeredQueues(env, limit, cursor);
      return { items: p.names, cursor: p.cursor };
    }),
    firstRegistered(async (limit, cursor) => {
      const p = await registeredPools(env, limit, cursor);
      return { items: p.nets, cursor: p.cursor };
    }),
    activePolicy(env),
  ]);
  const now = Date.now();
  const [queueAnswers, poolAnswers] = await Promise.all([
    Promise.allSettled(
      queueNames.items.map(async (queue) => ({ queue, ...(await queueStub(env, queue).gauges()) })),
    ),
    Promise.allSettled(
      poolNets.items.map(async (net) => ({
        net,
        ...(await poolStub(env, net).hostCounts(policy.pool, now)),
      })),
    ),
  ]);
  const queues = queueAnswers.flatMap((a) => (a.status === "fulfilled" ? [a.value] : []));
  const pools = poolAnswers.flatMap((a) => (a.status === "fulfilled" ? [a.value] : []));
  return {
    queues,
    pools,
    coverage: {
      queues: queues.length,
      queuesComplete: queueNames.complete && queues.length === queueNames.items.length,
      pools: pools.length,
      poolsComplete: poolNets.complete && pools.length === poolNets.items.length,
    },
  };
}
