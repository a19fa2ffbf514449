/**
 * The hostile decisions of issue 12, as data: the table's rows and each listed
 * construct, each with the policy it needs, the request for an attacker input
 * of length `n`, and the answer it must get. `test/hostile/work.test.ts` sends
 * them through the Worker in workerd; `npm run bench:hostile` measures the CPU
 * each one takes (at n = 30 and n = 10,000). Pure data: no runtime imports.
 * Issue 24's compile and eval() rows live in rows-compile.ts and end the table.
 */
import { COMPILE_ROWS } from "./rows-compile.js";

/** A request as the Worker receives it. */
export interface HostileRequest {
  method: "POST";
  path: string;
  body: unknown;
}

/** One hostile decision. */
export interface HostileRow {
  name: string;
  /** The policy published before the row runs: engine and source text. */
  policy?: { engine: "limits" | "placement" | "match" | "jobfilter"; source: string };
  /** The request for an attacker-controlled input of length `n`. */
  request(n: number): HostileRequest;
  /** Null when the answer is the documented one, else what is wrong with it. */
  check(status: number, body: unknown): string | null;
  /** Set while the row cannot pass yet, with the reason (the test skips it; the bench still measures it). */
  awaiting?: string;
}

/** The limits verdict denies, the jq limit having raised the regex layer's refusal `text` (pScheduler's wording around it). */
function limitThrew(text: string) {
  return (status: number, body: unknown): string | null => {
    const v = asVerdict(body);
    if (status !== 200) return `status ${status}`;
    if (v.allowed !== false) return "allowed is not false";
    return v.diagnostics?.includes(`Limit 'j' failed: Failed to process task: ${text}`)
      ? null
      : `diagnostics lack \`${text}\`: ${v.diagnostics}`;
  };
}

/** A limits policy whose one application requires the jq limit `j` (and, optionally, a hint identifier). */
function limitsPolicy(script: string, identifier?: object): string {
  return JSON.stringify({
    schema: 1,
    identifiers: [identifier ?? { name: "a", description: "a", type: "always", data: {} }],
    classifiers: [{ name: "c", description: "c", identifiers: [identifier ? "h" : "a"] }],
    limits: [{ name: "j", description: "j", type: "jq", data: { script } }],
    applications: [{ apply: [{ require: "all", limits: ["j"] }] }],
  });
}

/** A limits request whose task carries the attacker's string `s` of length n. */
function limitsRequest(n: number, requester = "192.0.2.1"): HostileRequest {
  return {
    method: "POST",
    path: "/v1/limits/decide",
    body: { requester, task: { test: { type: "rtt", spec: { s: "a".repeat(n) } } } },
  };
}

type Verdict = {
  allowed?: boolean;
  rejected?: boolean;
  diagnostics?: string;
  log?: string[];
  best?: unknown;
  error?: { code: string; message: string };
};

function asVerdict(body: unknown): Verdict {
  return (body ?? {}) as Verdict;
}

/** The limits verdict denies, with the jq limit reported as having thrown `budget_exceeded`. */
function limitThrewBudget(status: number, body: unknown): string | null {
  const v = asVerdict(body);
  if (status !== 200) return `status ${status}`;
  if (v.allowed !== false) return "allowed is not false";
  return v.diagnostics?.includes("Limit j threw an exception:\n  budget_exceeded: ")
    ? null
    : `diagnostics lack the budget exception: ${v.diagnostics}`;
}

/** The limits verdict denies with the jq limit failed by jq's own text (`text`). */
function limitFailed(text: string) {
  return (status: number, body: unknown): string | null => {
    const v = asVerdict(body);
    if (status !== 200) return `status ${status}`;
    if (v.allowed !== false) return "allowed is not false";
    return v.diagnostics?.includes(`Limit 'j' failed: ${text}`)
      ? null
      : `diagnostics lack \`${text}\`: ${v.diagnostics}`;
  };
}

