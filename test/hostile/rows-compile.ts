/**
 * Issue 24's hostile decisions that spend their time outside the evaluation
 * proper: compiling request-supplied regular expressions (items 3) and
 * ClassAd eval() and deep lookups (item 4). Same shape as rows.ts, whose
 * table ends with these rows. Patterns are fresh in every request, as an
 * attacker would send them, so no cache answers them.
 */
import type { HostileRequest, HostileRow } from "./rows.js";

type Verdict = { allowed?: boolean; diagnostics?: string; log?: string[]; best?: unknown };

function asVerdict(body: unknown): Verdict {
  return (body ?? {}) as Verdict;
}

/** A tag no earlier request used, so every pattern built with it is compiled afresh. */
function freshTag(): string {
  return Math.random().toString(36).slice(2, 10);
}

/** A pattern near the regex layer's 50,000-instruction cap: 49 groups of 1,000 characters (49,101 instructions). */
function nearCap(tag: string, i: number): string {
  return `(a{1000}){49}${tag}${i}`;
}

/** `count` machine ads that match anything (or whose Requirements is `requirements(i)`). */
function machines(count: number, requirements: (i: number) => string = () => "true"): string[] {
  return Array.from({ length: count }, (_, i) => `[ Name = "m${i}"; Requirements = ${requirements(i)} ]`);
}

/** A match verdict whose audit log says the budget ran out. */
function matchBudgetLogged(status: number, body: unknown): string | null {
  const v = asVerdict(body);
  if (status !== 200) return `status ${status}`;
  return v.log?.some((l) => l.includes("budget_exceeded"))
    ? null
    : `log lacks budget_exceeded: ${JSON.stringify(v.log?.slice(-3))}`;
}

/** A match verdict (200) with no machine matched. */
function noMatch(status: number, body: unknown): string | null {
  return status === 200 && asVerdict(body).best === null
    ? null
    : `status ${status}, best ${JSON.stringify(asVerdict(body).best)}`;
}

/** The 422 `budget_exceeded` answer: the budget ran out while the request's ads were read. */
function readOverBudget(status: number, body: unknown): string | null {
  const code = (body as { error?: { code?: string } } | null)?.error?.code;
  return status === 422 && code === "budget_exceeded" ? null : `status ${status}, code ${code}`;
}

/** A limits policy whose one application requires the jq limit `j`. */
function limitsPolicy(script: string): string {
  return JSON.stringify({
    schema: 1,
    identifiers: [{ name: "a", description: "a", type: "always", data: {} }],
    classifiers: [{ name: "c", description: "c", identifiers: ["a"] }],
    limits: [{ name: "j", description: "j", type: "jq", data: { script } }],
    applications: [{ apply: [{ require: "all", limits: ["j"] }] }],
  });
}

/** A limits request carrying the attacker's string of length n and a list of patterns. */
function limitsRequest(n: number, patterns: string[]): HostileRequest {
  return {
    method: "POST",
    path: "/v1/limits/decide",
    body: {
      requester: "192.0.2.1",
      task: { test: { type: "rtt", spec: { s: "a".repeat(n), p: patterns } } },
    },
  };
}

/** The limits verdict denies because the jq limit spent the budget or met the per-decision pattern bound. */
function limitStopped(status: number, body: unknown): string | null {
  const v = asVerdict(body);
  if (status !== 200) return `status ${status}`;
  if (v.allowed !== false) return "allowed is not false";
  const d = v.diagnostics ?? "";
  return d.includes("budget_exceeded") || d.includes("distinct patterns compiled in one decision")
    ? null
    : `diagnostics: ${d.slice(0, 300)}`;
}

/** Attributes referring twice to the next, 40 deep, ending in `leaf`. */
function doubling(leaf: string): string {
  return `${Array.from({ length: 40 }, (_, i) => `a${i} = a${i + 1} + a${i + 1}`).join("; ")}; a40 = ${leaf}`;
}

