import type { DnsAnswer, DnsResolver } from "../engines/limits/context.js";
import { writeLog } from "../log-line.js";
import { readCappedText } from "../read-capped.js";

/** The record types the limits identifiers ask for, with their RFC 1035 / RFC 3596 numbers. */
const TYPE_NUMBER = { A: 1, PTR: 12, TXT: 16, AAAA: 28 } as const;
const SOA = 6;

/** How long an answer that carries no TTL of its own (a negative answer without SOA) is kept. */
const DEFAULT_NEGATIVE_TTL_SECONDS = 60;
/** No answer is kept longer than a day, whatever TTL the resolver claims. */
const MAX_TTL_SECONDS = 86_400;

interface CacheEntry {
  readonly answer: DnsAnswer;
  readonly expires: number;
}

/** Answers the per-isolate DNS cache holds at most (about 200 bytes each: some 2 MB when full). */
export const DNS_CACHE_ENTRIES = 10_000;

/**
 * Answers kept for their record TTL, per isolate: a requester seen twice within
 * the TTL costs one DNS-over-HTTPS round trip, as a caching stub resolver would.
 * Bounded (DNS_CACHE_ENTRIES); when full, the least recently used entry goes first.
 */
export class DnsCache {
  private readonly entries = new Map<string, CacheEntry>();

  constructor(private readonly maxEntries = DNS_CACHE_ENTRIES) {}

  /** The unexpired answer for a key with its `ttl` now left (whole seconds), refreshed as most recently used; an expired one is dropped. */
  get(key: string, now: number): DnsAnswer | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined) return undefined;
    this.entries.delete(key);
    if (hit.expires <= now) return undefined;
    this.entries.set(key, hit);
    return { ...hit.answer, ttl: Math.floor((hit.expires - now) / 1000) };
  }

  /** Keeps an answer for `ttlSeconds` (a day at most); a TTL of zero or less is not kept at all. */
  set(key: string, answer: DnsAnswer, ttlSeconds: number, now: number): void {
    if (!(ttlSeconds > 0)) return;
    this.setUntil(key, answer, now + Math.min(ttlSeconds, MAX_TTL_SECONDS) * 1000);
  }

  /** Keeps an answer until `expires` (epoch ms), as the shared cache handed it over. */
  setUntil(key: string, answer: DnsAnswer, expires: number): void {
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { answer: { status: answer.status, answers: answer.answers }, expires });
  }

  /** Forgets every answer (what a fresh isolate starts with). */
  clear(): void {
    this.entries.clear();
  }

  /** How many answers are held, for tests and status. */
  get size(): number {
    return this.entries.size;
  }
}

/** The second level of the DNS cache, shared by the isolates of a data centre: answers with their expiry time. */
export interface SharedDnsCache {
  get(key: string): Promise<{ answer: DnsAnswer; expires: number } | undefined>;
  put(key: string, answer: DnsAnswer, expires: number, now: number): Promise<void>;
}

const DNS_CACHE_HOST = "https://dns-cache.arbiter.internal";

/**
 * The Cache API as the shared DNS cache: one entry per resolver, record type
 * and name, its `max-age` the answer's TTL left. A failing cache is a miss,
 * never a failed lookup.
 */
export function cacheApiDnsCache(cache: Cache, resolverUrl: string): SharedDnsCache {
  const prefix = `${DNS_CACHE_HOST}/${encodeURIComponent(resolverUrl)}/`;
  const request = (key: string) => new Request(prefix + encodeURIComponent(key));
  return {
    async get(key) {
      try {
        const hit = await cache.match(request(key));
        if (hit === undefined) return undefined;
        const stored = (await hit.json()) as {
          status: DnsAnswer["status"];
          answers: string[];
          expires: number;
        };
        return { answer: { status: stored.status, answers: stored.answers }, expires: stored.expires };
      } catch {
        return undefined;
      }
    },
    async put(key, answer, expires, now) {
      const maxAge = Math.floor((expires - now) / 1000);
      if (maxAge < 1) return;
      const body = JSON.stringify({ status: answer.status, answers: answer.answers, expires });
      try {
        await cache.put(
          request(key),
          new Response(body, {
            headers: { "content-type": "application/json", "cache-control": `max-age=${maxAge}` },
          }),
        );
      } catch {
        // not kept: the next isolate asks the resolver
      }
    },
  };
}

/** What the resolver needs from the outside world; tests pass their own clock, fetch and log. */
export interface DohOptions {
  fetch?: typeof fetch;
  now?: () => number;
  /** Where the resolver-failure warnings go (one JSON object per line); console.warn by default. */
  warn?: (entry: Record<string, unknown>) => void;
  /** The cache shared with the other isolates (the Cache API in the Worker), asked after the isolate's own. */
  shared?: SharedDnsCache;
}

