import type { LoadedBundle } from "../bundle/index.js";
import { cidrListStatus, type LimitsPolicy } from "../state/cidr-lists.js";
import type { Env } from "../env.js";

/**
 * Engine-specific additions to `/v1/status`: each downloaded CIDR list of the
 * limits policy with its last success, last failure and entry count.
 */
export async function statusExtras(env: Env, bundle: LoadedBundle): Promise<Record<string, unknown>> {
  const limits = bundle.policy<LimitsPolicy>("limits");
  return { cidr_lists: limits ? await cidrListStatus(env, limits) : [] };
}