export const COMPILE_ROWS: HostileRow[] = [
  // ---- issue 24 item 3: compiling request-supplied regular expressions ----
  {
    name: "`/v1/match`: one job ad with 200 distinct near-cap patterns `(a{1000}){49}`",
    request: (n) => {
      const tag = freshTag();
      const terms = Array.from({ length: 200 }, (_, i) => `regexp("${nearCap(tag, i)}", s)`);
      return {
        method: "POST",
        path: "/v1/match",
        body: {
          job: `[ s = "${"a".repeat(n)}"; Requirements = ${terms.join(" || ")} ]`,
          machines: machines(1),
        },
      };
    },
    check: matchBudgetLogged,
  },
  {
    name: "`/v1/match`: 2,000 machine ads, each with its own near-cap pattern",
    request: (n) => {
      const tag = freshTag();
      const ms = machines(2000, (i) => `regexp("${nearCap(tag, i)}", TARGET.s)`);
      return {
        method: "POST",
        path: "/v1/match",
        body: { job: `[ s = "${"a".repeat(n)}"; Requirements = true ]`, machines: ms },
      };
    },
    // 2,000 expression texts new to the cache cost more than the budget to read (6 units a character)
    check: readOverBudget,
  },
  {
    name: "`/v1/match`: 2,000 machine ads, each with its own small pattern (the per-decision bound)",
    request: (n) => {
      const tag = freshTag();
      const ms = machines(2000, (i) => `regexp("(a{3}){49}${tag}${i}", TARGET.s)`);
      return {
        method: "POST",
        path: "/v1/match",
        body: { job: `[ s = "${"a".repeat(n)}"; Requirements = true ]`, machines: ms },
      };
    },
    // 2,000 expression texts new to the cache cost more than the budget to read (6 units a character)
    check: readOverBudget,
  },
  {
    name: "limits jq: `test($p)` over 1,000 request-supplied near-cap patterns",
    policy: {
      engine: "limits",
      source: limitsPolicy(".test.spec.s as $s | [.test.spec.p[] as $p | $s | test($p)] | any"),
    },
    request: (n) => {
      const tag = freshTag();
      return limitsRequest(
        n,
        Array.from({ length: 1000 }, (_, i) => nearCap(tag, i)),
      );
    },
    check: limitStopped,
  },
  {
    name: "limits jq: `test($p)` over 1,000 request-supplied small patterns",
    policy: {
      engine: "limits",
      source: limitsPolicy(".test.spec.s as $s | [.test.spec.p[] as $p | $s | test($p)] | any"),
    },
    request: (n) => {
      const tag = freshTag();
      return limitsRequest(
        n,
        Array.from({ length: 1000 }, (_, i) => `(a|b)*c${tag}${i}`),
      );
    },
    check: limitStopped,
  },
  // ---- issue 24 item 4: eval() and deep lookups ----
  {
    name: '`/v1/match`: `s = "eval(s) + eval(s)"; Requirements = eval(s) > 0`',
    request: (n) => ({
      method: "POST",
      path: "/v1/match",
      body: {
        job: `[ pad = "${"a".repeat(n)}"; s = "eval(s) + eval(s)"; Requirements = eval(s) > 0 ]`,
        machines: machines(1),
      },
    }),
    check: matchBudgetLogged,
  },
  {
    name: '`/v1/match`: `s = "eval(s) + eval(s)"` against 2,000 machines',
    request: (n) => ({
      method: "POST",
      path: "/v1/match",
      body: {
        job: `[ pad = "${"a".repeat(n)}"; s = "eval(s) + eval(s)"; Requirements = eval(s) > 0 ]`,
        machines: machines(2000),
      },
    }),
    check: matchBudgetLogged,
  },
  {
    name: "`/v1/match`: eval() of a new n-character string at every call",
    request: (n) => {
      const again = `eval(strcat(s, \\" + \\", string(random(1000000))))`;
      return {
        method: "POST",
        path: "/v1/match",
        body: {
          job: `[ s = "${again} + ${again} + size(\\"${"a".repeat(n)}\\")"; Requirements = eval(s) > 0 ]`,
          machines: machines(1),
        },
      };
    },
    check: matchBudgetLogged,
  },
  {
    name: "`/v1/match`: eval() of a 380-level string that evals itself (the stack)",
    request: (n) => ({
      method: "POST",
      path: "/v1/match",
      body: {
        job: `[ pad = "${"a".repeat(n)}"; s = "eval(s)${" + 1".repeat(380)}"; Requirements = eval(s) > 0 ]`,
        machines: machines(1),
      },
    }),
    check: noMatch,
  },
  {
    name: "`/v1/match`: a 199-deep chain of 380-level expressions (the stack)",
    request: (n) => {
      const chain = Array.from({ length: 199 }, (_, i) => `c${i} = c${i + 1}${" + 1".repeat(380)}`).join(
        "; ",
      );
      return {
        method: "POST",
        path: "/v1/match",
        body: {
          job: `[ pad = "${"a".repeat(n)}"; Requirements = c0 > 0; ${chain}; c199 = 1 ]`,
          machines: machines(10),
        },
      };
    },
    // reading these 300 KB of expressions costs more than the budget (src/engines/classad/budget.test.ts
    // evaluates them under a larger one and gets ERROR, not a stack overflow); texts an earlier request
    // left in the shared expression cache are not parsed again, so a request after others may be read
    // whole and run out of budget evaluating instead: either way the budget ends it
    check: (status, body) => (readOverBudget(status, body) === null ? null : matchBudgetLogged(status, body)),
  },
  {
    name: "`/v1/match`: unresolved() walking attributes that refer twice to the next, 40 deep",
    request: (n) => ({
      method: "POST",
      path: "/v1/match",
      body: {
        job: `[ pad = "${"a".repeat(n)}"; Requirements = size(unresolved(a0)) > 0; ${doubling("zz")} ]`,
        machines: machines(10),
      },
    }),
    check: matchBudgetLogged,
  },
];
