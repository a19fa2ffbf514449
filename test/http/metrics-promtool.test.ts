/**
 * The reference check of the scrape format: Prometheus's own `promtool check
 * metrics` (its Go text parser plus its naming lints: counters end in `_total`,
 * every family has help, units in base units) reads what `GET /metrics` renders —
 * the same renderer and families, fed with a registry that has seen decisions of
 * every engine, Durable Object calls and awkward label values. Skipped, saying so,
 * when promtool is not installed (Debian: `apt-get install prometheus`); the strict
 * reader of test/support/prometheus-text.ts checks the served scrape in workerd
 * either way (test/worker/metrics.test.ts).
 */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  cidrListFamilies,
  isolateFamilies,
  MetricsRegistry,
  policyFamilies,
  renderExposition,
} from "../../src/metrics/index.js";

const promtool = spawnSync("promtool", ["--version"], { encoding: "utf8" });
const installed = promtool.status === 0;
if (!installed)
  console.log(
    "metrics-promtool: promtool is not installed (Debian: apt-get install prometheus); the reference parser check is skipped",
  );

function scrape(): string {
  const r = new MetricsRegistry();
  r.start(1_790_000_000_000, () => "isolate-a");
  r.decision("placement", "placed", "miss", 0, false);
  r.decision("placement", "placed", "hit", 0, false);
  r.decision("limits", "denied", "bypass", 31, true);
  r.decision("match", "budget_exceeded", "miss", 2, true);
  r.decision("customs", "no_host", undefined, 12, false);
  r.decision("jobfilter", "schedule", undefined, 250_000, false);
  r.decision("jobfilter", 'odd "outcome"\\with\nnewline', undefined, 1, false);
  r.objectCall("JobQueue", "submit", 3, true);
  r.objectCall("HostPool", "allocate", 41.5, false);
  r.objectCall("PolicyCoordinator", "publish", 120, true);
  return renderExposition([
    ...isolateFamilies(r),
    ...policyFamilies({
      revision: "5f2f2fff",
      source: "kv",
      createdAt: 1_789_999_000_000,
      activatedAt: 1_790_000_100_000,
      now: 1_790_000_200_000,
    }),
    ...cidrListFamilies([
      {
        source: 'https://lists.example/a?x=1&y="2"',
        count: 12,
        successes: 3,
        failures: 1,
        lastSuccess: 1_790_000_000_000,
      },
      { source: "http://127.0.0.1:9/never", count: 0, successes: 0, failures: 4, lastSuccess: null },
    ]),
  ]);
}

describe.skipIf(!installed)("promtool check metrics", () => {
  it("reads the scrape without a parse error or a lint problem", () => {
    const text = scrape();
    const run = spawnSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" });
    expect(`${run.stdout}${run.stderr}`).toBe("");
    expect(run.status).toBe(0);
  });

  it("is a check that can fail: a counter without `_total` and help is reported", () => {
    const run = spawnSync("promtool", ["check", "metrics"], {
      input: "# TYPE bad counter\nbad 1\n",
      encoding: "utf8",
    });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/_total/);
  });
});
