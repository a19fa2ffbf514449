import { compileBundle, ENGINES } from "../../bundle/index.js";
import type { EngineName } from "../../engines/common/engine.js";
import { ApiError, errorDetail } from "../errors.js";

/** A playground policy, compiled and loaded in memory: never written to KV, never active. */
export interface PlaygroundPolicy {
  readonly policy: unknown;
  /** The revision a bundle holding only this policy would have (as `arbiter eval` reports it). */
  readonly revision: string;
}

/** How many compiled playground policies an isolate keeps, so deciding many requests under one edit compiles it once. */
const KEEP = 4;

const recent = new Map<string, PlaygroundPolicy>();

/**
 * Compiles and loads one engine's policy text the way a publish would, but only
 * in this isolate's memory; an invalid policy is the 422 `policy_invalid` whose
 * details carry each error's `at`, exactly as `POST /v1/policies/{engine}/validate` answers.
 */
export async function compilePlaygroundPolicy(engine: EngineName, source: string): Promise<PlaygroundPolicy> {
  const key = `${engine}\u0000${source}`;
  const kept = recent.get(key);
  if (kept !== undefined) {
    recent.delete(key);
    recent.set(key, kept);
    return kept;
  }
  const bundle = await compileBundle({ [engine]: source }, new Date(0).toISOString());
  if (!bundle.ok) {
    const details = bundle.error.map((e) => errorDetail(e));
    const first = bundle.error[0];
    throw new ApiError(
      "policy_invalid",
      `the \`${engine}\` policy is invalid: ${first.message}${first.at ? ` (at ${first.at})` : ""}`,
      details,
    );
  }
  const compiled = {
    policy: ENGINES[engine].load(bundle.value.engines[engine]?.compiled),
    revision: bundle.value.revision,
  };
  recent.set(key, compiled);
  if (recent.size > KEEP) recent.delete(recent.keys().next().value as string);
  return compiled;
}
