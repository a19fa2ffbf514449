import type { DnsAnswer, DnsResolver } from "../engines/limits/context.js";
import { writeLog } from "../log-line.js";

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

/**
 * Answers kept for their record TTL, per isolate: a requester seen twice within
 * the TTL costs one DNS-over-HTTPS round trip, as a caching stub resolver would.
 * Bounded; when full, the oldest entry goes first.
 */
export class DnsCache {
  private readonly entries = new Map<string, CacheEntry>();

  constructor(private readonly maxEntries = 10_000) {}

  /** The unexpired answer for a key, dropping it when its TTL has run out. */
  get(key: string, now: number): DnsAnswer | undefined {
    const hit = this.entries.get(key);
    if (hit === undefined) return undefined;
    if (hit.expires <= now) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.answer;
  }

  /** Keeps an answer for `ttlSeconds`; a TTL of zero or less is not kept at all. */
  set(key: string, answer: DnsAnswer, ttlSeconds: number, now: number): void {
    if (!(ttlSeconds > 0)) return;
    this.entries.delete(key);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(key, { answer, expires: now + Math.min(ttlSeconds, MAX_TTL_SECONDS) * 1000 });
  }

  /** How many answers are held, for tests and status. */
  get size(): number {
    return this.entries.size;
  }
}

/** What the resolver needs from the outside world; tests pass their own clock, fetch and log. */
export interface DohOptions {
  fetch?: typeof fetch;
  now?: () => number;
  /** Where the resolver-failure warnings go (one JSON object per line); console.warn by default. */
  warn?: (entry: Record<string, unknown>) => void;
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
      if (!(timeoutMs > 0)) return { ...TIMEOUT, reason: "the identifier's timeout is zero" };
      if (clock() < downUntil) return { ...ERROR, reason: `${downReason} (not asked again until ${new Date(downUntil).toISOString()})` };
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
      cache.set(key, resolved.answer, resolved.ttl, clock());
      return resolved.answer;
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
    return { failed: `${host} unreachable: ${/^internal error/.test(message) ? "the connection failed (no network?)" : message}`, unreachable: true };
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    return { failed: `${host} answered HTTP ${response.status}`, unreachable: false };
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    return signal.aborted ? undefined : { failed: `${host} answered something other than DNS JSON`, unreachable: false };
  }
  const resolved = interpret(body, TYPE_NUMBER[type]);
  if (resolved.answer.status === "error") {
    const status = (body as { Status?: unknown } | null)?.Status;
    return { answer: { ...ERROR, reason: typeof status === "number" ? `${host} answered DNS status ${status}` : `${host} answered something other than DNS JSON` }, ttl: 0 };
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

const isolateCache = new DnsCache();
let isolateResolver: { url: string; resolver: DnsResolver } | undefined;

/**
 * The isolate's resolver for the configured DOH_URL, sharing one answer cache
 * across requests; undefined when no resolver is configured, which the engine
 * treats as every lookup timing out.
 */
export function resolverFor(dohUrl: string | undefined): DnsResolver | undefined {
  const url = dohUrl?.trim();
  if (!url) return undefined;
  if (isolateResolver?.url !== url) isolateResolver = { url, resolver: dohResolver(url, isolateCache) };
  return isolateResolver.resolver;
}
