import {
  captureMode,
  engineOfKind,
  maskRequest,
  maskRulesFor,
  maskView,
  pairOf,
  Tally,
  type DecisionKind,
  type Example,
  type View,
} from "../bundle/compare/index.js";
import type { EngineName } from "../engines/common/engine.js";
import type { Env } from "../env.js";
import { coordinatorOf } from "./coordinator-stub.js";
import { isolateMetrics } from "./isolate-metrics.js";
import type { LiveCandidate } from "./policy-store.js";
import { writeLog } from "../log-line.js";

/** How long an isolate gathers shadow comparisons before sending them to the coordinator in one call. */
export const SHADOW_FLUSH_MS = 1000;

interface Batch {
  tally: Tally;
  sent: Promise<void>;
}

/**
 * Gathers an isolate's shadow comparisons and sends them to the policy
 * coordinator at most once per SHADOW_FLUSH_MS per candidate, so the report's
 * single writer sees one call per isolate per second rather than one per
 * decision. Every comparison's caller waits (ctx.waitUntil) for the send that
 * carries it, so nothing counted is lost when the isolate goes away.
 */
export class ShadowBatcher {
  private readonly batches = new Map<string, Batch>();
  /** Pairs whose examples the coordinator already keeps in full, per candidate: no use building more. */
  private full: { candidate: string; pairs: Set<string> } = { candidate: "", pairs: new Set() };

  /** Whether an example of this pair would still be kept. */
  wantsExample(candidate: string, engine: EngineName, pair: string): boolean {
    if (this.full.candidate === candidate && this.full.pairs.has(`${engine}\u0000${pair}`)) return false;
    return this.batches.get(candidate)?.tally.wantsExample(engine, pair) ?? true;
  }

  /** Counts one comparison; resolves once the batch holding it has reached the coordinator (or failed to). */
  add(
    env: Env,
    candidate: string,
    engine: EngineName,
    pair: string | null,
    example?: Example,
  ): Promise<void> {
    let batch = this.batches.get(candidate);
    if (batch === undefined) {
      const tally = new Tally();
      const sent = new Promise<void>((resolve) => setTimeout(resolve, SHADOW_FLUSH_MS)).then(() =>
        this.send(env, candidate, tally),
      );
      batch = { tally, sent };
      this.batches.set(candidate, batch);
    }
    batch.tally.add(engine, pair, example === undefined ? [] : [example]);
    return batch.sent;
  }

  private async send(env: Env, candidate: string, tally: Tally): Promise<void> {
    if (this.batches.get(candidate)?.tally === tally) this.batches.delete(candidate);
    try {
      const answer = await coordinatorOf(env).recordShadow(candidate, JSON.stringify(tally.toBatch()));
      if (answer.accepted) this.full = { candidate, pairs: new Set(answer.full) };
    } catch (e) {
      writeLog({ ts: new Date().toISOString(), event: "shadow_report_failed", error: String(e) }, "error");
    }
  }
}

/** The isolate's batcher. */
export const shadowBatcher = new ShadowBatcher();

/**
 * Counts one comparison of the candidate with the active policy in the
 * isolate's batch: the outcome pair is taken from the views as masked (a
 * placement queue named after a user shows the pseudonym), and while the
 * report still keeps examples of that pair, the masked request goes with it.
 */
export async function recordComparison(
  env: Env,
  candidate: LiveCandidate,
  kind: DecisionKind,
  request: unknown,
  active: View,
  shadow: View,
): Promise<void> {
  const engine = engineOfKind(kind);
  const masked = captureMode(env.DECISION_LOG_REQUESTS) !== "full";
  const a = masked ? await maskView(kind, request, active) : active;
  const b = masked ? await maskView(kind, request, shadow) : shadow;
  const pair = pairOf(a, b);
  isolateMetrics.shadowComparison(engine, pair === null);
  const id = candidate.record.id;
  let example: Example | undefined;
  if (pair !== null && shadowBatcher.wantsExample(id, engine, pair)) {
    const shown = masked
      ? await maskRequest(kind, request, maskRulesFor(env.DECISION_LOG_MASK_ATTRIBUTES))
      : request;
    example = { at: new Date().toISOString(), request: shown, active: a, candidate: b };
  }
  await shadowBatcher.add(env, id, engine, pair, example);
}
