/**
 * The semantic diff of limits files (src/engines/limits/diff-requests.ts):
 * pairs that differ only at one boundary (a CIDR edge, a regex witness, a
 * threshold ± 1, a schedule edge, a DNS identifier's offline answer) must be
 * found with an example request on the boundary; identical pairs are never
 * `equivalent`, only searched.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { diffPolicies, type DiffReport } from "../../src/bundle/diff.js";
import { parseAddress } from "../../src/engines/common/cidr.js";
import { REPO_ROOT } from "../support/cases.js";

const shipped = readFileSync(join(REPO_ROOT, "policies", "limits.json"), "utf8");

interface Parts {
  identifiers?: object[];
  classifiers?: object[];
  limits?: object[];
  applications?: object[];
}

/**
 * A limits file: `hostiles` (whatever identifiers are given, classified as
 * `hostiles`) are refused, everybody else passes the limits given (none: passes).
 */
const file = (p: Parts): string =>
  JSON.stringify({
    schema: 3,
    identifiers: [{ name: "everybody", description: "", type: "always", data: {} }, ...(p.identifiers ?? [])],
    classifiers: [
      { name: "default", description: "", identifiers: ["everybody"] },
      ...(p.identifiers?.length
        ? [
            {
              name: "hostiles",
              description: "",
              identifiers: p.identifiers.map((i) => (i as { name: string }).name),
            },
          ]
        : []),
    ],
    limits: [
      { name: "never", description: "", type: "pass-fail", data: { pass: false } },
      { name: "always", description: "", type: "pass-fail", data: { pass: true } },
      ...(p.limits ?? []),
    ],
    applications: [
      ...(p.identifiers?.length
        ? [
            {
              description: "hostiles",
              classifier: "hostiles",
              apply: [{ require: "all", limits: ["never"] }],
              "stop-on-failure": true,
            },
          ]
        : []),
      {
        description: "everybody",
        classifier: "default",
        apply: [
          {
            require: "all",
            limits: ["always", ...(p.limits ?? []).map((l) => (l as { name: string }).name)],
          },
        ],
      },
    ],
  });

