import type { DiffFindings } from "../bundle/compare/diff-findings.js";
import { table } from "./api-client.js";

/**
 * The candidate report's diff findings as `arbiter candidate report` prints
 * them: per engine the diff's result (and whether it is stale), then each pair
 * with the requests the diff found for it and how many live comparisons fell
 * in it (`none yet`: would differ on these requests, none seen yet).
 */
export function diffFindingsText(diff: DiffFindings | undefined): string {
  if (diff === undefined) return "";
  const engines = Object.entries(diff.engines);
  if (engines.length === 0 && diff.not_covered.length === 0) return "";
  const lines: string[] = ["", "diff against the active policy (computed when staged, before any traffic):"];
  const rows: string[][] = [];
  for (const [engine, d] of engines) {
    const stale = d.stale ? " (stale: the active source changed since staging; stage again)" : "";
    const stopped = d.coverage.stopped ? " (stopped by the work bound)" : "";
    lines.push(`  ${engine}: ${d.result}${stopped}${stale}`);
    for (const p of d.pairs)
      rows.push([engine, p.pair, String(p.count), p.seen ? String(p.live_count) : "none yet"]);
  }
  if (diff.not_covered.length > 0) lines.push(`  not covered by the diff: ${diff.not_covered.join(", ")}`);
  const text = `${lines.join("\n")}\n`;
  return rows.length > 0 ? text + table(["Engine", "Pair", "Requests", "Seen live"], rows) : text;
}
