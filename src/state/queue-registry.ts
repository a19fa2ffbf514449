import type { Env } from "../env.js";

/** The KV prefix of the queue registry: one empty value per queue name, written when the queue first stores a job or filter. */
export const QUEUE_REGISTRY_PREFIX = "queue:";

/** At most this many queues are listed (and their objects asked for counts) per page of `GET /v1/queues`. */
export const QUEUE_PAGE_MAX = 100;

/** A page of the names registered under a KV prefix, in key order, and the KV cursor of the next page (null on the last). */
export async function registeredNames(
  env: Env,
  prefix: string,
  limit: number,
  cursor: string | undefined,
): Promise<{ names: string[]; cursor: string | null }> {
  const page = await env.POLICIES.list({ prefix, limit, ...(cursor === undefined ? {} : { cursor }) });
  return {
    names: page.keys.map((k) => k.name.slice(prefix.length)),
    cursor: page.list_complete ? null : page.cursor,
  };
}

/** A page of registered queue names in name order, and the KV cursor of the next page (null on the last). */
export function registeredQueues(
  env: Env,
  limit: number,
  cursor: string | undefined,
): Promise<{ names: string[]; cursor: string | null }> {
  return registeredNames(env, QUEUE_REGISTRY_PREFIX, limit, cursor);
}
