import type { Budget } from "../common/budget.js";
import type { CidrSet } from "../common/cidr.js";

export type { CidrSet } from "../common/cidr.js";

/** One DNS answer: names for PTR, addresses for A/AAAA, in the order the resolver gave them. */
export interface DnsAnswer {
  status: "ok" | "nxdomain" | "timeout" | "error";
  answers: string[];
}

/** DNS as the engine sees it; the service implements it with DNS-over-HTTPS. */
export interface DnsResolver {
  lookup(name: string, type: "PTR" | "A" | "AAAA", timeoutMs: number): Promise<DnsAnswer>;
}

/** What a decision may consult besides the request and the policy. */
export interface LimitsContext {
  now: number; // epoch ms
  explain: boolean;
  dns?: DnsResolver; // absent: every lookup behaves as a timeout
  cidrList(source: string): CidrSet | undefined; // the stored, parsed list of an ip-cidr-list-url source; undefined = never fetched
  localAddresses: readonly string[]; // LOCAL_ADDRESSES (addresses and CIDRs)
  budget?: Budget; // the decision's work budget (absent: whatever budget is current)
}
