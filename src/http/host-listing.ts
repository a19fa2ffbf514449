import type { Env } from "../env.js";
import { listingAnswer, type HostListing } from "../state/host-pool-core.js";
import { registeredPools } from "../state/pool-registry.js";
import { ApiError } from "./errors.js";

/** The most hosts one page of `GET /v1/hosts` lists, and the default. */
export const HOST_PAGE_MAX = 500;
export const HOST_PAGE_DEFAULT = 100;
/** The most pools (network numbers) one page of `GET /v1/hosts` asks for hosts, and reads from the registry at once. */
export const POOLS_PER_PAGE = 20;
/** The most registry pages one request reads (a page can come back empty with a cursor on). */
const REGISTRY_READS_MAX = 3;

/**
 * Where the next page starts: the registry page (`k`, the KV cursor that
 * lists it; null for the first) and, within it, the network `n` from the host
 * after registration number `a`; without `n`, at the start of that registry page.
 */
interface Position {
  k: string | null;
  n?: number;
  a?: number;
}

/** What one page of a pool's listing takes: the pool, the position in it and room left; answers hosts and the next position in the pool. */
export type PoolPage = (
  net: number,
  after: number,
  limit: number,
) => Promise<{ hosts: HostListing[]; next: number | null }>;

/** One listed host, naming its network, as the API sends it. */
export type ListedHost = ReturnType<typeof listingAnswer>["hosts"][number];

const encode = (p: Position): string =>
  btoa(JSON.stringify(p)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

const isCount = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

/** A cursor back into its position; a 400 naming `cursor` when it is not one this listing gave. */
function decode(text: string): Position {
  let value: unknown;
  try {
    value = JSON.parse(atob(text.replace(/-/g, "+").replace(/_/g, "/")));
  } catch {
    value = undefined;
  }
  const p = value as Partial<Position> | undefined;
  const valid =
    typeof p === "object" &&
    p !== null &&
    !Array.isArray(p) &&
    (p.k === null || typeof p.k === "string") &&
    (p.n === undefined || (isCount(p.n) && isCount(p.a))) &&
    Object.keys(p).every((key) => key === "k" || key === "n" || key === "a");
  if (!valid || text.length > 4096)
    throw new ApiError(
      "invalid_request",
      `\`cursor\`: \`${text.slice(0, 64)}\` is not a cursor of this listing (pass the \`cursor\` of the previous page)`,
    );
  return p as Position;
}

/**
 * One page of one network's hosts (`GET /v1/hosts?net=N`): at most `limit`,
 * in registration order, from the position `cursor` names.
 */
export async function netPage(net: number, limit: number, cursor: string | undefined, page: PoolPage) {
  const from = cursor === undefined ? { k: null, n: net, a: 0 } : decode(cursor);
  if (from.n !== net)
    throw new ApiError(
      "invalid_request",
      `\`cursor\`: it continues a listing of another network than \`net\` ${net}`,
    );
  const { hosts, next } = await page(net, from.a ?? 0, limit);
  return {
    ...listingAnswer(net, hosts),
    cursor: next === null ? null : encode({ k: null, n: net, a: next }),
  };
}

/**
 * One page of every network's hosts (`GET /v1/hosts`): the networks in the
 * pool registry's (KV key) order, each network's hosts in registration order.
 * Bounded per request: at most `limit` hosts, POOLS_PER_PAGE pools asked and
 * REGISTRY_READS_MAX registry pages read; the cursor resumes exactly where the
 * page stopped, inside a network or between two.
 */
export async function allNetsPage(env: Env, limit: number, cursor: string | undefined, page: PoolPage) {
  const from = cursor === undefined ? { k: null } : decode(cursor);
  const hosts: ListedHost[] = [];
  let kv = from.k;
  let startNet = from.n;
  let after = from.a ?? 0;
  let asked = 0;
  for (let reads = 0; ; reads++) {
    const registry = await registeredPools(env, POOLS_PER_PAGE, kv ?? undefined);
    let nets = registry.nets;
    if (startNet !== undefined) {
      // resume at that network, or at the first after it in key order should it be gone
      const key = String(startNet);
      const at = nets.findIndex((n) => String(n) >= key);
      if (at < 0 || nets[at] !== startNet) after = 0;
      nets = at < 0 ? [] : nets.slice(at);
      startNet = undefined;
    }
    for (const net of nets) {
      if (asked === POOLS_PER_PAGE || hosts.length >= limit)
        return { hosts, cursor: encode({ k: kv, n: net, a: after }) };
      asked++;
      const part = await page(net, after, limit - hosts.length);
      hosts.push(...listingAnswer(net, part.hosts).hosts);
      if (part.next !== null) return { hosts, cursor: encode({ k: kv, n: net, a: part.next }) };
      after = 0;
    }
    if (registry.cursor === null) return { hosts, cursor: null };
    kv = registry.cursor;
    if (asked === POOLS_PER_PAGE || hosts.length >= limit || reads + 1 === REGISTRY_READS_MAX)
      return { hosts, cursor: encode({ k: kv }) };
  }
}
