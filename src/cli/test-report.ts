import type { CaseResult } from "./test-run.js";

/** How many cases passed, failed and were skipped. */
export interface Tally {
  passed: number;
  failed: number;
  skipped: number;
}

/** Counts results by status. */
export function tally(results: readonly CaseResult[]): Tally {
  const t = { passed: 0, failed: 0, skipped: 0 };
  for (const r of results) t[r.status]++;
  return t;
}

/** The closing line every format's text run ends with: `N passed, M failed` (and `, K skipped` when some were). */
export function closingLine(t: Tally): string {
  return `${t.passed} passed, ${t.failed} failed${t.skipped > 0 ? `, ${t.skipped} skipped` : ""}`;
}

/** One line per failed case: `file:line:column: name: field: expected …, got …; …`. */
export function failureLine(r: CaseResult): string {
  return `${r.file}:${r.at}: ${r.name}: ${r.messages.join("; ")}`;
}

/** The text report: a line per failure, then the closing line. */
export function textReport(results: readonly CaseResult[]): string {
  const lines = results.filter((r) => r.status === "failed").map(failureLine);
  lines.push(closingLine(tally(results)));
  return lines.join("\n") + "\n";
}

/** The JSON report: the tally and every case with its status and messages. */
export function jsonReport(results: readonly CaseResult[]): string {
  const cases = results.map((r) => ({
    file: r.file,
    at: r.at,
    name: r.name,
    engine: r.engine,
    status: r.status,
    messages: r.messages,
    ms: round(r.ms),
  }));
  return JSON.stringify({ ...tally(results), cases }, null, 2) + "\n";
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;
const seconds = (ms: number) => (ms / 1000).toFixed(3);

/** Text as an XML 1.0 attribute or element value: markup escaped, characters XML cannot hold replaced. */
export function xmlText(text: string): string {
  return text
    .replace(
      /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g,
      "\uFFFD",
    )
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;")
    .replace(/\r/g, "&#13;")
    .replace(/\n/g, "&#10;")
    .replace(/\t/g, "&#9;");
}

/**
 * The JUnit XML report CI systems read (Jenkins, GitLab, GitHub actions'
 * reporters): one `testsuite` per test file, one `testcase` per case with its
 * file and line, `failure` holding every differing field, `skipped` its reason.
 */
export function junitReport(results: readonly CaseResult[]): string {
  const byFile = new Map<string, CaseResult[]>();
  for (const r of results) byFile.set(r.file, [...(byFile.get(r.file) ?? []), r]);
  const total = tally(results);
  const time = results.reduce((s, r) => s + r.ms, 0);
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="arbiter test" tests="${results.length}" failures="${total.failed}" errors="0" skipped="${total.skipped}" time="${seconds(time)}">`,
  ];
  for (const [file, cases] of byFile) {
    const t = tally(cases);
    const ms = cases.reduce((s, r) => s + r.ms, 0);
    out.push(
      `  <testsuite name="${xmlText(file)}" tests="${cases.length}" failures="${t.failed}" errors="0" skipped="${t.skipped}" time="${seconds(ms)}">`,
    );
    for (const r of cases) {
      const line = r.at.split(":")[0];
      const head = `    <testcase name="${xmlText(r.name)}" classname="${xmlText(file)}" file="${xmlText(file)}" line="${xmlText(line)}" time="${seconds(r.ms)}"`;
      if (r.status === "passed") {
        out.push(`${head}/>`);
      } else if (r.status === "skipped") {
        out.push(
          `${head}>`,
          `      <skipped message="${xmlText(r.messages.join("; "))}"/>`,
          "    </testcase>",
        );
      } else {
        const body = r.messages.map(xmlText).join("&#10;");
        out.push(
          `${head}>`,
          `      <failure message="${xmlText(r.messages[0] ?? "failed")}" type="mismatch">${body}</failure>`,
          "    </testcase>",
        );
      }
    }
    out.push("  </testsuite>");
  }
  out.push("</testsuites>");
  return out.join("\n") + "\n";
}
