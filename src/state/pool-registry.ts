import type { Env } from "../env.js";
import { registeredNames } from "./queue-registry.js";

/** The KV prefix of the host pool registry: one empty value per network number, written when the pool first takes a host's report. */
export const POOL_REGISTRY_PREFIX = "pool:";

/** A page of registered pools' network numbers in key order, and the KV cursor of the next page (null on the last). */
export async function registeredPools(
  env: Env,
  limit: number,
  cursor: string | undefined,
): Promise<{ nets: number[]; cursor: string | null }> {
  const page = await registeredNames(env, POOL_REGISTRY_PREFIX, limit, cursor);
  return { nets: page.names.map(Number).filter((n) => Number.isSafeInteger(n)), cursor: page.cursor };
}
