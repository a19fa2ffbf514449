/**
 * The semantic diff's findings beside a candidate's shadow report: when a
 * candidate is staged, each staged engine whose source differs from the active
 * one (and that the diff covers) is diffed against the active source once, and
 * the result is stored with the candidate; the report then marks each of the
 * diff's pairs with whether live traffic has shown it yet ("would differ on
 * these requests, none seen yet"). Pure: the policy coordinator computes, the
 * report route reads.
 */
import type { EngineName } from "../../engines/common/engine.js";
import { DIFF_ENGINES, diffPolicies, type DiffPair, type DiffReport } from "../diff.js";
import type { Bundle } from "../types.js";
import type { ComparisonReport } from "./report.js";

/** One staged engine's diff against the active source it was computed with. */
export interface StoredDiff {
  engine: EngineName;
  active_sha256: string;
  candidate_sha256: string;
  report: DiffReport;
}

/** A diff pair as the candidate report shows it: whether live comparisons have fallen in it, and how many. */
export interface FindingPair extends DiffPair {
  seen: boolean;
  live_count: number;
}

/** One engine's diff findings in the candidate report. */
export interface EngineFindings extends Omit<DiffReport, "pairs" | "engine"> {
  active_sha256: string;
  candidate_sha256: string;
  /** The active source changed since staging: this diff is against the one active then (stage again to refresh). */
  stale: boolean;
  pairs: FindingPair[];
  /** How many of the pairs no live comparison has shown yet. */
  unseen: number;
}

/** The candidate report's `diff` field. */
export interface DiffFindings {
  engines: Partial<Record<EngineName, EngineFindings>>;
  /** Staged engines whose source differs from the active one that have no diff (the diff does not cover them). */
  not_covered: EngineName[];
}

/**
 * The diffs to store with a newly staged candidate: each staged engine the
 * diff covers whose source differs from the base's, diffed against the base's
 * source; a stored diff of the same two sources is kept rather than computed again.
 */
export function candidateDiffs(
  base: Bundle,
  candidate: Bundle,
  staged: readonly EngineName[],
  kept: readonly StoredDiff[],
  decisionBudget: number,
): StoredDiff[] {
  const out: StoredDiff[] = [];
  for (const engine of staged) {
    const a = base.engines[engine];
    const b = candidate.engines[engine];
    if (!DIFF_ENGINES.includes(engine) || a === undefined || b === undefined) continue;
    if (a.source_sha256 === b.source_sha256) continue;
    const same = kept.find(
      (d) =>
        d.engine === engine && d.active_sha256 === a.source_sha256 && d.candidate_sha256 === b.source_sha256,
    );
    if (same !== undefined) {
      out.push(same);
      continue;
    }
    const r = diffPolicies(engine, a.source, b.source, { decisionBudget });
    if (r.ok)
      out.push({
        engine,
        active_sha256: a.source_sha256,
        candidate_sha256: b.source_sha256,
        report: r.value,
      });
  }
  return out;
}

/**
 * The `diff` field of the candidate report: the stored diffs of the staged
 * engines whose candidate source differs from the active one now, each pair
 * marked `seen` when the live report has counted it (by its name: a pair the
 * live report counts under `(other pairs)` is not matched).
 */
export function diffFindings(
  staged: readonly EngineName[],
  candidateSha: Partial<Record<EngineName, { source_sha256: string }>>,
  active: Bundle,
  stored: readonly StoredDiff[],
  live: ComparisonReport,
): DiffFindings {
  const out: DiffFindings = { engines: {}, not_covered: [] };
  for (const engine of staged) {
    const sha = candidateSha[engine]?.source_sha256;
    const activeSha = active.engines[engine]?.source_sha256;
    if (sha === undefined || sha === activeSha) continue;
    const d = stored.find((s) => s.engine === engine && s.candidate_sha256 === sha);
    if (d === undefined) {
      out.not_covered.push(engine);
      continue;
    }
    const livePairs = new Map((live.engines[engine]?.pairs ?? []).map((p) => [p.pair, p.count]));
    const pairs = d.report.pairs.map((p) => {
      const count = livePairs.get(p.pair) ?? 0;
      return { ...p, seen: count > 0, live_count: count };
    });
    const { engine: _engine, pairs: _pairs, ...rest } = d.report;
    out.engines[engine] = {
      ...rest,
      active_sha256: d.active_sha256,
      candidate_sha256: d.candidate_sha256,
      stale: d.active_sha256 !== activeSha,
      pairs,
      unseen: pairs.filter((p) => !p.seen).length,
    };
  }
  return out;
}