function diff(a: string, b: string): DiffReport {
  const r = diffPolicies("limits", a, b);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

type Req = {
  requester: string;
  server?: string;
  task: { test: { type: string; spec: Record<string, unknown> } };
  run?: { start: string };
};
const example = (r: DiffReport, i = 0): Req => r.pairs[i].example.request as Req;

const cidrs = (...list: string[]) => ({
  identifiers: [{ name: "blocked", description: "", type: "ip-cidr-list", data: { cidrs: list } }],
});

function inside(addr: string, first: string, last: string): boolean {
  const a = parseAddress(addr);
  const f = parseAddress(first);
  const l = parseAddress(last);
  if (a === null || f === null || l === null || a.family !== f.family) return false;
  return BigInt(a.start) >= BigInt(f.start) && BigInt(a.start) <= BigInt(l.start);
}

describe("limits diff: requesters", () => {
  it("a /24 against a /25 differs on the addresses the /25 gave up, and only there", () => {
    const r = diff(file(cidrs("198.51.100.0/24")), file(cidrs("198.51.100.0/25")));
    expect(r.pairs.map((p) => p.pair)).toEqual(["allowed false → true"]);
    expect(inside(example(r).requester, "198.51.100.128", "198.51.100.255")).toBe(true);
    expect(r.equivalent).toBe(false);
    expect(r.coverage.boundaries["cidr range edge"]).toBe(2);
  });

  it("an IPv6 list moved by one address at its end is found at that address", () => {
    const r = diff(
      file(cidrs("2001:db8::/64", "2001:db8:0:1::/127")),
      file(cidrs("2001:db8::/64", "2001:db8:0:1::/128")),
    );
    expect(r.differing).toBeGreaterThan(0);
    expect(example(r).requester).toBe("2001:db8:0:1::1");
  });

  it("an address just outside a list (last + 1) is tried: a list grown by its neighbour differs", () => {
    const r = diff(file(cidrs("192.0.2.0/25")), file(cidrs("192.0.2.0/25", "192.0.2.128/32")));
    expect(example(r).requester).toBe("192.0.2.128");
  });

  it(
    "in a list too large to try every range, a range one side lacks is still found (and the sample is said)",
    { timeout: 30_000 },
    () => {
      const list = Array.from({ length: 3000 }, (_, i) => `10.${(i >> 8) & 255}.${i & 255}.0/25`);
      const r = diff(file(cidrs(...list)), file(cidrs(...list.filter((_, i) => i !== 1240))));
      expect(r.pairs.map((p) => p.pair)).toEqual(["allowed false → true"]);
      expect(inside(example(r).requester, "10.4.216.0", "10.4.216.127")).toBe(true);
      expect(r.coverage.why.join(" ")).toMatch(/more than 256 ranges: .* an even sample of 256/);
    },
  );

  it("a hint regex differing only for a witness is found, with the witness as the server", () => {
    const hint = (re: string) => ({
      identifiers: [
        {
          name: "blocked",
          description: "",
          type: "hint",
          data: { hint: "server", match: { style: "regex", match: re } },
        },
      ],
    });
    const r = diff(file(hint("^perf")), file(hint("^perfsonar")));
    expect(r.differing).toBeGreaterThan(0);
    const server = example(r).server ?? "";
    expect(/^perf/.test(server) !== /^perfsonar/.test(server)).toBe(true);
  });

  it("DNS identifiers are decided unresolved (their fail-result), offline, and say so", () => {
    const bogon = (fail: boolean) => ({
      identifiers: [
        { name: "blocked", description: "", type: "ip-cymru-bogon", data: { "fail-result": fail } },
      ],
    });
    const r = diff(file(bogon(false)), file(bogon(true)));
    expect(r.pairs.map((p) => p.pair)).toEqual(["allowed true → false"]);
    expect(r.coverage.why.join(" ")).toMatch(/ip-cymru-bogon identifier: DNS is not consulted offline/);
    const reverse = (re: string) => ({
      identifiers: [
        {
          name: "blocked",
          description: "",
          type: "ip-reverse-dns",
          data: { match: { style: "regex", match: re }, timeout: "PT1S" },
        },
      ],
    });
    const same = diff(file(reverse("a")), file(reverse("b")));
    expect(same.differing).toBe(0);
    expect(same.coverage.why.join(" ")).toMatch(
      /ip-reverse-dns identifier: .* never identifies \(unresolved\)/,
    );
  });
});

const testLimit = (limit: object) => ({
  limits: [{ name: "sizes", description: "", type: "test", data: { test: "throughput", limit } }],
});

describe("limits diff: tasks", () => {
  it("a numeric range's upper bound moved by one differs exactly at the new bound", () => {
    const r = diff(
      file(testLimit({ parallel: { range: { lower: 1, upper: 6 } } })),
      file(testLimit({ parallel: { range: { lower: 1, upper: 7 } } })),
    );
    expect(r.pairs.map((p) => p.pair)).toEqual(["allowed false → true"]);
    expect(r.pairs[0].count).toBe(r.coverage.boundaries["requester class"]);
    expect(example(r).task.test).toEqual({ type: "throughput", spec: { parallel: 7 } });
  });

  it("an ISO 8601 duration bound moved by one second differs at that second", () => {
    const d = (upper: string) => file(testLimit({ duration: { range: { lower: "PT10S", upper } } }));
    const r = diff(d("PT60S"), d("PT1M1S"));
    expect(example(r).task.test.spec.duration).toBe("PT61S");
  });

  it("a string match regex differing only for a witness is found", () => {
    const m = (re: string) => file(testLimit({ dest: { match: { style: "regex", match: re } } }));
    const r = diff(m("^ps-"), m("^ps-lab"));
    expect(r.differing).toBeGreaterThan(0);
    const dest = String(example(r).task.test.spec.dest);
    expect(/^ps-/.test(dest) && !/^ps-lab/.test(dest)).toBe(true);
  });

  it("a test type added to a test-type limit is found with that type", () => {
    const types = (...t: string[]) =>
      file({ limits: [{ name: "types", description: "", type: "test-type", data: { types: t } }] });
    const r = diff(types("latency"), types("latency", "rtt"));
    expect(example(r).task.test.type).toBe("rtt");
  });

  it(
    "a jq limit's threshold moved by one is found from the script's literal (shipped file, parallel > 6 → > 7)",
    { timeout: 30_000 },
    () => {
      const r = diff(shipped, shipped.replace("and .test.spec.parallel > 6", "and .test.spec.parallel > 7"));
      expect(r.pairs.map((p) => p.pair)).toEqual(["allowed false → true"]);
      expect(example(r).task.test).toMatchObject({ type: "throughput", spec: { parallel: 7 } });
    },
  );

  it("a run-schedule hour range grown by one hour differs for a run in that hour", () => {
    const sched = (upper: number) =>
      file({
        limits: [
          { name: "hours", description: "", type: "run-schedule", data: { hour: [{ lower: 8, upper }] } },
        ],
      });
    const r = diff(sched(17), sched(18));
    expect(r.differing).toBeGreaterThan(0);
    expect(example(r).run?.start).toMatch(/T18:/);
  });

  it("a run-daterange end moved by one second differs for a run ending there", () => {
    const range = (end: string) =>
      file({
        limits: [
          {
            name: "window",
            description: "",
            type: "run-daterange",
            data: { start: "2026-06-01T00:00:00Z", end },
          },
        ],
      });
    const r = diff(range("2026-07-01T00:00:00Z"), range("2026-07-01T00:00:01Z"));
    expect(r.pairs.map((p) => p.pair)).toEqual(["allowed false → true"]);
    expect(example(r).run?.start).toBe("2026-06-30T23:59:59Z");
  });
});

describe("limits diff: identical pairs are only searched", () => {
  it("an identical pair finds no difference and is never equivalent", () => {
    const a = file({
      ...cidrs("198.51.100.0/24"),
      ...testLimit({ parallel: { range: { lower: 1, upper: 6 } } }),
    });
    const r = diff(a, a);
    expect(r.differing).toBe(0);
    expect(r.equivalent).toBe(false);
    expect(r.coverage.exhaustive).toBe(false);
    expect(r.result).toMatch(/^no difference found over \d+ requests$/);
    expect(r.coverage.why[0]).toMatch(/searched, never proven/);
  });

  it("the shipped limits file against itself", { timeout: 30_000 }, () => {
    const r = diff(shipped, shipped);
    expect(r.differing).toBe(0);
    expect(r.equivalent).toBe(false);
    expect(r.compared).toBeGreaterThan(100);
    expect(r.coverage.boundaries["jq script"]).toBeGreaterThan(0);
  });

  it(
    "a captured request the engine cannot read is an error on both sides, not a difference",
    { timeout: 30_000 },
    () => {
      const r = diffPolicies("limits", shipped, shipped, { requests: [{ requester: "192.0.2.1" }, 7] });
      expect(r.ok && r.value.differing).toBe(0);
      expect(r.ok && r.value.coverage.captured).toBe(2);
    },
  );

  it("a side that does not validate is named", () => {
    const r = diffPolicies("limits", shipped, '{"schema": 3, "identifiers": 4}');
    expect(!r.ok && r.error.side).toBe("new");
  });
});