/** A match verdict whose audit log says the budget ran out (the evaluations after it were ERROR). */
function matchBudgetLogged(status: number, body: unknown): string | null {
  const v = asVerdict(body);
  if (status !== 200) return `status ${status}`;
  return v.log?.some((l) => l.includes("budget_exceeded"))
    ? null
    : `log lacks budget_exceeded: ${JSON.stringify(v.log)}`;
}

/** Any verdict at all (200), for rows whose small inputs decide normally and whose big ones run out of budget. */
function anyVerdict(status: number): string | null {
  return status === 200 ? null : `status ${status}`;
}

/** An error answer with this status and code. */
function errorAnswer(status: number, code: string) {
  return (got: number, body: unknown): string | null => {
    const e = asVerdict(body).error;
    if (got !== status) return `status ${got}, wanted ${status}`;
    return e?.code === code ? null : `code ${e?.code}, wanted ${code}`;
  };
}

/** `count` copies of `term` joined by `op` as a balanced tree (a flat chain that long is refused as too deep). */
function balanced(term: string, op: string, count: number): string {
  let parts = Array.from({ length: count }, () => term);
  while (parts.length > 1) {
    const next: string[] = [];
    for (let i = 0; i < parts.length; i += 2)
      next.push(i + 1 < parts.length ? `(${parts[i]} ${op} ${parts[i + 1]})` : parts[i]);
    parts = next;
  }
  return parts[0];
}

/** `n` machine ads that match anything. */
function anyMachines(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `[ Name = "m${i}"; Requirements = true ]`);
}

/** A job ad whose attributes refer to the next one twice, 40 levels deep (2^40 lookups without a budget). */
function doublingAd(op: (next: string) => string, leaf: string): string {
  const attrs = Array.from({ length: 40 }, (_, i) => `a${i} = ${op(`a${i + 1}`)}`);
  return `[ Requirements = size(strcat(a0)) > 0; ${attrs.join("; ")}; a40 = ${leaf} ]`;
}

