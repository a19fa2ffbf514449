/**
 * Regex benchmark (section "regex" of `npm run bench`; alone: `npx tsx bench/regex.ts`):
 * 1. the common patterns of the other benches on the linear-time layer, each against
 *    JavaScript's RegExp on the same pattern as the code before the layer compiled it
 *    (ratio = layer / RegExp, same run);
 * 2. issue 12's catastrophic patterns, µs per decision through each engine, on 30 and
 *    on 10,000 characters (ratio = µs per 1,000 input characters);
 * 3. placement with N rules, each with its own filter regexp (ratio = µs per rule).
 */
import { evaluateRequest } from "../src/engines/classad/evaluate.js";
import { cachedLinear, type Origin, type RegexFlags } from "../src/engines/common/regex/index.js";
import { compileFilters, decideJobfilter, loadFilters, type Job } from "../src/engines/jobfilter/index.js";
import {
  decideLimits,
  limitsEngine,
  type LimitsContext,
  type LimitsRequest,
} from "../src/engines/limits/index.js";
import { compilePlacement, decidePlacement, loadPlacement } from "../src/engines/placement/index.js";
import { compileJq } from "../src/jq/index.js";
import { manyRules } from "./fixtures.js";
import { measure, measureAsync, printTable, type BenchRow } from "./support.js";

interface Common {
  name: string;
  origin: Origin;
  pattern: string;
  flags: RegexFlags;
  /** The RegExp the code before the layer built for the same pattern. */
  before: RegExp;
  input: string;
  op: "test" | "match" | "exec-all";
}

const COMMON: Common[] = [
  {
    name: "jq capture ^(?<n>[0-9]+)(?<u>[kmgt]i?)?$ /i",
    origin: "onig",
    pattern: "^(?<n>[0-9]+)(?<u>[kmgt]i?)?$",
    flags: { i: true },
    before: /^(?<n>[0-9]+)(?<u>[kmgt]i?)?(?=\n?$)/giu,
    input: "25Ki",
    op: "match",
  },
  {
    name: "jq capture iso8601 duration pattern (pScheduler's library)",
    origin: "onig",
    pattern:
      "^(?:P(?:(?:(?<weeks>[0-9]+)W)?(?<days>[0-9]+)D)?(?:T(?:(?<hours>[0-9]+)H)?(?:(?<minutes>[0-9]+)M)?(?:(?<seconds>[0-9]+(?:[.][0-9]+)?)S)?)?|(?<invalid>.*))$",
    flags: {},
    before:
      /^(?:P(?:(?:(?<weeks>[0-9]+)W)?(?<days>[0-9]+)D)?(?:T(?:(?<hours>[0-9]+)H)?(?:(?<minutes>[0-9]+)M)?(?:(?<seconds>[0-9]+(?:[.][0-9]+)?)S)?)?|(?<invalid>.*))(?=\n?$)/gu,
    input: "PT2S",
    op: "match",
  },
  {
    name: "jq match (?<v>[0-9]+)(?<u>[HMS]) /g, offsets",
    origin: "onig",
    pattern: "(?<v>[0-9]+)(?<u>[HMS])",
    flags: {},
    before: /(?<v>[0-9]+)(?<u>[HMS])/dgu,
    input: "PT10M30S",
    op: "exec-all",
  },
  {
    name: "jq test ^P[0-9]+D$",
    origin: "onig",
    pattern: "^P[0-9]+D$",
    flags: {},
    before: /^P[0-9]+D(?=\n?$)/u,
    input: "P2D",
    op: "test",
  },
  {
    name: "jq test ^[0-9.]+/[0-9]+$ (CIDR transform)",
    origin: "onig",
    pattern: "^[0-9.]+/[0-9]+$",
    flags: {},
    before: /^[0-9.]+\/[0-9]+(?=\n?$)/u,
    input: "10.1.2.0/24",
    op: "test",
  },
  {
    name: "placement filter dev* (Go)",
    origin: "re2",
    pattern: "dev*",
    flags: {},
    before: /dev*/u,
    input: "dev_app",
    op: "test",
  },
  {
    name: "placement filter ^svc- (Go), no match",
    origin: "re2",
    pattern: "^svc-",
    flags: {},
    before: /^svc-/u,
    input: "carol",
    op: "test",
  },
  {
    name: "limits hint ^ps\\. /i (Python)",
    origin: "python",
    pattern: "^ps\\.",
    flags: { i: true },
    before: /^ps\./iu,
    input: "ps.example.net",
    op: "test",
  },
  {
    name: "ClassAd regexp Alain.*Roy (PCRE)",
    origin: "pcre",
    pattern: "Alain.*Roy",
    flags: {},
    before: /Alain.*Roy/gu,
    input: "Alain Aslag Roy",
    op: "test",
  },
  {
    name: "jobfilter =~ ^(db|web)[0-9]+\\. (PCRE)",
    origin: "pcre",
    pattern: "^(db|web)[0-9]+\\.",
    flags: {},
    before: /^(db|web)[0-9]+\./u,
    input: "web12.example",
    op: "test",
  },
];

