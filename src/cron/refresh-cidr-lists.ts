import type { Json } from "../engines/common/json.js";
import { readCappedText } from "../read-capped.js";
import { parseCidrListText, type UrlSource } from "../engines/limits/index.js";
import type { Env } from "../env.js";
import { readCidrListRecord, writeCidrListRecord, type CidrListRecord } from "../state/cidr-lists.js";

/** A list download gives up after this long, so one slow server cannot hold the cron run. */
const FETCH_TIMEOUT_MS = 30_000;
/** Lists larger than this are refused: a KV value holds 25 MiB and a decision parses the list. */
const MAX_LIST_BYTES = 8 * 1024 * 1024;

/** What one source's turn in a refresh run did. */
export interface SourceOutcome {
  source: string;
  action: "skipped" | "fetched" | "failed";
  count: number;
  error?: string;
}

/** What a refresh run did, for the scheduled handler's log line and for tests. */
export interface RefreshReport {
  at: string;
  sources: SourceOutcome[];
}

/** How the refresh reaches the network; tests and the CLI may pass their own. */
export type Fetcher = (url: string, init: RequestInit) => Promise<Response>;

/**
 * Fetches every list whose `update` (or, after a failure, `retry`) time has
 * come and stores the parsed entries with their fetch status, so decisions
 * read lists from KV and never wait on a download (spec §16h). A failure keeps
 * the previous entries. Sources sharing a URL are fetched once, with the
 * first identifier's schedule and transform.
 */
export async function refreshSources(
  env: Env,
  sources: readonly UrlSource[],
  now: number,
  fetcher: Fetcher = (url, init) => fetch(url, init),
): Promise<RefreshReport> {
  const unique = new Map<string, UrlSource>();
  for (const s of sources) if (!unique.has(s.source)) unique.set(s.source, s);
  const outcomes = await Promise.all([...unique.values()].map((s) => refreshOne(env, s, now, fetcher)));
  return { at: new Date(now).toISOString(), sources: outcomes };
}

async function refreshOne(
  env: Env,
  source: UrlSource,
  now: number,
  fetcher: Fetcher,
): Promise<SourceOutcome> {
  const previous = await readCidrListRecord(env.POLICIES, source.source);
  if (previous !== null && dueAt(previous, source) > now) {
    return { source: source.source, action: "skipped", count: previous.count };
  }
  const downloaded = await download(source, fetcher);
  const at = new Date(now).toISOString();
  let record: CidrListRecord;
  if ("entries" in downloaded) {
    record = {
      source: source.source,
      entries: downloaded.entries,
      last_success: at,
      last_failure: previous?.last_failure ?? null,
      last_error: previous?.last_error ?? null,
      next_due: new Date(now + source.updateSeconds * 1000).toISOString(),
      count: downloaded.entries.length,
      successes: (previous?.successes ?? 0) + 1,
      failures: previous?.failures ?? 0,
    };
  } else {
    const entries = previous?.entries ?? [];
    record = {
      source: source.source,
      entries,
      last_success: previous?.last_success ?? null,
      last_failure: at,
      last_error: downloaded.error,
      next_due: new Date(now + source.retrySeconds * 1000).toISOString(),
      count: entries.length,
      successes: previous?.successes ?? 0,
      failures: (previous?.failures ?? 0) + 1,
    };
  }
  await writeCidrListRecord(env.POLICIES, record);
  return "entries" in downloaded
    ? { source: source.source, action: "fetched", count: record.count }
    : { source: source.source, action: "failed", count: record.count, error: downloaded.error };
}

/**
 * When a stored list is next due under the policy in force now: `retry` after a
 * failed last attempt, else `update` after the last success. Computed from the
 * policy rather than taken from the stored `next_due`, so publishing shorter
 * intervals takes effect at once.
 */
export function dueAt(record: CidrListRecord, source: UrlSource): number {
  const success = record.last_success === null ? -Infinity : Date.parse(record.last_success);
  const failure = record.last_failure === null ? -Infinity : Date.parse(record.last_failure);
  if (success === -Infinity && failure === -Infinity) return -Infinity;
  return failure > success ? failure + source.retrySeconds * 1000 : success + source.updateSeconds * 1000;
}

/** Downloads and parses one list: non-200, network, size, JSON and transform trouble are all failures. */
export async function download(
  source: UrlSource,
  fetcher: Fetcher,
): Promise<{ entries: string[] } | { error: string }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), FETCH_TIMEOUT_MS);
  // `cache: "no-store"` (workerd's cache option, absent from the RequestInit type) keeps an
  // intermediate cache from hiding a changed list.
  const init: RequestInit & { cache?: "no-store" } = {
    headers: { accept: source.transform ? "application/json" : "text/plain, */*;q=0.5" },
    cache: "no-store",
    signal: controller.signal,
  };
  let text: string;
  try {
    const response = await fetcher(source.source, init);
    if (response.status !== 200) {
      await response.body?.cancel();
      return { error: `HTTP status ${response.status}` };
    }
    const declared = Number(response.headers.get("content-length") ?? "NaN");
    if (declared > MAX_LIST_BYTES) {
      await response.body?.cancel();
      return { error: `list larger than ${MAX_LIST_BYTES} bytes` };
    }
    const read = await readCappedText(response.body, MAX_LIST_BYTES);
    if (read === null) return { error: `list larger than ${MAX_LIST_BYTES} bytes` };
    text = read;
  } catch (e) {
    return {
      error: controller.signal.aborted
        ? `timed out after ${FETCH_TIMEOUT_MS / 1000} s`
        : `fetch failed: ${message(e)}`,
    };
  } finally {
    clearTimeout(timer);
  }
  if (source.transform) {
    let body: Json;
    try {
      body = JSON.parse(text) as Json;
    } catch (e) {
      return { error: `body is not valid JSON: ${message(e)}` };
    }
    const transformed = source.transform(body);
    if ("error" in transformed) return { error: `transform failed: ${transformed.error}` };
    text = transformed.text;
  }
  return { entries: parseCidrListText(text) };
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
