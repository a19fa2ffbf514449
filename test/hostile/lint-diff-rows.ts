/**
 * Large policy sources for lint and diff (issue 24, "every policy
 * validate/publish linear in its size, ≤ 1 s CPU per MiB; `/healthz`
 * answering within 100 ms throughout"), as data: each builds a valid source of
 * about `bytes` characters in the shape that makes an engine's lint or diff
 * work hardest (pairs of rules, lists covering lists, many boundaries).
 * `npm run bench:hostile` lints and diffs them through the Worker at about
 * 100 KB and 1 MB, test/hostile/yields.test.ts asks `/healthz` meanwhile, and
 * `npx tsx bench/lint-diff-pieces.ts` measures the longest piece each runs
 * without yielding. Pure data: no runtime imports.
 */

/** One large source for `POST /v1/policies/{engine}/lint` and `/diff`. */
export interface LintDiffRow {
  name: string;
  engine: "limits" | "placement" | "match" | "customs" | "jobfilter";
  /** A valid source of about `bytes` characters; `salt` changes it a little (the diff's other side). */
  source(bytes: number, salt?: number): string;
}

/** How many units of `unit` characters fill `bytes` after `head` characters. */
function count(bytes: number, head: number, unit: number): number {
  return Math.max(1, Math.floor((bytes - head) / unit));
}

/** A placement policy whose rules are written by `rule(i)`, then a fallback rule and a root with one leaf. */
function placement(bytes: number, rule: (i: number) => string): string {
  const head = "partitions:\n  - name: default\n    placementrules:\n";
  const tail =
    "      - {name: fixed, value: root.default}\n    queues:\n      - name: root\n        queues:\n" +
    '          - {name: default, submitacl: "*"}\n';
  const out: string[] = [head];
  let size = head.length + tail.length;
  for (let i = 0; size < bytes; i++) {
    const line = `      - ${rule(i)}\n`;
    if (size + line.length > bytes) break;
    out.push(line);
    size += line.length;
  }
  out.push(tail);
  return out.join("");
}

/** filters.json rules that all share their first predicate, so lint compares each with every earlier one. */
function sharedFilters(bytes: number, salt = 0): string {
  const unit = `{"priority": 0, "predicates": [["opcode", ["=", "OP_ID", "OP_X"]], ["jobid", [">", "id", 1000000]]], "action": "PAUSE"},\n`;
  const n = count(bytes, 4, unit.length + 2);
  const rules = Array.from(
    { length: n },
    (_, i) =>
      `{"priority": ${i % 1000}, "predicates": [["opcode", ["=", "OP_ID", "OP_X"]], ["jobid", [">", "id", ${i + salt}]]], "action": "PAUSE"}`,
  );
  return `[\n${rules.join(",\n")}\n]\n`;
}

/** customs.json with networks whose allow and deny lists are long (each allow checked against each deny). */
function customs(bytes: number, salt = 0): string {
  const net = (k: number, per: number) => {
    const allow = Array.from({ length: per }, (_, i) => `"10.${k % 250}.${i % 250}.0/24"`).join(", ");
    const deny = Array.from(
      { length: per },
      (_, i) => `"172.${16 + (k % 16)}.${i % 250}.${(i + salt) % 250}/32"`,
    );
    return `"${k}": {"maxLoad": ${1 + (k % 5)}, "allow": [${allow}], "deny": [${deny.join(", ")}]}`;
  };
  const per = 200;
  const n = count(bytes, 40, net(0, per).length + 2);
  return `{"networks": {${Array.from({ length: n }, (_, k) => net(k, per)).join(",\n")}}}\n`;
}

/** limits.json with many CIDR-list identifiers (each list checked against the others), classifiers, limits and applications. */
function limits(
  bytes: number,
  salt = 0,
  script = (i: number) => `.test.spec.duration == \\"PT${i % 90}S\\"`,
): string {
  const ident = (i: number) =>
    `{"name": "id${i}", "description": "d", "type": "ip-cidr-list", "data": {"cidrs": [${Array.from({ length: 20 }, (_, j) => `"10.${i % 250}.${j}.0/24"`).join(", ")}]}}`;
  const piece = (i: number) => [
    ident(i),
    `{"name": "c${i}", "description": "d", "identifiers": ["id${i}"]}`,
    `{"name": "l${i}", "description": "d", "type": "jq", "data": {"script": "${script(i + salt)}"}}`,
    `{"description": "d", "classifier": "c${i}", "apply": [{"require": "all", "limits": ["l${i}"]}]}`,
  ];
  // names grow with i: size a piece by the last one's, so the source stays within `bytes`
  let n = count(bytes, 200, piece(0).join(",").length + 8);
  n = count(bytes, 200, piece(n).join(",").length + 8);
  const parts = Array.from({ length: n }, (_, i) => piece(i));
  const list = (k: number) => parts.map((p) => p[k]).join(",\n");
  return `{"schema": 3,\n"identifiers": [${list(0)}],\n"classifiers": [${list(1)}],\n"limits": [${list(2)}],\n"applications": [${list(3)}]}\n`;
}

/** pool.conf with many macros, half of them unused, and expressions that use the others. */
function poolConf(bytes: number, salt = 0): string {
  const n = count(bytes, 60, 60);
  const lines: string[] = [];
  for (let i = 0; i < n; i++)
    lines.push(`M${i} = (Memory > ${i + salt}) && (Cpus >= ${i % 7}) || Owner == "u${i}"`);
  const used = Array.from({ length: Math.min(n, 40) }, (_, i) => `($(M${i * 2}))`).join(" || \\\n  ");
  lines.push(`NEGOTIATOR_PE_JOB_EXPR = ${used}`);
  return lines.join("\n") + "\n";
}

export const LINT_DIFF_ROWS: LintDiffRow[] = [
  {
    name: "placement: user rules, each with its own filter",
    engine: "placement",
    source: (bytes, salt = 0) =>
      placement(bytes, (i) => `{name: user, create: true, filter: {type: allow, users: [user${i + salt}]}}`),
  },
  {
    name: "placement: rules of the hard shape (regex filter, groups, parent)",
    engine: "placement",
    source: (bytes, salt = 0) =>
      placement(
        bytes,
        (i) =>
          `{name: user, create: true, filter: {type: allow, users: ["^.*-t${i + salt}[a-z]+$"], groups: [g${i}, h${i}]}, parent: {name: fixed, value: users}}`,
      ),
  },
  {
    name: "filters.json: rules sharing their first predicate",
    engine: "jobfilter",
    source: sharedFilters,
  },
  {
    name: "customs.json: networks with long allow and deny lists",
    engine: "customs",
    source: customs,
  },
  {
    name: "limits.json: CIDR-list identifiers, classifiers, jq limits, applications",
    engine: "limits",
    source: limits,
  },
  {
    // the diff's witness search once ran these on a backtracking RegExp: `(a|a)*c` tried 2^30 ways on the long run
    name: "limits.json: jq limits testing backtracking-catastrophic patterns",
    engine: "limits",
    source: (bytes, salt = 0) =>
      limits(bytes, salt, (i) => `.test.spec.dest | test(\\"(a|a)*c|${"a".repeat(30)}b${i}\\")`),
  },
  {
    name: "pool.conf: macros, half unused, and one expression over the rest",
    engine: "match",
    source: poolConf,
  },
];
