import type { Budget } from "../common/budget.js";
import type { CidrSet } from "../common/cidr.js";

export type { CidrSet } from "../common/cidr.js";

/** One DNS answer: names for PTR, addresses for A/AAAA, texts for TXT, in the order the resolver gave them. */
export interface DnsAnswer {
  status: "ok" | "nxdomain" | "timeout" | "error";
  answers: string[];
  /** Why a lookup failed (`timeout` or `error`), for the explain trace. */
  reason?: string;
  /**
   * Seconds this answer stays valid from now (its TTL, less the time it was
   * cached), for answers the resolver keeps; absent for a failed lookup. A
   * verdict that used an answer is cached no longer than that, and not at all
   * after a lookup without one.
   */
  ttl?: number;
}

/** DNS as the engine sees it; the service implements it with DNS-over-HTTPS. */
export interface DnsResolver {
  lookup(name: string, type: "PTR" | "A" | "AAAA" | "TXT", timeoutMs: number): Promise<DnsAnswer>;
}

/**
 * The outcome of one GET as pScheduler's `url_get(..., throw=False)` returns
 * it: the HTTP status and the body text, or, when the transfer itself failed
 * (no connection, timeout, bad URL), status 400 and the error's text.
 */
export interface FetchAnswer {
  status: number;
  text: string;
}

/** One GET for the url-fetch limit: the full URL (query included), headers in order, a timeout. */
export interface FetchRequest {
  url: string;
  headers: ReadonlyArray<readonly [string, string]>;
  timeoutMs: number;
  followRedirects: boolean;
}

/** HTTP GET as the engine sees it; the service implements it with fetch(), tests with a loopback server. */
export interface UrlFetcher {
  get(request: FetchRequest): Promise<FetchAnswer>;
}

/** What a decision may consult besides the request and the policy. */
export interface LimitsContext {
  now: number; // epoch ms
  explain: boolean;
  dns?: DnsResolver; // absent: every lookup behaves as a timeout
  cidrList(source: string): CidrSet | undefined; // the stored, parsed list of an ip-cidr-list-url source; undefined = never fetched
  localAddresses: readonly string[]; // LOCAL_ADDRESSES (addresses and CIDRs)
  budget?: Budget; // the decision's work budget (absent: whatever budget is current)
  fetcher?: UrlFetcher; // absent: every url-fetch fails as an unreachable server would
  fetchBudget?: number; // URL fetches allowed per decision (default DEFAULT_FETCH_BUDGET)
}

/** URL fetches one decision may make when the context does not say. */
export const DEFAULT_FETCH_BUDGET = 3;
