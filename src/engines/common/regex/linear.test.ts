import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Budget, BudgetExceeded, spend } from "../budget.js";
import { cachedLinear, compileLinear, compileVmOnly, Lru, setRegexSpend, type Origin } from "./index.js";

const ORIGINS: Origin[] = ["re2", "python", "onig", "pcre"];

function compiled(p: string, o: Origin, flags = {}) {
  const r = compileLinear(p, o, flags);
  if (!r.ok) throw new Error(`${p} does not compile: ${r.error.kind}`);
  return r.value;
}

describe("catastrophic patterns of issue 12, through every origin", () => {
  for (const origin of ORIGINS) {
    for (const n of [30, 10_000]) {
      it(`${origin}: (a|a)*b and (a+)+$ on ${n} a's`, () => {
        const s = "a".repeat(n);
        expect(compiled("(a|a)*b", origin).test(s)).toBe(false);
        expect(compiled("(a|a)*b", origin).exec(s, 0)).toBeNull();
        expect(compiled("(a|a)*b", origin).test(s + "b")).toBe(true);
        expect(compiled("(a+)+$", origin).test(s)).toBe(true);
        expect(Array.from(compiled("(a+)+$", origin).exec(s, 0) ?? [])).toEqual([0, n, 0, n]);
        expect(compiled("(a+)+b", origin).test(s + "!")).toBe(false);
        expect(compiled("^(a|aa)+$", origin).test(s + "!")).toBe(false);
      });
    }
  }
});

describe("the engine each pattern runs on", () => {
  it("keeps RegExp for deterministic patterns and uses the Pike VM for ambiguous ones", () => {
    expect(compiled("^[0-9.]+/[0-9]+$", "onig").fast).toBe(true);
    expect(compiled("^(?<n>[0-9]+)(?<u>[kmgt]i?)?$", "onig", { i: true }).fast).toBe(true);
    expect(compiled("(a|a)*b", "onig").fast).toBe(false);
    expect(compiled("(a+)+$", "re2").fast).toBe(false);
    expect(compiled("(.*)-(.*)", "pcre").fast).toBe(false);
  });
  it("keeps RegExp for a few overlapping choices outside loops (pScheduler's duration pattern) and charges their paths", () => {
    const duration =
      "^(?:P(?:(?:(?<weeks>[0-9]+)W)?(?<days>[0-9]+)D)?(?:T(?:(?<hours>[0-9]+)H)?(?:(?<minutes>[0-9]+)M)?(?:(?<seconds>[0-9]+(?:[.][0-9]+)?)S)?)?|(?<invalid>.*))$";
    const rx = compiled(duration, "onig");
    expect(rx.fast).toBe(true);
    const vm = compileVmOnly(duration, "onig")!;
    for (const s of [
      "PT2S",
      "P1W2D",
      "PT1H30M",
      "P1DT2.5S",
      "PT",
      "P",
      "PTX",
      "1H",
      "P12",
      "PT10M30S\n",
      "PT1\nS",
      "",
    ]) {
      expect(Array.from(rx.exec(s, 0) ?? [])).toEqual(Array.from(vm.exec(s, 0) ?? []));
    }
    // four two-way choices: 16 paths per attempt, charged as such
    const b = new Budget(Number.POSITIVE_INFINITY);
    b.run(() => rx.exec("PT2S", 0));
    expect(b.used).toBe(16 * 5);
    // a fifth overlapping choice, or one inside a loop, goes to the Pike VM
    expect(compiled("^(a|a)(a|a)(a|a)(a|a)(a|a)b", "onig").fast).toBe(false);
    expect(compiled("^(a|a)(a|a)(a|a)(a|a)b", "onig").fast).toBe(true);
    expect(compiled("^(?:a|a)*b", "onig").fast).toBe(false);
    expect(compiled("^(?:a?a){2}b", "onig").fast).toBe(false);
  });
  it("gives the same answers on both paths of a deterministic unanchored pattern (short and long inputs)", () => {
    const r = compiled("(?<v>[0-9]+)(?<u>[HMS])", "onig");
    const short = "PT10M30S";
    const long = "x".repeat(300) + short;
    expect(Array.from(r.exec(short, 0) ?? [])).toEqual([2, 5, 2, 4, 4, 5]);
    expect(Array.from(r.exec(long, 0) ?? [])).toEqual([302, 305, 302, 304, 304, 305]);
    expect(Array.from(r.exec(long, 303) ?? [])).toEqual([303, 305, 303, 304, 304, 305]);
  });
});

