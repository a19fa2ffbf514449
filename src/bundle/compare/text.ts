import type { ComparisonReport } from "./report.js";

/** Examples shown per pair in the text form (the JSON form has all that were kept). */
export const TEXT_EXAMPLES = 3;

const clip = (text: string, n = 300): string => (text.length <= n ? text : `${text.slice(0, n - 1)}…`);

/**
 * A comparison report as text, for a terminal: the totals, then per engine its
 * counts and its outcome pairs by count, each with its first examples.
 */
export function reportText(report: ComparisonReport): string {
  const lines: string[] = [];
  const since = report.since === null ? "" : ` since ${report.since}`;
  lines.push(
    `${report.compared} decisions compared${since}: ${report.agreed} agreed, ${report.differing} differing`,
  );
  for (const [engine, e] of Object.entries(report.engines)) {
    if (e === undefined) continue;
    lines.push("", `${engine}: ${e.compared} compared, ${e.agreed} agreed, ${e.differing} differing`);
    const width = Math.max(0, ...e.pairs.map((p) => String(p.count).length));
    for (const p of e.pairs) {
      lines.push(`  ${String(p.count).padStart(width)}  ${p.pair}`);
      for (const x of p.examples.slice(0, TEXT_EXAMPLES)) {
        const pad = " ".repeat(width + 4);
        lines.push(`${pad}request:   ${clip(JSON.stringify(x.request))}`);
        lines.push(`${pad}active:    ${clip(JSON.stringify(x.active))}`);
        lines.push(`${pad}candidate: ${clip(JSON.stringify(x.candidate))}`);
      }
    }
  }
  return lines.join("\n") + "\n";
}