function commonRows(): BenchRow[] {
  const rows: BenchRow[] = [];
  for (const c of COMMON) {
    const r = cachedLinear(c.pattern, c.origin, c.flags);
    if (!r.ok) throw new Error(`${c.name}: ${r.message}`);
    const rx = r.value;
    const re = c.before;
    let layer: () => unknown;
    let before: () => unknown;
    if (c.op === "test") {
      layer = () => rx.test(c.input);
      before = () => {
        re.lastIndex = 0;
        return re.test(c.input);
      };
    } else if (c.op === "match") {
      layer = () => rx.match(c.input, 0);
      before = () => {
        re.lastIndex = 0;
        return re.exec(c.input);
      };
    } else {
      layer = () => {
        const out: Int32Array[] = [];
        for (let from = 0, m = rx.exec(c.input, 0); m !== null; from = m[1], m = rx.exec(c.input, from))
          out.push(m);
        return out;
      };
      before = () => {
        const out: RegExpExecArray[] = [];
        re.lastIndex = 0;
        for (let m = re.exec(c.input); m !== null; m = re.exec(c.input)) out.push(m);
        return out;
      };
    }
    // interleave the two so a busy machine colours both alike
    let a = 0;
    let b = 0;
    for (let round = 0; round < 3; round++) {
      b += measure(before, 150);
      a += measure(layer, 150);
    }
    rows.push({
      name: `${c.name} [${rx.fast ? "RegExp" : "Pike VM"}]`,
      microsPerOp: a / 3,
      baselineName: "RegExp as before",
      ratio: a / b,
    });
  }
  return rows;
}

const CTX: LimitsContext = { now: Date.parse("2026-06-01T12:00:00Z") } as unknown as LimitsContext;

function placementWith(pattern: string) {
  const text = [
    "partitions:",
    "  - placementrules:",
    `      - {name: fixed, value: root.hit, filter: {users: [${JSON.stringify(pattern)}]}}`,
    "      - {name: fixed, value: root.miss}",
    '    queues: [{name: root, submitacl: "*", queues: [{name: hit}, {name: miss}]}]',
  ].join("\n");
  const c = compilePlacement(text);
  if (!c.ok) throw new Error(c.error[0].message);
  return loadPlacement(c.value);
}

function limitsWith(pattern: string) {
  const text = JSON.stringify({
    schema: 1,
    identifiers: [
      {
        name: "to-us",
        description: "h",
        type: "hint",
        data: { hint: "server", match: { style: "regex", match: pattern } },
      },
    ],
    classifiers: [{ name: "c", description: "c", identifiers: ["to-us"] }],
    limits: [{ name: "ok", description: "ok", type: "pass-fail", data: { pass: true } }],
    applications: [{ classifier: "c", apply: [{ require: "all", limits: ["ok"] }] }],
  });
  const c = limitsEngine.compile(text);
  if (!c.ok) throw new Error(c.error[0].message);
  return limitsEngine.load(JSON.parse(JSON.stringify(c.value)));
}

