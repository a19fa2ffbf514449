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
  addCounts,
  cidrListFamilies,
  counterFamilies,
  identityFamilies,
  isolateFamilies,
  MetricsRegistry,
  policyFamilies,
  registryCounts,
  renderExposition,
  stateFamilies,
  type MetricFamily,
} from "../../src/metrics/index.js";

const promtool = spawnSync("promtool", ["--version"], { encoding: "utf8" });
const installed = promtool.status === 0;
if (!installed)
  console.log(
    "metrics-promtool: promtool is not installed (Debian: apt-get install prometheus); the reference parser check is skipped",
  );

/** The families a scrape serves besides the counters: the active policy and the CIDR lists. */
function tail(): MetricFamily[] {
  return [
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
  ];
}

function scrape(scope: "deployment" | "isolate" = "isolate"): string {
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
  r.httpAnswer(r.httpSeries("POST", "/v1/place"), 200);
  r.httpAnswer(r.httpSeries("GET", "/v1/queues/{queue}/jobs/{id}"), 404);
  r.httpAnswer(r.httpSeries("other", "unmatched"), 405);
  r.shadowComparison("match", false);
  r.shadowComparison("match", true);
  r.replay("/v1/hosts/allocate");
  if (scope === "deployment") {
    // As GET /metrics serves it: the counters summed from the shards, the queues and pools from their objects.
    const total = new MetricsRegistry();
    addCounts(total, registryCounts(r));
    addCounts(total, registryCounts(r));
    return renderExposition([
      ...identityFamilies(r),
      ...counterFamilies(total, "deployment"),
      ...stateFamilies(
        [
          { queue: "batch", running: 2, queued: 5, leaseExpiries: 1 },
          { queue: 'odd "queue"\\name', running: 0, queued: 0, leaseExpiries: 0 },
        ],
        [{ net: 7, available: 3, unavailable: 1 }],
        { queues: 2, queuesComplete: true, pools: 1, poolsComplete: true },
      ),
      ...tail(),
    ]);
  }
  return renderExposition([...isolateFamilies(r), ...tail()]);
}

describe.skipIf(!installed)("promtool check metrics", () => {
  for (const scope of ["deployment", "isolate"] as const) {
    it(`reads the ${scope} scrape without a parse error or a lint problem`, () => {
      const text = scrape(scope);
      expect(text).toContain("arbiter_http_requests_total{");
      const run = spawnSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" });
      expect(`${run.stdout}${run.stderr}`).toBe("");
      expect(run.status).toBe(0);
    });
  }

  it("is a check that can fail: a counter without `_total` and help is reported", () => {
    const run = spawnSync("promtool", ["check", "metrics"], {
      input: "# TYPE bad counter\nbad 1\n",
      encoding: "utf8",
    });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toMatch(/_total/);
  });
});
