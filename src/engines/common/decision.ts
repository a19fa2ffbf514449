/**
 * What an engine's decide function returns: the engine-specific verdict body,
 * whether it depends only on the request and the policy revision (and so may
 * be cached), a one-word outcome for the decision log, and the trace, which
 * engines build only when `explain` is asked for.
 */
export interface Decision<V extends object> {
  readonly verdict: V;
  readonly cacheable: boolean;
  /** For a cacheable verdict that used answers which expire (DNS TTLs): the longest it may be kept, in seconds; absent, the route's cache lifetime. */
  readonly maxAgeSeconds?: number;
  readonly outcome: string;
  readonly trace?: unknown;
}

/**
 * Where a verdict may keep (as a property that is not enumerable, so spreading
 * and JSON.stringify do not see it) a function writing its own JSON text: the
 * text JSON.stringify gives for it, written without first building the objects
 * and strings it would read (the match verdict's machine lines and log). Called
 * with `members` true, it writes that text without its outer braces (what an
 * answer puts after its envelope, so the whole text is not cut and copied again).
 */
export const VERDICT_JSON: unique symbol = Symbol("verdictJson");

/** The function a verdict keeps under VERDICT_JSON, writing its JSON members (its text without the outer braces), or undefined. */
export function verdictMembersWriter(verdict: object): (() => string) | undefined {
  const write = (verdict as { [VERDICT_JSON]?: (members?: boolean) => string })[VERDICT_JSON];
  return write === undefined ? undefined : () => write.call(verdict, true);
}

/** The envelope fields every verdict carries in front of the engine's own. */
export interface VerdictEnvelope {
  readonly decision_id: string;
  readonly revision: string;
  readonly cacheable: boolean;
}

/** Puts the envelope in front of an engine verdict, as the API and the CLI both print it. */
export function shapeVerdict<V extends object>(
  decision: Decision<V>,
  decisionId: string,
  revision: string,
  explain: boolean,
): VerdictEnvelope & V & { trace?: unknown } {
  const out = { decision_id: decisionId, revision, cacheable: decision.cacheable, ...decision.verdict };
  return explain && decision.trace !== undefined ? { ...out, trace: decision.trace } : out;
}
