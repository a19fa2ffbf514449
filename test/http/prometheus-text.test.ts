/**
 * The strict exposition-format reader of test/support/prometheus-text.ts, which
 * the /metrics tests rely on, checked both ways: scrapes the format allows parse
 * to the right values, and each thing it forbids is refused with its line. The
 * refusals marked `expfmt #N` replay the error scenarios of the reference parser's
 * own test (prometheus/common, expfmt/text_parse_test.go, testTextParseError,
 * scenario N); the others are rules of the format's specification that the
 * reference parser leaves to ingestion (histogram shape, grouping, duplicates).
 * The renderer (src/metrics/exposition.ts) is checked against the same reader.
 */
import { describe, expect, it } from "vitest";
import { isolateFamilies, MetricsRegistry, renderExposition } from "../../src/metrics/index.js";
import { ExpositionError, findSample, parseExposition } from "../support/prometheus-text.js";

// An example in the spirit of the specification's own: labels with escapes, a
// non-finite value, a timestamp, a histogram and a summary.
const GOOD = [
  "# A plain comment is ignored.",
  "# HELP jobs_done_total Jobs finished, by queue and result.",
  "# TYPE jobs_done_total counter",
  'jobs_done_total{queue="batch",result="ok"} 1027 1395066363000',
  'jobs_done_total{queue="batch",result="failed",} 3 1395066363000',
  "",
  "# Escapes in a label value: backslash, quote, line feed.",
  'spool_file_age_seconds{path="C:\\\\spool\\\\x.dat",note="say \\"hi\\"\\nthen go"} 1.458255915e9',
  "",
  "# TYPE untyped_no_labels untyped",
  "untyped_no_labels 12.47",
  "",
  'ratio_of_things{problem="division by zero"} +Inf -3982045',
  "",
  "# HELP wait_seconds A histogram\\\\of waits.",
  "# TYPE wait_seconds histogram",
  'wait_seconds_bucket{le="0.05"} 24054',
  'wait_seconds_bucket{le="0.1"} 33444',
  'wait_seconds_bucket{le="0.5"} 129389',
  'wait_seconds_bucket{le="+Inf"} 144320',
  "wait_seconds_sum 53423",
  "wait_seconds_count 144320",
  "",
  "# TYPE call_seconds summary",
  'call_seconds{quantile="0.5"} 4773',
  'call_seconds{quantile="0.99"} 76656',
  "call_seconds_sum 1.7560473e+07",
  "call_seconds_count 2693",
  "",
].join("\n");