describe("the Pike VM agrees with RegExp where their meanings coincide", () => {
  // Go's syntax with these characters means what JavaScript's u-flag syntax means
  const atoms = fc.constantFrom("a", "b", "c", ".", "[ab]", "[^a]", "\\d", "x", "(a|b)", "(ab|a)", "(?:a|)");
  const quant = fc.constantFrom("", "", "*", "+", "?", "*?", "+?", "{1,2}", "{2}");
  const pattern = fc
    .array(fc.tuple(atoms, quant), { minLength: 1, maxLength: 5 })
    .chain((parts) =>
      fc
        .constantFrom("", "^")
        .chain((pre) =>
          fc.constantFrom("", "$").map((post) => pre + parts.map(([a, q]) => a + q).join("") + post),
        ),
    );
  const subject = fc
    .array(fc.constantFrom("a", "b", "c", "x", "1", "\n"), { maxLength: 12 })
    .map((cs) => cs.join(""));
  it("finds the same leftmost-first match and captures", () => {
    fc.assert(
      fc.property(pattern, fc.array(subject, { minLength: 1, maxLength: 5 }), (p, subjects) => {
        const vm = compileVmOnly(p, "re2");
        expect(vm).not.toBeNull();
        const js = new RegExp(p, "du");
        const layered = compiled(p, "re2");
        for (const s of subjects) {
          const m = js.exec(s);
          const want =
            m === null
              ? null
              : (m.indices as Array<[number, number] | undefined>).flatMap((span) =>
                  span === undefined ? [-1, -1] : span,
                );
          const got = vm?.exec(s, 0);
          expect(got === null || got === undefined ? null : Array.from(got)).toEqual(want);
          expect(vm?.test(s)).toBe(m !== null);
          expect(layered.test(s)).toBe(m !== null);
          expect(layered.exec(s, 0) === null).toBe(m === null);
        }
      }),
      { numRuns: 400, seed: 12 },
    );
  }, 60_000);
});

describe("every path of the layer agrees with the Pike VM alone", () => {
  const atoms = fc.constantFrom(
    "a",
    "B",
    "(?i:a)",
    "(?i)b",
    "[[:upper:]]",
    "\\d",
    "\\w",
    "\\s",
    "\\b",
    "(?<=a)",
    "(?!b)",
    ".",
    "É",
    "(a|b)",
    "$",
    "^",
  );
  const quant = fc.constantFrom("", "", "*", "+", "?", "{2}");
  const pattern = fc
    .array(fc.tuple(atoms, quant), { minLength: 1, maxLength: 4 })
    .map((parts) =>
      parts
        .map(([a, q]) =>
          a === "$" || a === "^" || a.startsWith("(?<=") || a.startsWith("(?!") || a === "\\b" ? a : a + q,
        )
        .join(""),
    );
  const subject = fc
    .array(fc.constantFrom("a", "A", "b", "B", "1", "٣", "é", "É", " ", "\n"), { maxLength: 10 })
    .map((cs) => cs.join(""));
  it("gives the same answers and spans in every origin and with i", () => {
    fc.assert(
      fc.property(
        pattern,
        fc.constantFrom<Origin>("onig", "pcre", "python"),
        fc.boolean(),
        fc.array(subject, { minLength: 1, maxLength: 4 }),
        (p, origin, i, subjects) => {
          const layered = compileLinear(p, origin, { i });
          const vm = compileVmOnly(p, origin, { i });
          expect(layered.ok).toBe(vm !== null);
          if (!layered.ok || vm === null) return;
          for (const s of subjects) {
            expect(layered.value.test(s)).toBe(vm.test(s));
            const a = layered.value.exec(s, 0);
            const b = vm.exec(s, 0);
            expect(a === null ? null : Array.from(a)).toEqual(b === null ? null : Array.from(b));
          }
        },
      ),
      { numRuns: 400, seed: 13 },
    );
  }, 60_000);
});

