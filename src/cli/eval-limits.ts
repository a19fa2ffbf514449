import type { CidrSet, LimitsContext } from "../engines/limits/context.js";
import { decideLimits } from "../engines/limits/index.js";
import { DnsCache, dohResolver } from "../http/dns.js";
import { httpFetcher } from "../http/url-fetch.js";
import { numberVar } from "../env.js";
import { DEFAULT_FETCH_BUDGET } from "../engines/limits/context.js";
import { LimitsRequest, toEngineRequest } from "../http/schemas/limits.js";
import type { LimitsPolicy } from "../state/cidr-lists.js";
import type { PolicyEvaluator } from "./evaluator.js";

const neverFetched = (): CidrSet | undefined => undefined;
const cliDnsCache = new DnsCache();
const cliFetcher = httpFetcher();

/** Splits a comma-separated address list as the Worker splits LOCAL_ADDRESSES. */
function addressList(text: string | undefined): string[] {
  return (text ?? "")
    .split(",")
    .map((a) => a.trim())
    .filter((a) => a.length > 0);
}

/** What a limits decision outside the Worker may consult: a resolver, the local addresses, the url-fetch budget. */
export interface LimitsSettings {
  doh?: string;
  localAddresses: string[];
  fetchBudget: number;
}

/** The settings `arbiter eval limits` reads from its environment, on each decision. */
function settingsFromEnv(): LimitsSettings {
  return {
    doh: process.env.ARBITER_DOH_URL?.trim() || undefined,
    localAddresses: addressList(process.env.ARBITER_LOCAL_ADDRESSES),
    fetchBudget: numberVar(process.env.ARBITER_URL_FETCH_BUDGET, DEFAULT_FETCH_BUDGET),
  };
}

/** A limits evaluator deciding under the settings `settings()` gives at each decision. */
export function limitsEvaluatorWith(
  settings: () => LimitsSettings,
): PolicyEvaluator<typeof LimitsRequest, LimitsPolicy, object> {
  return {
    engine: "limits",
    schema: LimitsRequest,
    decide(policy, request, { now, explain, budget }) {
      const s = settings();
      const context: LimitsContext = {
        now,
        explain,
        dns: s.doh ? dohResolver(s.doh, cliDnsCache) : undefined,
        cidrList: neverFetched,
        localAddresses: s.localAddresses,
        budget,
        fetcher: cliFetcher,
        fetchBudget: s.fetchBudget,
      };
      return decideLimits(policy, toEngineRequest(request, request.requester), context);
    },
  };
}

/**
 * `arbiter eval limits`: the same request and verdict JSON as POST
 * /v1/limits/decide, offline. The CLI has no connecting address (a request
 * without `requester` has none) and no downloaded lists (every
 * ip-cidr-list-url identifier answers its fail-state). DNS identifiers behave
 * as timeouts unless ARBITER_DOH_URL names a DNS-over-HTTPS JSON resolver;
 * `localif` and `local-subnet` use ARBITER_LOCAL_ADDRESSES (comma-separated
 * addresses and CIDRs); url-fetch limits fetch for real, at most
 * ARBITER_URL_FETCH_BUDGET (default 3) per decision.
 */
export const limitsEvaluator = limitsEvaluatorWith(settingsFromEnv);
