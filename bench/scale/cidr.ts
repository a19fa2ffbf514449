/**
 * Scale series: a limits policy whose classifier tests one `ip-cidr-list` of
 * 10 / 1,000 / 10,000 / 100,000 CIDRs (half IPv4 /24s, half IPv6 /64s, spread
 * over the address space): compile (validate, scan, pack), load per isolate
 * (from the stored JSON), one decision, and the loaded policy's heap.
 */
import { decideLimits, limitsEngine, type LimitsContext } from "../../src/engines/limits/index.js";
import { heapUsed, measureSeries, report, type SeriesResult } from "./series.js";

const SIZES = [10, 1_000, 10_000, 100_000];

/** The policy text with an n-entry list. */
export function cidrPolicyText(n: number): string {
  const cidrs = new Set<string>();
  for (let i = 0; cidrs.size < n; i++) {
    const a = Math.imul(i, 2654435761) >>> 0;
    cidrs.add(
      i % 2
        ? `2001:db8:${(a >>> 16).toString(16)}:${(a & 65535).toString(16)}::/64`
        : `${a >>> 24}.${(a >>> 16) & 255}.${(a >>> 8) & 255}.0/24`,
    );
  }
  return JSON.stringify({
    schema: 2,
    identifiers: [
      { name: "everybody", description: "all", type: "always", data: {} },
      { name: "listed", description: "the list", type: "ip-cidr-list", data: { cidrs: [...cidrs] } },
    ],
    classifiers: [{ name: "listed", description: "listed", identifiers: ["listed"] }],
    limits: [{ name: "pass", description: "pass", type: "pass-fail", data: { pass: true } }],
    applications: [{ classifier: "listed", apply: [{ require: "all", limits: ["pass"] }] }],
  });
}

function compiled(text: string): unknown {
  const c = limitsEngine.compile(text);
  if (!c.ok) throw new Error(c.error[0].message);
  return c.value;
}

const texts = new Map(SIZES.map((n) => [n, cidrPolicyText(n)]));
const stored = new Map(SIZES.map((n) => [n, JSON.stringify(compiled(texts.get(n) as string))]));

const compile = measureSeries(
  "limits ip-cidr-list: compile",
  SIZES,
  (n) => ({ run: () => compiled(texts.get(n) as string) }),
  { unit: "ms", ms: 20 },
);
// what an isolate does: the stored JSON is already parsed with the bundle, then load builds the policy
const load: SeriesResult = measureSeries(
  "limits ip-cidr-list: load per isolate",
  SIZES,
  (n) => {
    const data = JSON.parse(stored.get(n) as string);
    return { run: () => limitsEngine.load(data) };
  },
  { unit: "ms", ms: 20 },
);

const CONTEXT: LimitsContext = {
  now: 0,
  explain: false,
  dns: undefined,
  cidrList: () => undefined,
  localAddresses: [],
};
const request = {
  requester: "2001:db8:1::5",
  task: { schema: 1, test: { type: "rtt", spec: { schema: 1, dest: "x" } } },
};
const decide = measureSeries("limits ip-cidr-list: one decision", SIZES, (n) => {
  const policy = limitsEngine.load(JSON.parse(stored.get(n) as string));
  return { run: () => decideLimits(policy, request as never, CONTEXT) };
});

// heap of the largest loaded policy alone
texts.clear();
const before = heapUsed();
const big = limitsEngine.load(JSON.parse(stored.get(100_000) as string));
stored.clear();
const held = heapUsed() - before;
load.notes.push(
  `heap of the loaded 100k-CIDR policy: ${(held / 1048576).toFixed(2)} MB (an isolate has 128 MB)`,
);
report(compile, load, decide);
if (big === null) console.log("");