describe("the strict exposition reader", () => {
  it("reads a scrape the format allows: families, types, help, escapes, values and timestamps", () => {
    const f = parseExposition(GOOD);
    expect([...f.keys()]).toEqual([
      "jobs_done_total",
      "spool_file_age_seconds",
      "untyped_no_labels",
      "ratio_of_things",
      "wait_seconds",
      "call_seconds",
    ]);
    expect(f.get("jobs_done_total")?.type).toBe("counter");
    expect(f.get("jobs_done_total")?.samples[1]).toMatchObject({
      labels: { queue: "batch", result: "failed" },
      value: 3,
      timestamp: 1395066363000,
    });
    expect(f.get("spool_file_age_seconds")?.samples[0].labels).toEqual({
      path: "C:\\spool\\x.dat",
      note: 'say "hi"\nthen go',
    });
    expect(f.get("spool_file_age_seconds")?.type).toBe("untyped");
    expect(findSample(f, "ratio_of_things", { problem: "division by zero" })).toBe(Infinity);
    expect(f.get("wait_seconds")?.help).toBe("A histogram\\of waits.");
    expect(findSample(f, "wait_seconds_bucket", { le: "0.1" })).toBe(33444);
    expect(findSample(f, "wait_seconds_count")).toBe(144320);
    expect(findSample(f, "call_seconds", { quantile: "0.99" })).toBe(76656);
    expect(findSample(f, "call_seconds_sum")).toBe(17560473);
    expect(findSample(f, "wait_seconds_bucket", { le: "7" })).toBeUndefined();
  });

  const refused: [string, string, number, RegExp][] = [
    ["expfmt #0: no line feed at the end", "\nbla 3.14\nblubber 42", 3, /end of input/],
    ["expfmt #1: invalid escape in a label value", 'metric{label="\\t"} 3.14\n', 1, /invalid escape/],
    ["expfmt #3: invalid label name", 'metric{@="bla"} 3.14\n', 1, /invalid label name/],
    ["expfmt #4: reserved label name", 'metric{__name__="bla"} 3.14\n', 1, /reserved/],
    ["expfmt #5: no '=' after the label name", 'metric{label+="bla"} 3.14\n', 1, /expected '='/],
    ["expfmt #6: unquoted label value", "metric{label=bla} 3.14\n", 1, /expected '"'/],
    [
      "expfmt #7: quantile that is not a float",
      '\n# TYPE metric summary\nmetric{quantile="bla"} 3.14\n',
      3,
      /quantile/,
    ],
    ["expfmt #8: junk after a label value", 'metric{label="bla"+} 3.14\n', 1, /end of label value/],
    ["expfmt #9: float timestamp", 'metric{label="bla"} 3.14 2.72\n', 1, /integer as timestamp/],
    ["expfmt #10: something after the timestamp", 'metric{label="bla"} 3.14 2 3\n', 1, /spurious/],
    ["expfmt #11: value that is not a float", 'metric{label="bla"} blubb\n', 1, /float as value/],
    ["expfmt #12: second HELP", "\n# HELP metric one\n# HELP metric two\n", 3, /second HELP/],
    ["expfmt #13: second TYPE", "\n# TYPE metric counter\n# TYPE metric untyped\n", 3, /second TYPE/],
    [
      "expfmt #14: TYPE after samples",
      "\nmetric 4.12\n# TYPE metric counter\n",
      3,
      /TYPE reported after samples/,
    ],
    ["expfmt #15: unknown type", "\n# TYPE metric bla\n", 2, /unknown metric type/],
    ["expfmt #16: bad name in a TYPE line", "\n# TYPE met-ric\n", 2, /invalid metric name in comment/],
    ["expfmt #17: bad metric name", '@invalidmetric{label="bla"} 3.14 2\n', 1, /invalid metric name/],
    ["expfmt #18: no metric name", '{label="bla"} 3.14 2\n', 1, /invalid metric name/],
    [
      "expfmt #19: le that is not a float",
      '\n# TYPE metric histogram\nmetric_bucket{le="bla"} 3.14\n',
      3,
      /'le'/,
    ],
    ["expfmt #21: underscores in a number", "foo 1_2\n", 1, /float as value/],
    ["expfmt #22: hex float", "foo 0x1p-3\n", 1, /float as value/],
    ["expfmt #34: duplicate label name", 'metric{label="bla",label="bla"} 3.14\n', 1, /duplicate label/],
    ["CRLF line ends", "foo 1\r\n", 1, /line feed/],
    ["a family in two groups", 'a 1\nb 2\na{x="1"} 3\n', 3, /not one group/],
    ["the same series twice", 'a{x="1"} 1\na{x="1"} 2\n', 2, /duplicate series/],
    ["a negative counter", "# TYPE a_total counter\na_total -1\n", 2, /negative/],
    ["a histogram without +Inf", '# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n', 2, /\+Inf/],
    [
      "a histogram whose _count is not its +Inf bucket",
      '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 1\n',
      4,
      /_count/,
    ],
    [
      "histogram buckets out of order",
      '# TYPE h histogram\nh_bucket{le="2"} 1\nh_bucket{le="1"} 1\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n',
      3,
      /increasing/,
    ],
    [
      "histogram bucket counts that decrease",
      '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n',
      3,
      /decrease/,
    ],
    ["a histogram without _sum", '# TYPE h histogram\nh_bucket{le="+Inf"} 1\nh_count 1\n', 2, /_sum/],
  ];
  for (const [name, text, line, reason] of refused) {
    it(`refuses ${name}`, () => {
      let error: unknown;
      try {
        parseExposition(text);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(ExpositionError);
      expect((error as ExpositionError).line).toBe(line);
      expect((error as ExpositionError).reason).toMatch(reason);
    });
  }
});

describe("the renderer (src/metrics/exposition.ts)", () => {
  it("writes label values and help texts the reader gives back unchanged", () => {
    const awkward = 'a "quoted" \\ back\nslash';
    const text = renderExposition([
      {
        name: "x_total",
        help: "help with \\ and\nnewline",
        type: "counter",
        samples: [{ labels: [["v", awkward]], value: 2 }],
      },
      {
        name: "y",
        help: "",
        type: "gauge",
        samples: [
          { labels: [], value: -Infinity },
          { labels: [["k", "nan"]], value: NaN },
        ],
      },
    ]);
    const f = parseExposition(text);
    expect(f.get("x_total")?.help).toBe("help with \\ and\nnewline");
    expect(findSample(f, "x_total", { v: awkward })).toBe(2);
    expect(findSample(f, "y")).toBe(-Infinity);
    expect(findSample(f, "y", { k: "nan" })).toBeNaN();
  });

  it("renders a registry's counters and histograms with the amounts recorded", () => {
    const r = new MetricsRegistry();
    r.start(1_700_000_000_000, () => "isolate-1");
    r.decision("placement", "placed", "miss", 0, false);
    r.decision("placement", "placed", "hit", 3, false);
    r.decision("limits", "denied", "bypass", 12, true);
    r.decision("jobfilter", "accept", undefined, 7000, false);
    r.decision("nosuch", "placed", "hit", 1, false);
    r.objectCall("JobQueue", "submit", 4.5, true);
    r.objectCall("JobQueue", "submit", 20, false);
    const f = parseExposition(renderExposition(isolateFamilies(r)));
    expect(findSample(f, "arbiter_isolate_info", { isolate: "isolate-1" })).toBe(1);
    expect(findSample(f, "arbiter_isolate_start_time_seconds")).toBe(1_700_000_000);
    expect(findSample(f, "arbiter_decisions_total", { engine: "placement", outcome: "placed" })).toBe(2);
    expect(findSample(f, "arbiter_decisions_total", { engine: "limits", outcome: "denied" })).toBe(1);
    expect(findSample(f, "arbiter_decisions_total", { engine: "match", outcome: "matched" })).toBe(0);
    expect(
      findSample(f, "arbiter_verdict_cache_requests_total", { engine: "placement", result: "hit" }),
    ).toBe(1);
    expect(
      findSample(f, "arbiter_verdict_cache_requests_total", { engine: "placement", result: "miss" }),
    ).toBe(1);
    expect(
      findSample(f, "arbiter_verdict_cache_requests_total", { engine: "limits", result: "bypass" }),
    ).toBe(1);
    expect(
      findSample(f, "arbiter_verdict_cache_requests_total", { engine: "jobfilter", result: "hit" }),
    ).toBeUndefined();
    expect(findSample(f, "arbiter_budget_exceeded_total", { engine: "limits" })).toBe(1);
    // 0 ms lands in le="0"; 3 ms above 2 ms; 7 s only in +Inf of the buckets up to 5 s.
    expect(findSample(f, "arbiter_decision_io_wait_seconds_bucket", { engine: "placement", le: "0" })).toBe(
      1,
    );
    expect(
      findSample(f, "arbiter_decision_io_wait_seconds_bucket", { engine: "placement", le: "0.002" }),
    ).toBe(1);
    expect(
      findSample(f, "arbiter_decision_io_wait_seconds_bucket", { engine: "placement", le: "0.005" }),
    ).toBe(2);
    expect(findSample(f, "arbiter_decision_io_wait_seconds_sum", { engine: "placement" })).toBe(0.003);
    expect(findSample(f, "arbiter_decision_io_wait_seconds_bucket", { engine: "jobfilter", le: "5" })).toBe(
      0,
    );
    expect(findSample(f, "arbiter_decision_io_wait_seconds_bucket", { engine: "jobfilter", le: "10" })).toBe(
      1,
    );
    expect(
      findSample(f, "arbiter_object_calls_total", { class: "JobQueue", method: "submit", result: "ok" }),
    ).toBe(1);
    expect(
      findSample(f, "arbiter_object_calls_total", { class: "JobQueue", method: "submit", result: "error" }),
    ).toBe(1);
    expect(
      findSample(f, "arbiter_object_call_duration_seconds_count", { class: "JobQueue", method: "submit" }),
    ).toBe(2);
    expect(
      findSample(f, "arbiter_object_call_duration_seconds_sum", { class: "JobQueue", method: "submit" }),
    ).toBe(0.0245);
  });

  it("bounds the outcome labels of an engine, counting the rest as `other`", () => {
    const r = new MetricsRegistry();
    for (let i = 0; i < 100; i++) r.decision("placement", `weird_${i}`, "miss", 0, false);
    const f = parseExposition(renderExposition(isolateFamilies(r)));
    const placement =
      f.get("arbiter_decisions_total")?.samples.filter((s) => s.labels.engine === "placement") ?? [];
    expect(placement.length).toBe(33);
    expect(placement.reduce((n, s) => n + s.value, 0)).toBe(100);
    expect(findSample(f, "arbiter_decisions_total", { engine: "placement", outcome: "other" })).toBe(
      100 - (32 - 3),
    );
  });
});
