import { ENGINE_NAMES } from "../engines/common/engine.js";
import type { Label, MetricFamily, Sample } from "./exposition.js";
import { Histogram, LATENCY_BOUNDS_MS } from "./histogram.js";
import {
  CACHED_ENGINES,
  type EngineSeries,
  type MetricsRegistry,
  type ObjectCallSeries,
  STATUS_CLASSES,
} from "./registry.js";

/** A histogram's `_bucket` (cumulative, `le` in seconds), `_sum` (seconds) and `_count` samples. */
export function histogramSamples(labels: readonly Label[], h: Histogram): Sample[] {
  const out: Sample[] = [];
  let cumulative = 0;
  for (let i = 0; i < LATENCY_BOUNDS_MS.length; i++) {
    cumulative += h.counts[i];
    out.push({
      suffix: "_bucket",
      labels: [...labels, ["le", String(LATENCY_BOUNDS_MS[i] / 1000)]],
      value: cumulative,
    });
  }
  cumulative += h.counts[LATENCY_BOUNDS_MS.length];
  out.push({ suffix: "_bucket", labels: [...labels, ["le", "+Inf"]], value: cumulative });
  out.push({ suffix: "_sum", labels, value: h.sumMs / 1000 });
  out.push({ suffix: "_count", labels, value: h.count });
  return out;
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Whose counts a scrape shows: the whole deployment's (summed from the metrics shards) or the answering isolate's alone. */
export type CountScope = "deployment" | "isolate";

/** The isolate that answers a scrape: its id and when it started. */
export function identityFamilies(registry: MetricsRegistry): MetricFamily[] {
  return [
    {
      name: "arbiter_isolate_info",
      help: "The isolate that answered this scrape (1).",
      type: "gauge",
      samples: registry.isolateId === "" ? [] : [{ labels: [["isolate", registry.isolateId]], value: 1 }],
    },
    {
      name: "arbiter_isolate_start_time_seconds",
      help: "When this isolate handled its first request, in seconds since the epoch.",
      type: "gauge",
      samples: [{ labels: [], value: registry.startedAt / 1000 }],
    },
  ];
}

/** The isolate's identity and its own counters (the `?scope=isolate` scrape, and the figures of one isolate). */
export function isolateFamilies(registry: MetricsRegistry): MetricFamily[] {
  return [...identityFamilies(registry), ...counterFamilies(registry, "isolate")];
}

/** The counters of a registry: decisions, the verdict cache, budgets, Durable Object calls, HTTP answers, shadow comparisons, replays. */
export function counterFamilies(registry: MetricsRegistry, scope: CountScope): MetricFamily[] {
  const whose =
    scope === "deployment"
      ? "The deployment's (every isolate's, summed in the metrics shards)"
      : "This isolate's own";
  const engines = ENGINE_NAMES.map((name) => [name, registry.engines.get(name) as EngineSeries] as const);
  const decisions: Sample[] = [];
  for (const [engine, s] of engines) {
    for (const outcome of [...s.outcomes.keys()].sort(byText)) {
      decisions.push({
        labels: [
          ["engine", engine],
          ["outcome", outcome],
        ],
        value: s.outcomes.get(outcome)?.n ?? 0,
      });
    }
  }
  const cache: Sample[] = [];
  for (const [engine, s] of engines) {
    if (!CACHED_ENGINES.includes(engine)) continue;
    cache.push({
      labels: [
        ["engine", engine],
        ["result", "bypass"],
      ],
      value: s.cacheBypass,
    });
    cache.push({
      labels: [
        ["engine", engine],
        ["result", "hit"],
      ],
      value: s.cacheHit,
    });
    cache.push({
      labels: [
        ["engine", engine],
        ["result", "miss"],
      ],
      value: s.cacheMiss,
    });
  }
  const calls: Sample[] = [];
  const callLatency: Sample[] = [];
  for (const cls of [...registry.objects.keys()].sort(byText)) {
    const methods = registry.objects.get(cls) as Map<string, ObjectCallSeries>;
    for (const method of [...methods.keys()].sort(byText)) {
      const s = methods.get(method);
      if (s === undefined) continue;
      const labels: Label[] = [
        ["class", cls],
        ["method", method],
      ];
      calls.push({ labels: [...labels, ["result", "error"]], value: s.failed });
      calls.push({ labels: [...labels, ["result", "ok"]], value: s.ok });
      callLatency.push(...histogramSamples(labels, s.latency));
    }
  }
  const families: MetricFamily[] = [
    {
      name: "arbiter_decisions_total",
      help: `${whose} decisions answered, by engine and outcome (the decision log's outcome; a scheduling pass is schedule; a decision that ended in 422 budget_exceeded is budget_exceeded).`,
      type: "counter",
      samples: decisions,
    },
    {
      name: "arbiter_decision_io_wait_seconds",
      help: `${whose}: time from a decision request's arrival to its verdict by the Workers clock, which advances only across I/O (KV, Cache API, Durable Objects, fetches): the time the decision waited, not its CPU time. Millisecond resolution; 0 means it waited on nothing.`,
      type: "histogram",
      samples: engines.flatMap(([engine, s]) => histogramSamples([["engine", engine]], s.wait)),
    },
    {
      name: "arbiter_verdict_cache_requests_total",
      help: `${whose} stateless decisions by what the verdict cache did: hit (answered from the isolate's map or the Cache API), miss (decided; stored when cacheable), bypass (decided without looking: explain, or VERDICT_CACHE_SECONDS=0).`,
      type: "counter",
      samples: cache,
    },
    {
      name: "arbiter_budget_exceeded_total",
      help: `${whose} decisions that spent their work budget (DECISION_BUDGET), whether answered with a verdict saying so or with 422 budget_exceeded.`,
      type: "counter",
      samples: engines.map(([engine, s]) => ({ labels: [["engine", engine]], value: s.budgetExceeded })),
    },
    {
      name: "arbiter_object_calls_total",
      help: `${whose} calls to Durable Objects, by class, method and result (error: the call threw, overloaded included).`,
      type: "counter",
      samples: calls,
    },
    {
      name: "arbiter_object_call_duration_seconds",
      help: `${whose}: how long a caller waited for a Durable Object call's answer (I/O, so the Workers clock measures it), by class and method. Millisecond resolution.`,
      type: "histogram",
      samples: callLatency,
    },
    {
      name: "arbiter_analytics_write_errors_total",
      help: `${whose} decision data points the Analytics Engine binding (METRICS) refused.`,
      type: "counter",
      samples: [{ labels: [], value: registry.analyticsErrors }],
    },
    {
      name: "arbiter_http_requests_total",
      help: `${whose} HTTP answers, by method, route template (as in the OpenAPI document; unmatched for a path no route has) and status class.`,
      type: "counter",
      samples: httpSamples(registry),
    },
    {
      name: "arbiter_shadow_comparisons_total",
      help: `${whose} decisions evaluated again under the staged candidate policy, by engine and result (agreed, differing); compared is their sum.`,
      type: "counter",
      samples: [...registry.shadow].flatMap(([engine, s]) => [
        {
          labels: [
            ["engine", engine],
            ["result", "agreed"],
          ] as Label[],
          value: s.agreed,
        },
        {
          labels: [
            ["engine", engine],
            ["result", "differing"],
          ] as Label[],
          value: s.differing,
        },
      ]),
    },
    {
      name: "arbiter_idempotent_replays_total",
      help: `${whose} answers replayed for a reused Idempotency-Key (Idempotent-Replayed: true), by route template.`,
      type: "counter",
      samples: [...registry.replays.keys()].sort(byText).map((route) => ({
        labels: [["route", route]] as Label[],
        value: registry.replays.get(route)?.n ?? 0,
      })),
    },
  ];
  return families;
}

function httpSamples(registry: MetricsRegistry): Sample[] {
  const out: Sample[] = [];
  const series = [...registry.http.values()].sort(
    (a, b) => byText(a.route, b.route) || byText(a.method, b.method),
  );
  for (const s of series) {
    for (let c = 1; c < s.byClass.length; c++) {
      if (s.byClass[c] === 0) continue;
      out.push({
        labels: [
          ["method", s.method],
          ["route", s.route],
          ["status_class", STATUS_CLASSES[c]],
        ],
        value: s.byClass[c],
      });
    }
  }
  return out;
}

/** The active policy as this isolate serves it. */
export interface PolicyFigures {
  revision: string;
  source: string;
  /** The bundle's `created_at`, ms since the epoch. */
  createdAt: number;
  /** When this isolate started serving it, ms since the epoch. */
  activatedAt: number;
  now: number;
}

/** The active revision as an info gauge's label, and its age. */
export function policyFamilies(p: PolicyFigures): MetricFamily[] {
  return [
    {
      name: "arbiter_policy_info",
      help: "The policy bundle revision this isolate decides with (1), and where it came from (embedded or kv).",
      type: "gauge",
      samples: [
        {
          labels: [
            ["revision", p.revision],
            ["source", p.source],
          ],
          value: 1,
        },
      ],
    },
    {
      name: "arbiter_policy_created_timestamp_seconds",
      help: "When the active bundle was compiled, in seconds since the epoch.",
      type: "gauge",
      samples: [{ labels: [], value: p.createdAt / 1000 }],
    },
    {
      name: "arbiter_policy_age_seconds",
      help: "Seconds since the active bundle was compiled (the same figure as /v1/status bundle.age_seconds).",
      type: "gauge",
      samples: [{ labels: [], value: Math.max(0, Math.round((p.now - p.createdAt) / 1000)) }],
    },
    {
      name: "arbiter_policy_activated_timestamp_seconds",
      help: "When this isolate started deciding with the active bundle, in seconds since the epoch.",
      type: "gauge",
      samples: [{ labels: [], value: p.activatedAt / 1000 }],
    },
  ];
}

/** One downloaded CIDR list as its stored record tells it (the same for every isolate). */
export interface CidrListFigures {
  source: string;
  count: number;
  successes: number;
  failures: number;
  /** ms since the epoch, or null before the first success. */
  lastSuccess: number | null;
}

/** The downloaded CIDR lists of the active limits policy: entries, refresh results, last success. */
export function cidrListFamilies(lists: readonly CidrListFigures[]): MetricFamily[] {
  const sorted = [...lists].sort((a, b) => byText(a.source, b.source));
  return [
    {
      name: "arbiter_cidr_list_entries",
      help: "Entries in each downloaded ip-cidr-list-url list of the active limits policy (deployment-wide: read from KV).",
      type: "gauge",
      samples: sorted.map((l) => ({ labels: [["source", l.source]], value: l.count })),
    },
    {
      name: "arbiter_cidr_list_refreshes_total",
      help: "Scheduled downloads of each list by result (deployment-wide: the counts the cron refresh keeps in KV).",
      type: "counter",
      samples: sorted.flatMap((l) => [
        {
          labels: [
            ["source", l.source],
            ["result", "failure"],
          ] as Label[],
          value: l.failures,
        },
        {
          labels: [
            ["source", l.source],
            ["result", "success"],
          ] as Label[],
          value: l.successes,
        },
      ]),
    },
    {
      name: "arbiter_cidr_list_last_success_timestamp_seconds",
      help: "When each list was last downloaded successfully, in seconds since the epoch (absent before the first success; deployment-wide).",
      type: "gauge",
      samples: sorted
        .filter((l) => l.lastSuccess !== null)
        .map((l) => ({ labels: [["source", l.source]], value: (l.lastSuccess as number) / 1000 })),
    },
  ];
}
