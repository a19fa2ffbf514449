/**
 * `npx tsx bench/lint-diff-pieces.ts`: in-process CPU of lint and diff of the
 * large sources of test/hostile/lint-diff-rows.ts, run as the Worker runs
 * them (resumable work, common/slices.ts): the total per run, the number of
 * pieces between checkpoints, and the longest piece, the figure that decides
 * how long `/healthz` may wait behind a lint or a diff. Lint gets one source
 * of `bytes`; diff two of `bytes / 2` that differ a little. CPU is this
 * process's (process.cpuUsage), so figures are noisy on a shared machine;
 * each cell is the best of ROUNDS runs. `ONLY=<text>` keeps the rows whose
 * name holds the text; `BYTES=100000,1000000` sets the sizes.
 */
import { diffPoliciesSteps } from "../src/bundle/diff.js";
import { lintSourceSteps } from "../src/bundle/lint.js";
import type { Steps } from "../src/engines/common/slices.js";
import { LINT_DIFF_ROWS } from "../test/hostile/lint-diff-rows.js";

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const SIZES = (process.env.BYTES ?? "100000,1000000").split(",").map(Number);

/** CPU ms of this process so far. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Runs resumable work to its end, timing each piece: total CPU ms, pieces, the longest piece's ms and index. */
function pieces<T>(steps: Steps<T>): { total: number; count: number; longest: number; at: number; value: T } {
  let longest = 0;
  let at = 0;
  let count = 0;
  const start = cpuMs();
  for (;;) {
    const t = cpuMs();
    const r = steps.next();
    const ms = cpuMs() - t;
    if (ms > longest) {
      longest = ms;
      at = count;
    }
    count++;
    if (r.done) return { total: cpuMs() - start, count, longest, at, value: r.value };
  }
}

/** The best (lowest total) of ROUNDS runs. */
function best<T>(run: () => Steps<T>): ReturnType<typeof pieces<T>> {
  let out: ReturnType<typeof pieces<T>> | null = null;
  for (let i = 0; i < ROUNDS; i++) {
    const r = pieces(run());
    if (out === null || r.longest < out.longest) out = r;
  }
  return out as ReturnType<typeof pieces<T>>;
}

const only = process.env.ONLY;
console.log("| row | bytes | kind | CPU ms | ms per MiB | pieces | longest piece ms (index) | answer |");
console.log("| --- | ---: | --- | ---: | ---: | ---: | ---: | --- |");
for (const row of LINT_DIFF_ROWS.filter((r) => !only || r.name.includes(only))) {
  for (const bytes of SIZES) {
    const source = row.source(bytes);
    const lint = best(() => lintSourceSteps(row.engine, source));
    const l = lint.value;
    const lintAnswer = l.ok
      ? `${l.value.length} findings${l.value.some((f) => f.code === "lint_incomplete") ? ", incomplete" : ""}`
      : `invalid: ${l.error[0].message.slice(0, 80)}`;
    const mib = (ms: number, n: number) => ((ms * 1_048_576) / n).toFixed(0);
    console.log(
      `| ${row.name} | ${source.length} | lint | ${lint.total.toFixed(0)} | ${mib(lint.total, source.length)} | ${lint.count} | ${lint.longest.toFixed(1)} (${lint.at}) | ${lintAnswer} |`,
    );
    const a = row.source(bytes / 2, 0);
    const b = row.source(bytes / 2, 1);
    const diff = best(() => diffPoliciesSteps(row.engine, a, b));
    const d = diff.value;
    const diffAnswer = d.ok
      ? `${d.value.compared} compared of ${d.value.coverage.generated}${d.value.coverage.stopped ? ", stopped" : ""}`
      : `invalid: ${d.error.message.slice(0, 80)}`;
    const n = a.length + b.length;
    console.log(
      `| ${row.name} | ${n} | diff | ${diff.total.toFixed(0)} | ${mib(diff.total, n)} | ${diff.count} | ${diff.longest.toFixed(1)} (${diff.at}) | ${diffAnswer} |`,
    );
  }
}