/** After the resolver could not be reached, lookups answer `error` at once for this long instead of asking again. */
export const UNREACHABLE_BACKOFF_MS = 10_000;
/** At most one resolver-failure warning per this interval; the failures in between are counted in the next one. */
export const WARN_INTERVAL_MS = 60_000;

const defaultWarn = (entry: Record<string, unknown>) => writeLog(entry, "warn");

/** One record of a DNS-over-HTTPS JSON answer (the Google / Cloudflare `application/dns-json` shape). */
interface DohRecord {
  type?: unknown;
  TTL?: unknown;
  data?: unknown;
}

/** The outcome of one query before caching: the answer and how long it may be kept. */
interface Resolved {
  answer: DnsAnswer;
  ttl: number;
}

/** A query the resolver did not answer: why, and whether it could not be reached at all. */
interface Failed {
  failed: string;
  unreachable: boolean;
}

const TIMEOUT: DnsAnswer = Object.freeze({ status: "timeout", answers: [] }) as DnsAnswer;
const ERROR: DnsAnswer = Object.freeze({ status: "error", answers: [] }) as DnsAnswer;

/**
 * Builds the DnsResolver the limits engine consults, on a DNS-over-HTTPS
 * resolver's JSON API, because a Worker has no system resolver (spec §16f).
 * Successful and negative answers are cached for their TTL; timeouts and
 * errors are not, so the next request tries again.
 */
export function dohResolver(url: string, cache: DnsCache, options: DohOptions = {}): DnsResolver {
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const clock = options.now ?? Date.now;
  const warn = options.warn ?? defaultWarn;
  const shared = options.shared;
  const separator = url.includes("?") ? "&" : "?";
  const resolver = hostOf(url);
  let downUntil = 0;
  let downReason = "";
  let lastWarn = -Infinity;
  let suppressed = 0;
  /** One structured line per resolver failure, at most one per WARN_INTERVAL_MS: no stack, no request data. */
  const failure = (error: string) => {
    const now = clock();
    if (now - lastWarn < WARN_INTERVAL_MS) {
      suppressed++;
      return;
    }
    warn({ ts: new Date(now).toISOString(), event: "dns_resolver_failed", resolver, error, suppressed });
    lastWarn = now;
    suppressed = 0;
  };
  return {
    async lookup(name, type, timeoutMs) {
      const key = `${type} ${name.toLowerCase().replace(/\.$/, "")}`;
      const cached = cache.get(key, clock());
      if (cached !== undefined) return cached;
      if (shared !== undefined) {
        const hit = await shared.get(key);
        if (hit !== undefined && hit.expires > clock()) {
          cache.setUntil(key, hit.answer, hit.expires);
          return { ...hit.answer, ttl: Math.floor((hit.expires - clock()) / 1000) };
        }
      }
      if (!(timeoutMs > 0)) return { ...TIMEOUT, reason: "the identifier's timeout is zero" };
      if (clock() < downUntil)
        return {
          ...ERROR,
          reason: `${downReason} (not asked again until ${new Date(downUntil).toISOString()})`,
        };
      const query = `${url}${separator}name=${encodeURIComponent(name)}&type=${type}`;
      const resolved = await withTimeout(timeoutMs, (signal) => query1(doFetch, query, type, signal));
      if (resolved === undefined) {
        const reason = `${resolver} gave no answer within ${timeoutMs} ms`;
        failure(reason);
        return { ...TIMEOUT, reason };
      }
      if ("failed" in resolved) {
        failure(resolved.failed);
        if (resolved.unreachable) {
          downUntil = clock() + UNREACHABLE_BACKOFF_MS;
          downReason = resolved.failed;
        }
        return { ...ERROR, reason: resolved.failed };
      }
      const { answer } = resolved;
      if (answer.status !== "ok" && answer.status !== "nxdomain") return answer;
      const ttl = Math.min(resolved.ttl, MAX_TTL_SECONDS);
      const now = clock();
      cache.set(key, answer, ttl, now);
      if (shared !== undefined && ttl >= 1) await shared.put(key, answer, now + ttl * 1000, now);
      return { ...answer, ttl };
    },
  };
}

/** The host part of the resolver's URL, for log lines (never the query, which names the requester). */
function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "(invalid DOH_URL)";
  }
}

/** Runs `work` with an abort signal, giving up (undefined) when `ms` pass first, body read included. */
async function withTimeout<T>(ms: number, work: (signal: AbortSignal) => Promise<T>): Promise<T | undefined> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve(undefined);
    }, ms);
  });
  try {
    return await Promise.race([work(controller.signal), expired]);
  } finally {
    clearTimeout(timer);
  }
}

