/**
 * The policy rows of `npm run bench:hostile` (issue 24 items 5 and 9): CPU
 * per validate of YAML that was quadratic or nested past the stack, and CPU
 * of the first placement decision after publishing a policy of thousands of
 * rules (loading it included) and of the decisions after it. Measured in
 * workerd from /proc (10 ms ticks), so each figure sums several runs; the
 * `/healthz` probes' CPU is taken out, and each row gives the worst latency
 * they saw (bench/healthz-probe.ts).
 */
import type { Target } from "./hostile-measure.js";

const head = "partitions:\n- name: default\n  queues:\n  - name: root\n    properties:\n";

/** The validate rows: a name and the source text. */
const VALIDATE_ROWS: { name: string; source: () => string }[] = [
  {
    name: "16,000 keys in one mapping",
    source: () => head + Array.from({ length: 16_000 }, (_, i) => `      k${i}: v\n`).join(""),
  },
  {
    name: "45,000 anchored keys (under 1 MiB)",
    source: () =>
      head +
      Array.from({ length: 45_000 }, (_, i) => `      &${i.toString(36)} ${i.toString(36)}: v\n`).join(""),
  },
  {
    name: "8,000 `? *a` alias keys",
    source: () =>
      head +
      "      a: &a x\n" +
      Array.from({ length: 8_000 }, (_, i) => `      ? *a\n      : v${i}\n`).join(""),
  },
  {
    name: "`[- - - …` (block indicators in a flow sequence, 20,000)",
    source: () => "- [\n  " + "-  ".repeat(20_000),
  },
  {
    name: "87,000 `[` (nested past the depth limit)",
    source: () => "partitions: " + "[".repeat(87_000),
  },
  {
    name: "5,000 lines of `- - - … x:` (40 deep each)",
    source: () => "partitions:\n" + Array.from({ length: 5_000 }, () => "- ".repeat(40) + "x:\n").join(""),
  },
  {
    name: "400,000 `? ` (explicit keys nested on one line)",
    source: () => "partitions:\n" + "? ".repeat(400_000) + "x",
  },
  {
    // the fuzzer's case yunikorn-yaml-63b5f30d0b, at 1 MB: a generator per level of nesting made it about twice this
    name: "19,000 lines of 20 nested `? ` (explicit keys, repeated)",
    source: () => "partitions:\n" + ("? ".repeat(20) + "xpartitions:\n").repeat(19_000),
  },
  {
    name: "200,000 lines of `? x` (explicit keys, repeated)",
    source: () => "partitions:\n" + "? x\n".repeat(200_000),
  },
  {
    // quadratic before commit 0fdf16e (each folded line's trailing blanks were trimmed by a regex over all the text so far)
    name: "a quoted scalar of 80,000 folded lines",
    source: () => head + '      k: "a' + " \n        a".repeat(80_000) + '"\n',
  },
  {
    name: "a syntax error per character (200,000)",
    source: () => "partitions: [" + ",".repeat(200_000) + "]",
  },
];

/**
 * The hard shape written tightly, so that 9,000 rules fit under the 1 MiB
 * body limit (1,031,198 bytes; bench/fixtures.ts `hardRule`, spaced, makes 1.33 MB):
 * no space after commas, ids in base 36, the expression unanchored at the
 * start (`-t1[a-z]+$` matches as `^.*-t1[a-z]+$` does), a one-letter parent.
 */
export function tightRules(n: number, salt = ""): string {
  const lines = [`# ${salt}`, "partitions:", "- name: default", "  placementrules:"];
  for (let k = 0; k < n; k++) {
    const i = k.toString(36);
    lines.push(
      `  - {name: user,create: true,filter: {users: ["-t${i}[a-z]+$"],groups: [g${i},h${i}]},parent: {name: fixed,value: u}}`,
    );
  }
  lines.push(
    "  - {name: fixed,value: root.default}",
    "  queues:",
    "  - name: root",
    "    queues:",
    '    - {name: default,submitacl: "*"}',
    "    - {name: u,parent: true}",
  );
  return lines.join("\n") + "\n";
}

/**
 * Rules whose expressions hold no literal a gate could test (`^(u1|v1)$`):
 * before issue 24's fix the first decision compiled all of them, uncharged
 * (about 480 ms CPU for 9,000 in node); now each is stored with the few whole
 * texts it matches and indexed as names are. 9,000 of them are 950 KB.
 */