export const HOSTILE_ROWS: HostileRow[] = [
  // ---- issue 12's table: catastrophic regular expressions ----
  {
    name: "limits `hint` identifier, regex match `(a|a)*b`",
    policy: {
      engine: "limits",
      source: limitsPolicy("true", {
        name: "h",
        description: "h",
        type: "hint",
        data: { hint: "requester", match: { style: "regex", match: "(a|a)*b" } },
      }),
    },
    request: (n) => limitsRequest(n, "a".repeat(n)),
    check: (status, body) =>
      status === 200 && asVerdict(body).allowed === false ? null : `status ${status}`,
  },
  {
    name: "limits jq `test()` `(a|a)*b`",
    policy: { engine: "limits", source: limitsPolicy('.test.spec.s | test("(a|a)*b")') },
    request: (n) => limitsRequest(n),
    check: limitFailed("Unspecified reason"),
  },
  {
    name: "placement user filter `(a+)+$`",
    policy: {
      engine: "placement",
      source:
        "partitions:\n  - name: default\n    placementrules:\n      - name: user\n        create: true\n        filter: {type: allow, users: ['(a+)+$']}\n    queues: [{name: root}]\n",
    },
    // the request schema caps a user name at 1,024 characters, so the attacker gets at most that
    request: (n) => ({
      method: "POST",
      path: "/v1/place",
      body: { user: "a".repeat(Math.min(n, 1023)) + "!" },
    }),
    check: anyVerdict,
  },
  {
    // each tag rule looked its tag up case-insensitively by scanning every request tag: rules × tags
    name: "placement 2,000 tag rules, request with n tags",
    policy: {
      engine: "placement",
      source:
        "partitions:\n  - name: default\n    queues: [{name: root}]\n    placementrules:\n" +
        Array.from({ length: 2000 }, (_, i) => `      - {name: tag, value: t${i}}\n`).join(""),
    },
    request: (n) => ({
      method: "POST",
      path: "/v1/place",
      body: { user: "u", tags: Object.fromEntries(Array.from({ length: n }, (_, i) => [`K${i}`, "v"])) },
    }),
    check: (status, body) =>
      status === 200 && asVerdict(body).rejected === true ? null : `status ${status}`,
  },
  {
    name: "`/v1/match`, `regexp()` inside a job ad `(a|a)*b`",
    request: (n) => ({
      method: "POST",
      path: "/v1/match",
      body: { job: `[ Requirements = regexp("(a|a)*b", "${"a".repeat(n)}") ]`, machines: anyMachines(1) },
    }),
    check: (status, body) => (status === 200 && asVerdict(body).best === null ? null : `status ${status}`),
  },
  {
    name: "jobfilter reason `=~` `(a|a)*b`",
    policy: {
      engine: "jobfilter",
      source: JSON.stringify([{ predicates: [["reason", ["=~", "reason", "(a|a)*b"]]], action: "REJECT" }]),
    },
    request: (n) => ({
      method: "POST",
      path: `/v1/queues/hostile-regex-${n}/jobs`,
      body: { opcodes: [{ OP_ID: "OP_TEST", reason: [["user", "a".repeat(n), 1]] }] },
    }),
    check: anyVerdict,
  },
  {
    name: "limits jq: back-reference `(a*)*\\1b`",
    policy: { engine: "limits", source: limitsPolicy('.test.spec.s | test("(a*)*\\\\1b")') },
    request: (n) => limitsRequest(n),
    check: limitThrew("back-reference \\1 in (a*)*\\1b (at offset 5) is not supported"),
  },
  {
    name: "limits jq: look-ahead `(?=(a+)+$)b`",
    policy: { engine: "limits", source: limitsPolicy('.test.spec.s | test("(?=(a+)+$)b")') },
    request: (n) => limitsRequest(n),
    check: limitThrew("capture group inside a look-around ( in (?=(a+)+$)b (at offset 3) is not supported"),
  },
  // ---- issue 12's jq rows: work inside one step ----
  {
    name: "limits jq: `reduce range(40) as $i ([1]; .+.)` (2^40 elements)",
    policy: { engine: "limits", source: limitsPolicy("reduce range(40) as $i ([1]; .+.) | length > 0") },
    request: (n) => limitsRequest(n),
    check: limitThrewBudget,
  },
  {
    name: "limits jq: `[(.a,.b) = range(1e400)]`",
    policy: { engine: "limits", source: limitsPolicy("[(.a,.b) = range(1e400)] | length > 0") },
    request: (n) => limitsRequest(n),
    check: limitThrewBudget,
  },
  {
    name: "limits jq: 10^6-element array `[range(1e6)]`",
    policy: { engine: "limits", source: limitsPolicy("[range(1e6)] | length > 0") },
    request: (n) => limitsRequest(n),
    check: limitThrewBudget,
  },
  {
    name: "limits jq: 10^6-character string built one at a time",
    policy: { engine: "limits", source: limitsPolicy('reduce range(1e6) as $i (""; . + "x") | length > 0') },
    request: (n) => limitsRequest(n),
    check: limitThrewBudget,
  },
  {
    name: "limits jq: the input string doubled n times",
    policy: {
      engine: "limits",
      source: limitsPolicy("reduce range(.test.spec.s | length) as $i (.test.spec.s; . + .) | length > 0"),
    },
    request: (n) => limitsRequest(n),
    check: limitThrewBudget,
  },
  {
    name: "limits jq: 100,000 keys set one by one",
    policy: {
      engine: "limits",
      source: limitsPolicy("reduce range(1e5) as $i ({}; .[$i | tostring] = $i) | length > 0"),
    },
    request: (n) => limitsRequest(n),
    check: limitThrewBudget,
  },
  {
    // in place (the keys do not read `.`): 100,000 new keys ran to the end under the budget, 115 ms in workerd
    name: 'limits jq: 100,000 computed keys set in place `.["k\\($i)"] = $i`',
    policy: {
      engine: "limits",
      source: limitsPolicy('reduce range(1e5) as $i ({}; .["k\\($i)"] = $i) | length > 0'),
    },
    request: (n) => limitsRequest(n),
    check: limitThrewBudget,
  },
  {
    name: 'limits jq: 100,000 objects, each with its own computed key `{("k\\(.)"): 1}`',
    policy: { engine: "limits", source: limitsPolicy('[range(1e5) | {("k\\(.)"): 1}] | length > 0') },
    request: (n) => limitsRequest(n),
    check: limitThrewBudget,
  },
  {
    name: "limits jq: `from_entries` of 100,000 computed keys",
    policy: {
      engine: "limits",
      source: limitsPolicy('[range(1e5) | {key: "k\\(.)", value: .}] | from_entries | length > 0'),
    },
    request: (n) => limitsRequest(n),
    check: limitThrewBudget,
  },
  {
    name: "limits jq: sorting 10^6 elements",
    policy: { engine: "limits", source: limitsPolicy("[range(1e6)] | sort | length > 0") },
    request: (n) => limitsRequest(n),
    check: limitThrewBudget,
  },
  {
    name: "limits jq: 10^6 one-element arrays",
    policy: { engine: "limits", source: limitsPolicy("[range(1e6) | [.]] | length > 0") },
    request: (n) => limitsRequest(n),
    check: limitThrewBudget,
  },
  {
    name: "limits jq: 10^6 objects",
    policy: { engine: "limits", source: limitsPolicy("[range(1e6) as $x | {a: $x, b: $x}] | length > 0") },
    request: (n) => limitsRequest(n),
    check: limitThrewBudget,
  },
  {
    name: "limits jq: 10^6 string interpolations",
    policy: { engine: "limits", source: limitsPolicy('[range(1e6) | "\\(.)-\\(.)"] | length > 0') },
    request: (n) => limitsRequest(n),
    check: limitThrewBudget,
  },
  {
    name: "limits jq: a billion-step loop `until(. > 1e9; . + 1)`",
    policy: { engine: "limits", source: limitsPolicy("0 | until(. > 1e9; . + 1) > 0") },
    request: (n) => limitsRequest(n),
    check: limitThrewBudget,
  },
  {
    name: "limits jq: `def f: [f]; f` (unbounded recursion)",
    policy: { engine: "limits", source: limitsPolicy("def f: [f]; f") },
    request: (n) => limitsRequest(n),
    check: (status, body) =>
      limitThrewBudget(status, body) === null
        ? null
        : limitFailed("Failed to process task: jq: evaluation exceeded its step budget")(status, body),
  },
  {
    name: "limits jq rewriter: 10^6-element array",
    policy: {
      engine: "limits",
      source: JSON.stringify({
        ...JSON.parse(limitsPolicy("true")),
        schema: 2,
        rewrite: { script: ".foo = [range(1e6)] | ." },
      }),
    },
    request: (n) => limitsRequest(n),
    check: (status, body) => {
      const v = asVerdict(body);
      if (status !== 200) return `status ${status}`;
      return v.allowed === false && v.diagnostics?.startsWith("Error while rewriting: budget_exceeded")
        ? null
        : `diagnostics: ${v.diagnostics}`;
    },
  },
  // ---- ClassAd: self-reference, huge strings and lists from ads ----
  {
    name: "`/v1/match`: job attributes referring twice to the next, 40 deep, 2,000 machines",
    request: (n) => ({
      method: "POST",
      path: "/v1/match",
      body: { job: doublingAd((x) => `${x} + ${x}`, String(n)), machines: anyMachines(2000) },
    }),
    check: matchBudgetLogged,
  },
  {
    name: "`/v1/match`: strcat doubling of an n-character string, 40 deep",
    request: (n) => ({
      method: "POST",
      path: "/v1/match",
      body: { job: doublingAd((x) => `strcat(${x}, ${x})`, `"${"a".repeat(n)}"`), machines: anyMachines(10) },
    }),
    check: matchBudgetLogged,
  },
  {
    name: "`/v1/match`: self-referential job ad (a = b, b = a)",
    request: (n) => ({
      method: "POST",
      path: "/v1/match",
      body: {
        job: `[ Requirements = a; a = b; b = strcat(a, "${"a".repeat(n)}") ]`,
        machines: anyMachines(2000),
      },
    }),
    check: (status, body) =>
      status === 200 && asVerdict(body).best === null
        ? null
        : `status ${status}, best ${String(asVerdict(body).best)}`,
  },
  {
    name: "`/v1/match`: lists of n elements split 200 times per machine",
    request: (n) => ({
      method: "POST",
      path: "/v1/match",
      body: {
        job: `[ s = "${"a,".repeat(Math.ceil(n / 2))}"; Requirements = ${Array(200).fill('size(split(s, ","))').join(" + ")} > 0 ]`,
        machines: anyMachines(100),
      },
    }),
    check: anyVerdict,
  },
  {
    name: "`/v1/match`: an n-character string compared 2,000 times per machine",
    request: (n) => ({
      method: "POST",
      path: "/v1/match",
      body: {
        job: `[ s = "${"a".repeat(n)}"; t = "${"A".repeat(n)}"; Requirements = ${balanced("s == t", "&&", 2000)} ]`,
        machines: anyMachines(100),
      },
    }),
    check: anyVerdict,
  },
  {
    name: "`/v1/match`: a 150-deep reference chain over doubling attributes (cycle checks on a deep stack)",
    request: (n) => {
      const chain = Array.from({ length: 150 }, (_, i) => `c${i} = c${i + 1}`).join("; ");
      const dbl = Array.from({ length: 40 }, (_, i) => `a${i} = a${i + 1} + a${i + 1}`).join("; ");
      return {
        method: "POST",
        path: "/v1/match",
        body: {
          job: `[ Requirements = c0 > 0; ${chain}; c150 = a0; ${dbl}; a40 = ${n} ]`,
          machines: anyMachines(10),
        },
      };
    },
    check: matchBudgetLogged,
  },
  {
    name: "`/v1/match`: member() over a 50,000-element list, 1,000 times",
    request: (n) => ({
      method: "POST",
      path: "/v1/match",
      body: {
        job: `[ l = {${Array(50_000).fill("1").join(",")}}; s = "${"a".repeat(n)}"; Requirements = ${balanced("member(2, l)", "||", 1000)} ]`,
        machines: anyMachines(10),
      },
    }),
    // parsing the list's 100,000 tokens is charged before it starts, and the budget cannot pay for it
    check: errorAnswer(422, "budget_exceeded"),
  },
  {
    name: "`/v1/match`: a 390-operator Requirements evaluated against 2,000 machines",
    request: (n) => ({
      method: "POST",
      path: "/v1/match",
      body: {
        job: `[ s = "${"a".repeat(n)}"; Requirements = ${Array(390).fill("1").join(" + ")} > 0 ]`,
        machines: anyMachines(2000),
      },
    }),
    check: matchBudgetLogged,
  },
  {
    name: "`/v1/match`: a balanced 65,535-node Requirements evaluated against 2,000 machines",
    request: (n) => {
      let e = "1";
      for (let i = 0; i < 15; i++) e = `(${e}+${e})`;
      return {
        method: "POST",
        path: "/v1/match",
        body: { job: `[ s = "${"a".repeat(n)}"; Requirements = ${e} > 0 ]`, machines: anyMachines(2000) },
      };
    },
    // as the member() row: its 131,071 tokens are charged before a parse, which the budget cannot pay for
    check: errorAnswer(422, "budget_exceeded"),
  },
  {
    name: "`/v1/match`: a 50,000-operator chain `1 + 1 + …` (a tree 50,000 deep)",
    request: () => ({
      method: "POST",
      path: "/v1/match",
      body: {
        job: `[ Requirements = ${Array(50_000).fill("1").join(" + ")} > 0 ]`,
        machines: anyMachines(1),
      },
    }),
    check: errorAnswer(400, "invalid_request"),
  },
  // ---- issue 24 items 1, 2 and 8 (jq): native loops, path updates, deep error values ----
  {
    name: "limits jq: `significand`, `frexp`, `logb` of a subnormal request number (1e-310)",
    policy: {
      engine: "limits",
      source: limitsPolicy(
        ".test.spec.x | [significand, frexp[1], logb] == [1.1505236063118787, -1029, -1030]",
      ),
    },
    request: (n) => ({
      method: "POST",
      path: "/v1/limits/decide",
      body: {
        requester: "192.0.2.1",
        task: { test: { type: "rtt", spec: { s: "a".repeat(n), x: 1e-310 } } },
      },
    }),
    check: (status, body) =>
      status !== 200
        ? `status ${status}`
        : asVerdict(body).allowed === true
          ? null
          : `not allowed: ${asVerdict(body).diagnostics}`,
  },
  {
    name: "limits jq: slice-path assignment `.[range(length)|{start:.,end:(.+1)}] = [1]` over 50,000 elements",
    policy: {
      engine: "limits",
      source: limitsPolicy("[range(50000)] | .[range(length)|{start:.,end:(.+1)}] = [1] | add > 0"),
    },
    request: (n) => limitsRequest(n),
    check: limitThrewBudget,
  },
  {
    name: "`/v1/match`: a 230 KB job ad of 10,000 attributes each referring twice to the next (fuzzer; reading is charged)",
    request: (n) => ({
      method: "POST",
      path: "/v1/match",
      body: {
        // the names carry n: the texts at one length are new to the cache even after the other's
        // repeated requests kept theirs (bench:hostile sends each length many times)
        job: `[ pad = "${"a".repeat(n)}"; Requirements = a${n}_0 > 0; ${Array.from({ length: 10_000 }, (_, i) => `a${n}_${i} = a${n}_${i + 1} + a${n}_${i + 1}`).join("; ")}; a${n}_10000 = 1 ]`,
        machines: anyMachines(2),
      },
    }),
    // its 10,000 expression texts are new to the cache (6 units a character): reading ends first
    check: errorAnswer(422, "budget_exceeded"),
  },
  {
    name: "limits jq: `error` of a value nested 5,000 deep",
    policy: { engine: "limits", source: limitsPolicy("error(reduce range(5000) as $i (0; [.]))") },
    request: (n) => limitsRequest(n),
    check: (status, body) => {
      const v = asVerdict(body);
      if (status !== 200) return `status ${status}`;
      if (v.allowed !== false) return "allowed is not false";
      if (v.diagnostics?.includes("RangeError") || v.diagnostics?.includes("report this as a bug"))
        return `diagnostics report a crash: ${v.diagnostics?.slice(0, 200)}`;
      return v.diagnostics?.includes("Limit 'j' failed") || v.diagnostics?.includes("Limit j threw")
        ? null
        : `diagnostics lack the limit's failure: ${v.diagnostics?.slice(-300)}`;
    },
  },
  // ---- nesting: 50,000-deep parentheses ----
  {
    name: "`/v1/ads/check`: 50,000-deep parentheses in an ad",
    request: () => ({
      method: "POST",
      path: "/v1/ads/check",
      body: { kind: "job", ad: `[ a = ${"(".repeat(50_000)}1${")".repeat(50_000)} ]` },
    }),
    check: errorAnswer(400, "invalid_request"),
  },
  {
    name: "`/v1/limits/decide`: spec nested 1,800 deep",
    request: () => ({
      method: "POST",
      path: "/v1/limits/decide",
      body: JSON.parse(
        `{"task":{"test":{"type":"rtt","spec":{"x":${"[".repeat(1800)}${"]".repeat(1800)}}}}}`,
      ),
    }),
    check: errorAnswer(400, "nesting_too_deep"),
  },
  ...COMPILE_ROWS,
];