async function hostileRows(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const pattern of ["(a|a)*b", "(a+)+$"]) {
    for (const n of [30, 10_000]) {
      const s = "a".repeat(n);
      const per = (us: number) => us / (n / 1000);
      const label = `${pattern} on ${n.toLocaleString("en")} a's`;
      const ms = n > 1000 ? 200 : 150;
      const place = placementWith(pattern);
      const p = measure(() => decidePlacement(place, { user: s }, { explain: false }), ms);
      rows.push({
        name: `placement filter (Go), ${label}`,
        microsPerOp: p,
        baselineName: "µs per 1,000 chars",
        ratio: per(p),
      });
      const limits = limitsWith(pattern);
      const req = {
        requester: "198.51.100.7",
        server: s,
        task: { test: { type: "rtt", spec: {} } },
      } as unknown as LimitsRequest;
      const l = await measureAsync(() => decideLimits(limits, req, CTX), ms);
      rows.push({
        name: `limits hint (Python), ${label}`,
        microsPerOp: l,
        baselineName: "µs per 1,000 chars",
        ratio: per(l),
      });
      const jq = compileJq(`test(${JSON.stringify(pattern)})`);
      if (!jq.ok) throw new Error(jq.error[0].message);
      const prog = jq.value;
      const j = measure(() => prog.first(s), ms);
      rows.push({
        name: `jq test() (Oniguruma), ${label}`,
        microsPerOp: j,
        baselineName: "µs per 1,000 chars",
        ratio: per(j),
      });
      const expr = `regexp(${JSON.stringify(pattern)}, ${JSON.stringify(s)})`;
      const c = measure(() => evaluateRequest({ expr }, { now: 0, random: () => 0 }), ms);
      rows.push({
        name: `ClassAd regexp() incl. parse (PCRE), ${label}`,
        microsPerOp: c,
        baselineName: "µs per 1,000 chars",
        ratio: per(c),
      });
      const rules = compileFilters(
        JSON.stringify([{ action: "REJECT", predicates: [["reason", ["=~", "reason", pattern]]] }]),
      );
      if (!rules.ok) throw new Error(JSON.stringify(rules.error));
      const loaded = loadFilters(rules.value);
      const job = {
        id: 1,
        opcodes: [{ OP_ID: "OP_INSTANCE_STARTUP", reason: [["gnt:user", s, 1]] }],
      } as unknown as Job;
      const f = measure(
        () => decideJobfilter(loaded, { job, queue: { running: [], queued: [] } }, { explain: false }),
        ms,
      );
      rows.push({
        name: `jobfilter =~ (PCRE), ${label}`,
        microsPerOp: f,
        baselineName: "µs per 1,000 chars",
        ratio: per(f),
      });
    }
  }
  return rows;
}

function scaleRows(): { rows: BenchRow[]; exponent: string } {
  const rows: BenchRow[] = [];
  const sizes = [10, 100, 300, 1000, 3000];
  const figures: number[] = [];
  for (const n of sizes) {
    const c = compilePlacement(manyRules(n));
    if (!c.ok) throw new Error(c.error[0].message);
    const policy = loadPlacement(c.value);
    const us = measure(
      () => decidePlacement(policy, { user: "carol", groups: ["staff"] }, { explain: false }),
      300,
    );
    figures.push(us);
    rows.push({
      name: `placement, ${n.toLocaleString("en")} rules each with its own filter regexp`,
      microsPerOp: us,
      baselineName: "µs per rule",
      ratio: us / n,
    });
  }
  const k = sizes.length - 1;
  const exponent = (Math.log(figures[k] / figures[k - 1]) / Math.log(sizes[k] / sizes[k - 1])).toFixed(2);
  return { rows, exponent };
}

/** Every row of the regex section. */
export async function runRegexBench(): Promise<BenchRow[]> {
  const rows = commonRows();
  rows.push(...(await hostileRows()));
  const scale = scaleRows();
  rows.push(...scale.rows);
  lastExponent = scale.exponent;
  return rows;
}

let lastExponent = "";

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await runRegexBench();
  printTable("regex: µs per operation (common patterns: ratio to RegExp as before, same run)", rows);
  console.log(
    `\nplacement with N filter regexps: growth exponent between 1,000 and 3,000 rules ${lastExponent} (1 = linear)`,
  );
}
