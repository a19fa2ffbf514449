import type { CidrSet } from "../engines/limits/context.js";
import { buildCidrSet, urlSources } from "../engines/limits/index.js";
import { numberVar, type Env } from "../env.js";

/**
 * What the scheduled refresh stores for one ip-cidr-list-url source, under
 * `cidrlist:<source>` in the POLICIES namespace: the parsed list of the last
 * successful fetch and the history the status page shows.
 */
export interface CidrListRecord {
  source: string;
  entries: string[];
  last_success: string | null;
  last_failure: string | null;
  last_error: string | null;
  next_due: string;
  count: number;
  /** Downloads that succeeded / failed since the record was first written (absent in records written before they were kept). */
  successes?: number;
  failures?: number;
}

/** One source's line on GET /v1/status. */
export interface CidrListStatus {
  source: string;
  last_success: string | null;
  last_failure: string | null;
  last_error: string | null;
  count: number;
  /** When the next fetch is due; null before the first attempt (the next cron run tries). */
  next_due: string | null;
}

/** The loaded limits policy, as the engine's urlSources takes it. */
export type LimitsPolicy = Parameters<typeof urlSources>[0];

/** The KV key of a source's stored list, shared by the cron writer and the decision reader. */
export function cidrListKey(source: string): string {
  return `cidrlist:${source}`;
}

/** Reads a source's stored record, treating anything unreadable as never fetched. */
export async function readCidrListRecord(kv: KVNamespace, source: string): Promise<CidrListRecord | null> {
  const value = await kv.get<CidrListRecord>(cidrListKey(source), "json").catch(() => null);
  if (value === null || typeof value !== "object" || !Array.isArray(value.entries)) return null;
  return value;
}

/** Stores a source's record; only the scheduled refresh writes these. */
export async function writeCidrListRecord(kv: KVNamespace, record: CidrListRecord): Promise<void> {
  await kv.put(cidrListKey(record.source), JSON.stringify(record));
}

interface CachedList {
  /** When KV was last read for this source (isolate clock). */
  checkedAt: number;
  /** The last_success of the record the set was built from: a new success means a new list. */
  lastSuccess: string | null;
  set: CidrSet | undefined;
  /** When a request of this isolate started re-reading it, while that read is under way. */
  readingSince?: number;
}

const isolateLists = new Map<string, CachedList>();

/**
 * Gives the engine synchronous access to the stored lists of the given
 * sources: each is read from KV at most every BUNDLE_REFRESH_SECONDS per
 * isolate and turned into a CidrSet only when a new successful fetch replaced
 * it, so decisions never fetch and rarely parse. A source never fetched
 * successfully answers undefined (the identifier's fail-state).
 */
export async function cidrListsFor(
  env: Env,
  sources: readonly string[],
  now: number = Date.now(),
): Promise<(source: string) => CidrSet | undefined> {
  const maxAge = numberVar(env.BUNDLE_REFRESH_SECONDS, 5) * 1000;
  // A list another request is re-reading is used as it is (at most an interval old): no request
  // waits on another's KV read (workerd cancels such a wait as hung), and none builds the set twice.
  const stale = sources.filter((s) => {
    const cached = isolateLists.get(s);
    if (cached === undefined) return true;
    if (now - cached.checkedAt < maxAge) return false;
    return cached.readingSince === undefined || now - cached.readingSince >= maxAge;
  });
  for (const source of stale) {
    const cached = isolateLists.get(source);
    if (cached !== undefined) cached.readingSince = now;
  }
  if (stale.length > 0) {
    await Promise.all(
      stale.map(async (source) => {
        const record = await readCidrListRecord(env.POLICIES, source);
        const lastSuccess = record?.last_success ?? null;
        const cached = isolateLists.get(source);
        const set =
          cached !== undefined && cached.lastSuccess === lastSuccess
            ? cached.set
            : record !== null && lastSuccess !== null
              ? buildCidrSet(record.entries)
              : undefined;
        isolateLists.set(source, { checkedAt: now, lastSuccess, set });
      }),
    );
  }
  return (source) => isolateLists.get(source)?.set;
}

/** Forgets the isolate's cached lists; tests use it to see a fresh isolate. */
export function clearCidrListCache(): void {
  isolateLists.clear();
}

const sourcesByPolicy = new WeakMap<object, readonly string[]>();

/** The distinct list URLs a loaded policy consults, computed once per loaded policy. */
export function policySources(policy: LimitsPolicy): readonly string[] {
  const key = policy as unknown as object;
  let sources = sourcesByPolicy.get(key);
  if (sources === undefined) {
    sources = [...new Set(urlSources(policy).map((u) => u.source))];
    sourcesByPolicy.set(key, sources);
  }
  return sources;
}

/**
 * Reports every list URL of the active limits policy with its last success,
 * last failure and entry count, for GET /v1/status, so an operator sees a list
 * that stopped refreshing.
 */
export async function cidrListStatus(env: Env, policy: LimitsPolicy): Promise<CidrListStatus[]> {
  return Promise.all(
    policySources(policy).map(async (source) => {
      const record = await readCidrListRecord(env.POLICIES, source);
      return {
        source,
        last_success: record?.last_success ?? null,
        last_failure: record?.last_failure ?? null,
        last_error: record?.last_error ?? null,
        count: record?.count ?? 0,
        next_due: record?.next_due ?? null,
      };
    }),
  );
}

/** One list's figures for `GET /metrics`: entries and refresh results, as the stored record keeps them. */
export interface CidrListCounts {
  source: string;
  count: number;
  successes: number;
  failures: number;
  last_success: string | null;
}

/**
 * Reads the stored record of every list URL of the active limits policy for
 * `GET /metrics`. The figures are the deployment's, not the isolate's: only
 * the scheduled refresh writes them, whichever isolate runs it.
 */
export async function cidrListCounts(env: Env, policy: LimitsPolicy): Promise<CidrListCounts[]> {
  return Promise.all(
    policySources(policy).map(async (source) => {
      const record = await readCidrListRecord(env.POLICIES, source);
      return {
        source,
        count: record?.count ?? 0,
        successes: record?.successes ?? 0,
        failures: record?.failures ?? 0,
        last_success: record?.last_success ?? null,
      };
    }),
  );
}
