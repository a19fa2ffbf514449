import { describe, expect, it } from "vitest";
import { Budget, BudgetExceeded } from "../budget.js";
import { cachedLinear, compileLinear, MAX_COMPILES_PER_DECISION, TOO_MANY_PATTERNS } from "./index.js";
import { UNITS_PER_INSTRUCTION } from "./program.js";

/** A pattern no other test compiled (the caches are per isolate). */
let seq = 0;
function fresh(body: string): string {
  return `${body}q${seq++}z`;
}

describe("compiling request-supplied patterns is work of the decision (issue 24 item 3)", () => {
  it("charges a compile by the program it builds", () => {
    const b = new Budget(1e9);
    const r = b.run(() => cachedLinear(fresh("(a{1000}){49}"), "pcre"));
    expect(r.ok).toBe(true);
    // 49,101 instructions, built once for the matcher and once more for the yes/no tester
    expect(b.used).toBeGreaterThan(49_000 * UNITS_PER_INSTRUCTION);
    expect(b.regexCompiles).toBe(1);
  });

  it("stops a compile part-way when the budget runs out, and caches nothing", () => {
    const p = fresh("(a{1000}){49}");
    const b = new Budget(20_000);
    expect(() => b.run(() => cachedLinear(p, "pcre"))).toThrow(BudgetExceeded);
    expect(b.used).toBeLessThan(40_000);
    const again = new Budget(20_000);
    expect(() => again.run(() => cachedLinear(p, "pcre"))).toThrow(BudgetExceeded);
  });

  it("charges a pattern refused as too large for the instructions it built", () => {
    const b = new Budget(1e9);
    const r = b.run(() => cachedLinear(fresh("(a{1100}){49}"), "pcre"));
    expect(r.ok).toBe(false);
    expect(b.used).toBeGreaterThan(49_000 * UNITS_PER_INSTRUCTION);
  });

  it("compiles at most MAX_COMPILES_PER_DECISION distinct patterns in one decision; cached ones are free", () => {
    const b = new Budget(1e9);
    const first = fresh("a+b");
    const results = b.run(() =>
      Array.from({ length: MAX_COMPILES_PER_DECISION + 5 }, (_, i) =>
        cachedLinear(i === 0 ? first : fresh("a+b"), "onig"),
      ),
    );
    expect(results.slice(0, MAX_COMPILES_PER_DECISION).every((r) => r.ok)).toBe(true);
    const refused = results[MAX_COMPILES_PER_DECISION];
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.message).toBe(TOO_MANY_PATTERNS);
    // 32 (it was 64): 2,000 machine ads each bringing a pattern of their own compiled 64 of them,
    // with the ads' reading, in about 50 ms of CPU in workerd (issue 24)
    expect(MAX_COMPILES_PER_DECISION).toBe(32);
    expect(TOO_MANY_PATTERNS).toBe("Regex failure: more than 32 distinct patterns compiled in one decision");
    // a pattern the cache holds costs nothing, even past the bound
    const used = b.used;
    expect(b.run(() => cachedLinear(first, "onig")).ok).toBe(true);
    expect(b.used).toBe(used);
    // the next decision compiles again
    expect(new Budget(1e9).run(() => cachedLinear(fresh("a+b"), "onig")).ok).toBe(true);
  });

  it("outside a decision (policy compiles, the CLI) nothing is charged or counted", () => {
    const r = cachedLinear(fresh("(a{100}){49}"), "pcre");
    expect(r.ok).toBe(true);
    expect(compileLinear("(a{1000}){49}", "pcre").ok).toBe(true);
  });

  it("runs thousands of capture groups on the Pike VM instead of failing in RegExp", () => {
    const r = compileLinear("(a)".repeat(10_000) + "|(b)", "pcre");
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.fast).toBe(false);
    expect(r.value.test("b")).toBe(true);
    expect(r.value.exec("xb", 0)?.slice(0, 2)).toEqual(new Int32Array([1, 2]));
  });

  it("charges a match by the capture rows its threads copy", () => {
    const few = compileLinear("(a)(a)|(b)", "pcre");
    const many = compileLinear("(a)".repeat(150) + "|(b)", "pcre");
    if (!few.ok || !many.ok) throw new Error("does not compile");
    const s = "a".repeat(150);
    const b1 = new Budget(1e12);
    b1.run(() => few.value.exec(s, 0));
    const b2 = new Budget(1e12);
    b2.run(() => many.value.exec(s, 0));
    // about 11,600 thread steps, each copying a row of 302 capture slots
    expect(b2.used).toBeGreaterThan(11_000 * 20);
    expect(b1.used).toBeLessThan(10 * 150);
  });
});