/** The largest DNS JSON reply read (a real one is a few hundred bytes); more is an error, the rest never read. */
const MAX_REPLY_BYTES = 64 * 1024;

/** Sends one query and maps the reply: HTTP or JSON trouble is an error, DNS status 3 NXDOMAIN. */
async function query1(
  doFetch: typeof fetch,
  query: string,
  type: keyof typeof TYPE_NUMBER,
  signal: AbortSignal,
): Promise<Resolved | Failed | undefined> {
  const host = hostOf(query);
  let response: Response;
  try {
    response = await doFetch(query, { headers: { accept: "application/dns-json" }, signal });
  } catch (e) {
    if (signal.aborted) return undefined;
    // workerd reports a failed connection (no network, no DNS for the resolver's host) as an opaque internal error.
    const message = e instanceof Error ? e.message : String(e);
    return {
      failed: `${host} unreachable: ${/^internal error/.test(message) ? "the connection failed (no network?)" : message}`,
      unreachable: true,
    };
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    return { failed: `${host} answered HTTP ${response.status}`, unreachable: false };
  }
  let body: unknown;
  try {
    const text = await readCappedText(response.body, MAX_REPLY_BYTES);
    if (text === null)
      return { failed: `${host} answered more than ${MAX_REPLY_BYTES} bytes`, unreachable: false };
    body = JSON.parse(text);
  } catch {
    return signal.aborted
      ? undefined
      : { failed: `${host} answered something other than DNS JSON`, unreachable: false };
  }
  const resolved = interpret(body, TYPE_NUMBER[type]);
  if (resolved.answer.status === "error") {
    const status = (body as { Status?: unknown } | null)?.Status;
    return {
      answer: {
        ...ERROR,
        reason:
          typeof status === "number"
            ? `${host} answered DNS status ${status}`
            : `${host} answered something other than DNS JSON`,
      },
      ttl: 0,
    };
  }
  return resolved;
}

/** Turns a parsed DoH JSON reply into an answer and its cache lifetime. */
export function interpret(body: unknown, typeNumber: number): Resolved {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return { answer: ERROR, ttl: 0 };
  const reply = body as { Status?: unknown; Answer?: unknown; Authority?: unknown };
  if (reply.Status === 3)
    return { answer: { status: "nxdomain", answers: [] }, ttl: negativeTtl(reply.Authority) };
  if (reply.Status !== 0) return { answer: ERROR, ttl: 0 };
  const answers: string[] = [];
  let ttl = Infinity;
  for (const record of records(reply.Answer)) {
    if (record.type !== typeNumber || typeof record.data !== "string") continue;
    answers.push(record.data);
    ttl = Math.min(ttl, ttlOf(record));
  }
  if (answers.length === 0) ttl = negativeTtl(reply.Authority);
  return { answer: { status: "ok", answers }, ttl };
}

function records(value: unknown): DohRecord[] {
  return Array.isArray(value) ? value.filter((r): r is DohRecord => typeof r === "object" && r !== null) : [];
}

function ttlOf(record: DohRecord): number {
  return typeof record.TTL === "number" && Number.isFinite(record.TTL) && record.TTL >= 0 ? record.TTL : 0;
}

/** RFC 2308: a negative answer lives as long as the SOA record that came with it. */
function negativeTtl(authority: unknown): number {
  for (const record of records(authority)) if (record.type === SOA) return ttlOf(record);
  return DEFAULT_NEGATIVE_TTL_SECONDS;
}

/** The isolate's DNS answers (exported so that a test can start from what a fresh isolate has). */
export const isolateDnsCache = new DnsCache();
let isolateResolver: { url: string; resolver: DnsResolver } | undefined;

/**
 * The isolate's resolver for the configured DOH_URL: answers cached in the
 * isolate, then in the Cache API (shared by the data centre's isolates), each
 * for its TTL; undefined when no resolver is configured, which the engine
 * treats as every lookup timing out.
 */
export function resolverFor(dohUrl: string | undefined): DnsResolver | undefined {
  const url = dohUrl?.trim();
  if (!url) return undefined;
  if (isolateResolver?.url !== url) {
    const cache =
      typeof caches === "undefined" ? undefined : (caches as unknown as { default: Cache }).default;
    const shared = cache === undefined ? undefined : cacheApiDnsCache(cache, url);
    isolateResolver = { url, resolver: dohResolver(url, isolateDnsCache, { shared }) };
  }
  return isolateResolver.resolver;
}