export function literalFreeRules(n: number, salt = ""): string {
  const lines = [`# ${salt}`, "partitions:", "- name: default", "  placementrules:"];
  for (let i = 0; i < n; i++)
    lines.push(`  - {name: fixed,value: root.q${i},create: true,filter: {users: ["^(u${i}|v${i})$"]}}`);
  lines.push(
    "  - {name: fixed,value: root.default}",
    "  queues:",
    "  - name: root",
    "    queues:",
    '    - {name: default,submitacl: "*"}',
  );
  return lines.join("\n") + "\n";
}

/** The name of the rule-count table, which HOSTILE_ONLY selects too. */
const RULES_TABLE = "placement rules (hard shape, tight; literal-free `^(u1|v1)$`)";

/** The rule-count table's rows: the counts issue 24 names in the tight hard shape, and 9,000 literal-free expressions. */
const RULE_ROWS: { label: string; n: number; source: (n: number, salt: string) => string }[] = [
  { label: "5,000", n: 5_000, source: tightRules },
  { label: "9,000", n: 9_000, source: tightRules },
  { label: "9,000 literal-free", n: 9_000, source: literalFreeRules },
];

async function post(url: string, body: string, type: string): Promise<number> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": type }, body });
  await res.arrayBuffer();
  return res.status;
}

/** CPU ms per call of `once`, over `runs` calls, without the `/healthz` probes' share. */
async function cpuPer(t: Target, runs: number, once: (i: number) => Promise<void>): Promise<number> {
  const t0 = t.worker.cpuSeconds();
  const probes0 = t.probe.count();
  for (let i = 0; i < runs; i++) await once(i);
  const ms = (t.worker.cpuSeconds() - t0) * 1000 - (t.probe.count() - probes0) * t.probeCpuMs;
  return Math.max(0, ms) / runs;
}

/** Opens a row's `/healthz` window (`start`) and closes it as a table cell (`cell`, counting a row over the goal). */
export interface HealthzCells {
  start(): void;
  cell(name: string): string;
}

/** The table of policy rows, as Markdown lines; with `only`, the validate rows whose name contains it and no rule-count table. */
export async function policyRows(t: Target, healthz: HealthzCells, only?: string): Promise<string[]> {
  const worker = t.worker;
  const lines = [
    "",
    "| hostile policy | bytes | CPU ms per validate | CPU ms per MiB | worst /healthz ms | answer |",
    "| --- | ---: | ---: | ---: | ---: | --- |",
  ];
  for (const row of VALIDATE_ROWS.filter((r) => !only || r.name.includes(only))) {
    const source = row.source();
    let status = 0;
    healthz.start();
    const ms = await cpuPer(t, 3, async () => {
      status = await post(`${worker.url}/v1/policies/placement/validate`, source, "text/plain");
    });
    const perMib = (ms * (1 << 20)) / source.length;
    lines.push(
      `| ${row.name.replace(/\|/g, "\\|")} | ${source.length} | ${ms.toFixed(0)} | ${perMib.toFixed(0)} | ${healthz.cell(row.name)} | ${status} |`,
    );
  }
  if (only && !RULES_TABLE.includes(only)) return lines;
  lines.push(
    "",
    `| ${RULES_TABLE} | bytes | CPU ms, first decision after publish | CPU ms per later decision | worst /healthz ms |`,
    "| ---: | ---: | ---: | ---: | ---: |",
  );
  const request = JSON.stringify({ user: "carol", groups: ["staff", "dev"] });
  // the counts issue 24 names; 9,000 rules of the tight shape are 1,031,198 bytes, under the 1 MiB body limit
  for (const { label, n, source } of RULE_ROWS) {
    const bytes = source(n, `${n}-0`).length;
    let first = 0;
    healthz.start();
    for (let round = 0; round < 3; round++) {
      const res = await fetch(`${worker.url}/v1/policies/placement`, {
        method: "PUT",
        headers: { "content-type": "text/plain" },
        body: source(n, `${n}-${round}`),
      });
      // a refused publish is a row of its own, not the end of the table (the validate rows above are kept)
      if (res.status !== 200) {
        first = Number.NaN;
        await res.arrayBuffer();
        break;
      }
      first += await cpuPer(
        t,
        1,
        async () => void (await post(`${worker.url}/v1/place`, request, "application/json")),
      );
    }
    if (Number.isNaN(first)) {
      lines.push(`| ${label} | ${bytes} | publishing refused | | ${healthz.cell(`${label} rules`)} |`);
      continue;
    }
    const later = await cpuPer(
      t,
      100,
      async () => void (await post(`${worker.url}/v1/place`, request, "application/json")),
    );
    lines.push(
      `| ${label} | ${bytes} | ${(first / 3).toFixed(1)} | ${later.toFixed(2)} | ${healthz.cell(`${label} placement rules`)} |`,
    );
  }
  return lines;
}