describe("translation details", () => {
  it("steps over surrogate pairs as one character", () => {
    expect(Array.from(compiled("(.)b", "onig").exec("😀b", 0) ?? [])).toEqual([0, 3, 0, 2]);
    expect(compiled("^.$", "pcre").test("😀")).toBe(true);
    expect(compileVmOnly("^.$", "pcre")?.test("😀")).toBe(true);
  });
  it("runs look-arounds of any length as tables", () => {
    const r = compileVmOnly("a(?=b+c)", "onig");
    expect(r?.test("abbbc")).toBe(true);
    expect(r?.test("abbb")).toBe(false);
    expect(compileVmOnly("(?<!x)y", "pcre")?.test("xy")).toBe(false);
    expect(compileVmOnly("(?<![0-9]+)y", "pcre")?.test("ay")).toBe(true);
  });
  it("reports every refused construct with its offset", () => {
    const cases: Array<[string, Origin, string, number]> = [
      ["(a)\\1", "onig", "back-reference", 3],
      ["(?>a)", "pcre", "atomic group", 0],
      ["a*+", "python", "possessive quantifier", 1],
      ["(?(1)a|b)", "pcre", "conditional", 0],
      ["(?R)", "pcre", "recursion", 0],
      ["(?=(a))", "onig", "capture group inside a look-around", 3],
    ];
    for (const [p, o, construct, offset] of cases) {
      const r = compileLinear(p, o);
      expect(r.ok).toBe(false);
      if (!r.ok)
        expect([r.error.kind, r.error.construct, r.error.offset]).toEqual(["unsupported", construct, offset]);
    }
  });
  it("refuses groups nested past 1,000 (and stacked quantifiers past it), in every dialect, without overflowing the stack", () => {
    const nested = (n: number) => "(".repeat(n) + "a+" + ")".repeat(n) + "+$";
    for (const o of ["re2", "python", "onig", "pcre"] as Origin[]) {
      expect(compileLinear(nested(1000), o).ok, o).toBe(true);
      for (const n of [1001, 5015, 100_000]) {
        const r = compileLinear(nested(n), o);
        expect(r.ok, `${o} ${n}`).toBe(false);
        if (!r.ok) expect([r.error.kind, r.error.offset]).toEqual(["too-deep", 1000]);
      }
    }
    // Oniguruma alone stacks quantifiers; each is a level of the tree
    expect(compileLinear("a" + "{1}".repeat(999), "onig").ok).toBe(true);
    const stacked = compileLinear("a" + "{1}".repeat(5000), "onig");
    expect(stacked.ok).toBe(false);
    if (!stacked.ok) expect(stacked.error.kind).toBe("too-deep");
  });
  it("refuses a pattern whose program would be too large", () => {
    const r = compileLinear("((a{100}){100}){100}", "onig");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.kind).toBe("too-large");
  });
});

describe("caches and the work hook", () => {
  it("keeps at most its capacity, evicting the least recently used", () => {
    const lru = new Lru<number>(2);
    lru.set("a", 1);
    lru.set("b", 2);
    expect(lru.get("a")).toBe(1);
    lru.set("c", 3);
    expect([lru.get("a"), lru.get("b"), lru.get("c"), lru.size]).toEqual([1, undefined, 3, 2]);
  });
  it("gives the same compiled pattern for the same request-supplied text", () => {
    const a = cachedLinear("x+y", "onig");
    expect(cachedLinear("x+y", "onig")).toBe(a);
    expect(cachedLinear("x+y", "onig", { i: true })).not.toBe(a);
  });
  it("keeps RE2's U and Python's a apart in the cache: each option set compiles its own matcher", () => {
    const greedy = cachedLinear("a+?", "re2");
    const lazy = cachedLinear("a+?", "re2", { U: true });
    expect(lazy).not.toBe(greedy);
    if (!greedy.ok || !lazy.ok) throw new Error("a+? compiles");
    expect(greedy.value.match("aaa", 0)?.[0]).toBe("a");
    expect(lazy.value.match("aaa", 0)?.[0]).toBe("aaa");
    const unicode = cachedLinear("\\d", "python");
    const ascii = cachedLinear("\\d", "python", { a: true });
    if (!unicode.ok || !ascii.ok) throw new Error("\\d compiles");
    expect(unicode.value.test("\u0663")).toBe(true);
    expect(ascii.value.test("\u0663")).toBe(false);
  });
  it("tells the installed spend callback how much work a match did", () => {
    let units = 0;
    setRegexSpend((n) => (units += n));
    try {
      compiled("(a|a)*b", "onig").exec("a".repeat(1000) + "b", 0);
    } finally {
      setRegexSpend(spend);
    }
    expect(units).toBeGreaterThan(1000);
  });
  it("charges the current decision's budget, and a spent budget stops a long match part-way", () => {
    const rx = compiled("(a|b|ab)*c", "pcre");
    const s = "ab".repeat(200_000) + "c";
    const full = new Budget(Number.POSITIVE_INFINITY);
    full.run(() => rx.exec(s, 0));
    expect(full.used).toBeGreaterThan(400_000);
    const small = new Budget(1_000);
    expect(() => small.run(() => rx.exec(s, 0))).toThrow(BudgetExceeded);
    expect(small.used).toBeLessThan(full.used / 4);
    const tester = new Budget(1_000);
    expect(() => tester.run(() => compiled("(a+)+$", "onig").test("a".repeat(200_000) + "!"))).toThrow(
      BudgetExceeded,
    );
  });
});
