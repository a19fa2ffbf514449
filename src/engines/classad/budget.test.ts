import { describe, expect, it } from "vitest";
import {
  Budget,
  BUDGET_EXCEEDED_MESSAGE,
  DEFAULT_DECISION_BUDGET,
  type BudgetExceeded,
} from "../common/budget.js";
import { decideAdCheck, decideMatch } from "./index.js";
import { PARSE_UNITS_PER_TOKEN } from "./lexer.js";
import { LOOKUP_UNITS } from "./scope.js";

const ctx = { now: Date.UTC(2026, 0, 1), random: () => 0.5 };
const machines = Array.from({ length: 50 }, (_, i) => `[ Name = "m${i}"; Requirements = true ]`);
/** 2^40 lookups without a budget: each attribute refers twice to the next. */
const doubling = `[ Requirements = a0 > 0; ${Array.from({ length: 40 }, (_, i) => `a${i} = a${i + 1} + a${i + 1}`).join("; ")}; a40 = 1 ]`;

describe("ClassAd evaluation charges the decision's work budget", () => {
  it("turns the evaluations past a spent budget into ERROR, and says so in the log and the outcome", () => {
    const b = new Budget(50_000);
    const d = b.run(() => decideMatch(null, { job: doubling, machines }, ctx));
    expect(d.outcome).toBe("budget_exceeded");
    expect(d.verdict.best).toBeNull();
    expect(d.verdict.log.at(-1)).toContain(BUDGET_EXCEEDED_MESSAGE);
    expect(b.exhausted()).toBe(true);
  });

  it("charges the strings an ad reads and builds by their length", () => {
    const b = new Budget(1e9);
    b.run(() =>
      decideAdCheck(null, { kind: "job", ad: `[ s = "${"x".repeat(10_000)}"; t = strcat(s, s) ]` }, ctx),
    );
    const d = b.run(() =>
      decideMatch(
        null,
        {
          job: `[ s = "${"x".repeat(10_000)}"; Requirements = size(strcat(s, s)) > 0 ]`,
          machines: machines.slice(0, 1),
        },
        ctx,
      ),
    );
    expect(d.outcome).toBe("matched");
    expect(b.used).toBeGreaterThan(40_000);
  });

  it("decides ordinary matches well within the default budget", () => {
    const b = new Budget(400_000);
    const d = b.run(() =>
      decideMatch(
        null,
        {
          job: "[ Requirements = TARGET.Memory > 1; Rank = TARGET.Memory ]",
          machines: machines.map((m, i) => m.replace("]", `; Memory = ${i} ]`)),
        },
        ctx,
      ),
    );
    expect(d.outcome).toBe("matched");
    expect(b.exhausted()).toBe(false);
  });

  it("charges eval() the parse of its string, by length (issue 24 item 4)", () => {
    const text = Array(300).fill("1").join(" + ");
    const b = new Budget(1e9);
    const d = b.run(() =>
      decideMatch(
        null,
        {
          job: `[ s = "${text}"; Requirements = eval(strcat(s, " + 0")) > 0 ]`,
          machines: machines.slice(0, 1),
        },
        ctx,
      ),
    );
    expect(d.outcome).toBe("matched");
    expect(b.used).toBeGreaterThan(4 * text.length);
  });

  it("ends a string that evals itself twice with the budget, not the stack (issue 24 item 4)", () => {
    const b = new Budget(400_000);
    const d = b.run(() =>
      decideMatch(
        null,
        { job: '[ s = "eval(s) + eval(s)"; Requirements = eval(s) > 0 ]', machines: machines.slice(0, 1) },
        ctx,
      ),
    );
    expect(d.outcome).toBe("budget_exceeded");
    const deep = new Budget(400_000);
    const e = deep.run(() =>
      decideMatch(
        null,
        {
          job: `[ s = "eval(s)${" + 1".repeat(380)}"; Requirements = eval(s) > 0 ]`,
          machines: machines.slice(0, 1),
        },
        ctx,
      ),
    );
    expect(e.verdict.best).toBeNull();
  });

  it("ends a 199-deep chain of 380-level expressions with ERROR, not a stack overflow", () => {
    const chain = Array.from({ length: 199 }, (_, i) => `c${i} = c${i + 1}${" + 1".repeat(380)}`).join("; ");
    // reading this 300 KB ad of texts new to the cache costs about 2,300,000 units itself: a larger budget, so evaluation is what ends it
    const b = new Budget(4_000_000);
    const d = b.run(() =>
      decideMatch(
        null,
        { job: `[ Requirements = c0 > 0; ${chain}; c199 = 1 ]`, machines: machines.slice(0, 2) },
        ctx,
      ),
    );
    expect(d.verdict.best).toBeNull();
    // a shallow chain of the same expressions still evaluates
    const short = Array.from({ length: 5 }, (_, i) => `c${i} = c${i + 1}${" + 1".repeat(380)}`).join("; ");
    const ok = new Budget(400_000).run(() =>
      decideMatch(
        null,
        { job: `[ Requirements = c0 > 0; ${short}; c5 = 1 ]`, machines: machines.slice(0, 2) },
        ctx,
      ),
    );
    expect(ok.outcome).toBe("matched");
  });

  it("charges an expression text the shared cache lacks 6 units a character (issue 24: 2,000 ads of texts of their own)", () => {
    const text = `strcmp("${"x".repeat(600)}${Date.now()}", TARGET.Name) == 0`;
    const ad = `[ Name = "m"; Requirements = ${text} ]`;
    const read = () => {
      const b = new Budget(1e9);
      b.run(() => decideMatch(null, { job: "[ Requirements = true ]", machines: [ad] }, ctx));
      return b.used;
    };
    // seen once, seen twice (kept), then found in the cache
    const first = read();
    read();
    const found = read();
    expect(first - found).toBeGreaterThanOrEqual(6 * text.length);
  });

  it("ends reading 2,000 machine ads that each bring an expression of their own with the budget", () => {
    const tag = `${Date.now()}x${Math.random()}`;
    const ads = Array.from(
      { length: 2000 },
      (_, i) => `[ Name = "m${i}"; Requirements = regexp("(a{3}){49}${tag}${i}", TARGET.s) ]`,
    );
    const b = new Budget(DEFAULT_DECISION_BUDGET);
    let thrown: unknown = null;
    try {
      b.run(() => decideMatch(null, { job: '[ s = "aaa"; Requirements = true ]', machines: ads }, ctx));
    } catch (e) {
      thrown = e;
    }
    expect((thrown as BudgetExceeded | null)?.code).toBe("budget_exceeded");
    // before a single pattern was compiled
    expect(b.regexCompiles).toBe(0);
  });

  it("charges regexp() the compiles of the patterns an ad brings (issue 24 item 3)", () => {
    const b = new Budget(400_000);
    const terms = Array.from(
      { length: 20 },
      (_, i) => `regexp("(a{1000}){49}t${i}${Date.now()}", "aaa")`,
    ).join(" || ");
    const d = b.run(() =>
      decideMatch(null, { job: `[ Requirements = ${terms} ]`, machines: machines.slice(0, 1) }, ctx),
    );
    expect(d.outcome).toBe("budget_exceeded");
    expect(b.regexCompiles).toBeLessThanOrEqual(3);
  });

  it("charges a list a built-in builds by its elements, each an object of its own", () => {
    const used = (items: number) => {
      const b = new Budget(1e9);
      const d = b.run(() =>
        decideMatch(
          null,
          {
            job: `[ s = "${"a,".repeat(items)}"; Requirements = ${Array(20).fill('size(split(s, ","))').join(" + ")} > 0 ]`,
            machines: machines.slice(0, 1),
          },
          ctx,
        ),
      );
      expect(d.outcome).toBe("matched");
      return b.used;
    };
    // 20 splits of 15 more pieces each: at least 4 units a piece
    expect(used(16) - used(1)).toBeGreaterThanOrEqual(20 * 15 * 4);
  });

  it("charges a case-insensitive comparison of two strings by their length", () => {
    const used = (n: number, op: string) => {
      const b = new Budget(1e9);
      const d = b.run(() =>
        decideMatch(
          null,
          {
            job: `[ s = "${"a".repeat(n)}"; t = "${"A".repeat(n)}"; Requirements = ${Array(50)
              .fill(`(s ${op} t)`)
              .join(op === "!=" ? " || " : " && ")} ]`,
            machines: machines.slice(0, 1),
          },
          ctx,
        ),
      );
      expect(d.outcome).toBe(op === "==" || op === "<=" ? "matched" : "no_match");
      return b.used;
    };
    // strings of up to 32 characters ride on their lookups' units; their comparison did too
    for (const op of ["==", "!=", "<="])
      expect(used(32, op) - used(1, op), op).toBeGreaterThanOrEqual(50 * 4);
    // identical strings, or strings of different lengths, are answered without folding them
    const same = new Budget(1e9);
    same.run(() =>
      decideMatch(
        null,
        {
          job: `[ s = "${"a".repeat(32)}"; Requirements = ${Array(50).fill("(s == s)").join(" && ")} ]`,
          machines: machines.slice(0, 1),
        },
        ctx,
      ),
    );
    const short = new Budget(1e9);
    short.run(() =>
      decideMatch(
        null,
        {
          job: `[ s = "a"; Requirements = ${Array(50).fill("(s == s)").join(" && ")} ]`,
          machines: machines.slice(0, 1),
        },
        ctx,
      ),
    );
    expect(same.used).toBe(short.used);
  });
});

