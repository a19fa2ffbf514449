import type { Env } from "../env.js";

/** The KV prefix of the host pool registry: one empty value per network number, written when the pool first takes a host's report. */
export const POOL_REGISTRY_PREFIX = "pool:";

/** A page of registered pools' network numbers in key order, and the KV cursor of the next page (null on the last). */
export async function registeredPools(
  env: Env,
  limit: number,
  cursor: string | undefined,
): Promise<{ nets: number[]; cursor: string | null }> {
  const page = await env.POLICIES.list({
    prefix: POOL_REGISTRY_PREFIX,
    limit,
    ...(cursor === undefined ? {} : { cursor }),
  });
  return {
    nets: page.keys
      .map((k) => Number(k.name.slice(POOL_REGISTRY_PREFIX.length)))
      .filter((n) => Number.isSafeInteger(n)),
    cursor: page.list_complete ? null : page.cursor,
  };
}
