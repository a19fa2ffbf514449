import type { LoadedBundle } from "../bundle/index.js";
import type { Env } from "./env.js";

/**
 * Engine-specific additions to `/v1/status` (downloaded CIDR lists, …), kept
 * out of the system route so that route does not import every engine's state.
 */
export async function statusExtras(_env: Env, _bundle: LoadedBundle): Promise<Record<string, unknown>> {
  return {};
}