describe("Reading a decision's ads charges the decision's work budget (issue 24: the 240 KB doubling ad)", () => {
  const chain = (n: number) =>
    `[ Requirements = a0 > 0; ${Array.from({ length: n }, (_, i) => `a${i} = a${i + 1} + a${i + 1}`).join("; ")}; a${n} = 1 ]`;
  /** 2,000 slot ads of 20 attributes, about 1 MiB: the largest ordinary /v1/match body. */
  const slots = Array.from(
    { length: 2000 },
    (_, i) =>
      `[ MyType = "Machine"; Name = "slot1@node${i}.example.org"; Machine = "node${i}.example.org"; Arch = "X86_64"; OpSys = "LINUX"; Cpus = ${1 + (i % 32)}; Memory = ${2048 * (1 + (i % 16))}; Disk = ${1048576 * (2 + (i % 8))}; Mips = ${20000 + (i % 100)}; KFlops = 1500000; HasFileTransfer = true; State = "Unclaimed"; Activity = "Idle"; LoadAvg = 0.0${i % 10}; Draining = false; SlotType = "Partitionable"; StartdIpAddr = "<192.0.2.${i % 250}:9618>"; UidDomain = "example.org"; Start = true; Requirements = START && (TARGET.RequestMemory <= MY.Memory) && (TARGET.RequestCpus <= MY.Cpus) ]`,
  );

  it("charges the tokens read, the nodes compiled and the attributes of a large ad", () => {
    const ad = chain(10_000);
    const b = new Budget(1e9);
    const d = b.run(() => decideAdCheck(null, { kind: "job", ad }, ctx));
    expect(d.outcome).toBe("kept");
    // reading was once free (1 unit for 226 KB); now about one unit a character for this shape
    expect(b.used).toBeGreaterThan(ad.length / 2);
    for (const form of [
      ad.slice(2, -2).split("; ").join("\n"),
      JSON.stringify(
        Object.fromEntries(
          Array.from({ length: 10_000 }, (_, i) => [`a${i}`, `\\/Expr(a${i + 1} + a${i + 1})\\/`]),
        ),
      ),
    ]) {
      const c = new Budget(1e9);
      c.run(() =>
        decideAdCheck(
          null,
          { kind: "job", ad: form.startsWith("{") ? form.replace(/\\\\\//g, "\\/") : form },
          ctx,
        ),
      );
      expect(c.used, form.slice(0, 20)).toBeGreaterThan(10_000 * 8);
    }
  });

  it("ends reading an ad the budget cannot pay for with budget_exceeded, part-way", () => {
    const ad = chain(45_000); // about 1 MB, the largest ad a request may carry
    const b = new Budget(DEFAULT_DECISION_BUDGET);
    let code: string | undefined;
    try {
      b.run(() => decideMatch(null, { job: ad, machines: machines.slice(0, 1) }, ctx));
    } catch (e) {
      code = (e as BudgetExceeded).code;
    }
    expect(code).toBe("budget_exceeded");
    expect(b.used).toBeLessThan(DEFAULT_DECISION_BUDGET + 1000);
  });

  it("charges each expression text the shared cache lacks by its length (2,000 ads, each with its own)", () => {
    // ads whose Requirements texts are all different: each is parsed a second time, copied and kept
    const tag = Math.random().toString(36).slice(2);
    const own = (i: number) => `[ Name = "m${i}"; Requirements = "${tag}${i}${"x".repeat(200)}" != "" ]`;
    const fresh = Array.from({ length: 2000 }, (_, i) => own(i));
    const b = new Budget(DEFAULT_DECISION_BUDGET);
    let code: string | undefined;
    try {
      b.run(() => decideMatch(null, { job: "[ Requirements = true ]", machines: fresh }, ctx));
    } catch (e) {
      code = (e as BudgetExceeded).code;
    }
    expect(code).toBe("budget_exceeded");
    // the same text in every ad is parsed once
    const same = Array.from({ length: 2000 }, (_, i) => own(0).replace('"m0"', `"m${i}"`));
    const d = new Budget(DEFAULT_DECISION_BUDGET).run(() =>
      decideMatch(null, { job: "[ Requirements = true ]", machines: same }, ctx),
    );
    expect(d.outcome).toBe("matched");
  });

  it("charges parsing a new-syntax value by its tokens, before the parse starts (issue 24: the balanced sum, the long list)", () => {
    /** `(1+1)` doubled `levels` times: 2^levels ones, as many operators less one, and their parentheses. */
    const sum = (levels: number) => {
      let e = "1";
      for (let i = 0; i < levels; i++) e = `(${e}+${e})`;
      return e;
    };
    // 4,093 tokens (over 2,000 characters: parsed at once, never kept): read, parse, compile
    const b = new Budget(1e9);
    b.run(() => decideAdCheck(null, { kind: "job", ad: `[ x = ${sum(10)} ]` }, ctx));
    expect(b.used).toBeGreaterThanOrEqual(4093 * (0.5 + PARSE_UNITS_PER_TOKEN));
    // the hostile rows: 131,071 and 100,001 tokens whose parse the default budget cannot pay for end
    // the reading before they are parsed (both were parsed and compiled whole, 25–30 ms of CPU in workerd)
    for (const job of [
      `[ s = "a"; Requirements = ${sum(15)} > 0 ]`,
      `[ l = {${Array(50_000).fill("1").join(",")}}; Requirements = member(2, l) ]`,
    ]) {
      const c = new Budget(DEFAULT_DECISION_BUDGET);
      let code: string | undefined;
      try {
        c.run(() => decideMatch(null, { job, machines: machines.slice(0, 1) }, ctx));
      } catch (e) {
        code = (e as BudgetExceeded).code;
      }
      expect(code, job.slice(0, 30)).toBe("budget_exceeded");
    }
  });

  it("still reports a value nested past the limit when its parse is more than the budget can pay for", () => {
    // 50,000 links of `1 + 1 + …` and 50,000 parentheses: their first tokens are parsed all the same (PROBE_TOKENS)
    for (const ad of [
      `[ Requirements = ${Array(50_000).fill("1").join(" + ")} > 0 ]`,
      `[ a = ${"(".repeat(50_000)}1${")".repeat(50_000)} ]`,
    ]) {
      // the route's 400 naming the ad, not 422 budget_exceeded
      const b = new Budget(DEFAULT_DECISION_BUDGET);
      expect(() => b.run(() => decideAdCheck(null, { kind: "job", ad }, ctx)), ad.slice(0, 30)).toThrow(
        "expression nested too deeply",
      );
    }
  });

  it("charges a lookup of an expression LOOKUP_UNITS beyond the expression's own cost (issue 24: 40 levels of doubling)", () => {
    const b = new Budget(1e9);
    const d = b.run(() => decideMatch(null, { job: chain(10), machines: machines.slice(0, 1) }, ctx));
    expect(d.outcome).toBe("matched");
    // 1,023 lookups of `a(i+1) + a(i+1)` (2 units of its own each) and 1,024 of the literal
    expect(b.used).toBeGreaterThanOrEqual(1023 * (2 + LOOKUP_UNITS) + 1024);
  });

  it("still reads and matches the largest ordinary request (2,000 slot ads, 1 MiB) within the default budget", () => {
    const b = new Budget(DEFAULT_DECISION_BUDGET);
    const d = b.run(() =>
      decideMatch(
        null,
        {
          job: "[ RequestMemory = 2048; RequestCpus = 1; Requirements = TARGET.Memory >= RequestMemory; Rank = TARGET.Mips ]",
          machines: slots,
        },
        ctx,
      ),
    );
    expect(d.outcome).toBe("matched");
    expect(b.used).toBeLessThan(0.75 * DEFAULT_DECISION_BUDGET);
  });
});
