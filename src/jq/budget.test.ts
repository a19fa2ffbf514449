import { describe, expect, it } from "vitest";
import { Budget, BUDGET_EXCEEDED_MESSAGE, DEFAULT_DECISION_BUDGET } from "../engines/common/budget.js";
import { BUDGET_MESSAGE, compileJq } from "./index.js";

function program(src: string) {
  const c = compileJq(src);
  if (!c.ok) throw new Error(c.error[0].message);
  return c.value;
}

/** Runs `src` under a fresh decision budget of `limit` units; returns the result and the units used. */
function within(limit: number, src: string, input: unknown = null) {
  const b = new Budget(limit);
  const r = b.run(() => program(src).run(input as never));
  return { r, used: b.used };
}

describe("jq charges the decision's work budget by the size of what it builds", () => {
  it("counts elements built, not steps: an array of n elements costs at least n", () => {
    expect(within(1e9, "[range(1000)] | length").used).toBeGreaterThanOrEqual(1000);
    expect(within(1e9, "[range(10)] + [range(1000)] | length").used).toBeGreaterThanOrEqual(1010);
    expect(within(1e9, '"x" * 5000 | length').used).toBeGreaterThanOrEqual(5000);
    expect(within(1e9, "[range(2000)] | tostring | length").used).toBeGreaterThanOrEqual(2000 * 3);
  });

  it("ends doubling, huge builds and object copies with budget_exceeded, quickly", () => {
    for (const src of [
      "reduce range(40) as $i ([1]; .+.)",
      "[range(1e6)] | length",
      'reduce range(40) as $i ("ab"; . + .) | length',
      "reduce range(1e5) as $i ({}; .[$i | tostring] = $i) | length",
      "[(.a, .b) = range(1e400)] | length",
      "[range(3000)] as $a | $a - $a",
    ]) {
      const { r } = within(100_000, src, {});
      expect(r.error, src).toBe(BUDGET_EXCEEDED_MESSAGE);
    }
  });

  it("leaves programs within the budget alone, and try cannot catch a spent budget", () => {
    expect(within(100_000, "[range(100)] | add").r.outputs).toEqual([4950]);
    expect(within(1000, "try ([range(1e6)] | length) catch 0").r.error).toBe(BUDGET_EXCEEDED_MESSAGE);
  });

  it("shares one budget between the runs of a decision", () => {
    const b = new Budget(15_000);
    const p = program("[range(3000)] | length");
    const first = b.run(() => p.run(null));
    const second = b.run(() => p.run(null));
    expect(first.outputs).toEqual([3000]);
    expect(second.error).toBe(BUDGET_EXCEEDED_MESSAGE);
  });

  it("keeps its own step budget and message outside a decision", () => {
    expect(program("[range(1e6)] | length").run(null, { maxSteps: 1000 }).error).toBe(BUDGET_MESSAGE);
    expect(program("reduce range(40) as $i ([1]; .+.)").run(null).error).toBe(BUDGET_MESSAGE);
  });

  it("bounds assignment to many paths: one copy per container, charged per path (issue 24 item 2)", () => {
    // jq 1.7.1 answers this in 0.06 s; a copy per path made it quadratic (40 s on 50,000)
    const slices = "[range(.)] | .[range(length)|{start:.,end:(.+1)}] = [1] | add";
    const big = within(1e9, slices, 20_000);
    expect(big.r.outputs).toEqual([20_000]);
    // linear: twice the elements cost about twice the units, not four times
    const small = within(1e9, slices, 10_000);
    expect(big.used).toBeLessThan(2.5 * small.used);
    expect(within(1e9, "[range(.)] | .[] |= . + 1 | add", 20_000).used).toBeLessThan(
      2.5 * within(1e9, "[range(.)] | .[] |= . + 1 | add", 10_000).used,
    );
    expect(within(100_000, slices, 50_000).r.error).toBe(BUDGET_EXCEEDED_MESSAGE);
  });

  it("writes each path as it is generated, charging the work as it is done (issue 24 item 2)", () => {
    // jq 1.7.1 assigns through `reduce path(paths) as $p (.; setpath(...))`: the first write's error
    // ends the run, where collecting every path first ran a billion paths into the budget
    for (const [src, error] of [
      [
        "[1] | .[range(1e9)|{start:.,end:(.+1)}] = 1",
        "A slice of an array can only be assigned another array",
      ],
      ['[1,2] | .[range(1e9)] |= error("stop")', "stop"],
      ['[1] | .[range(1e9)] += "x"', 'number (1) and string ("x") cannot be added'],
    ]) {
      const { r, used } = within(1e7, src);
      expect(r.error, src).toBe(error);
      expect(used, src).toBeLessThan(100);
    }
    // the 50,000-slice assignment meets the default decision budget while it writes, after at most
    // as many paths as the budget pays for (each path: its key, its slice and its write)
    const slices = "[range(.)] | .[range(length)|{start:.,end:(.+1)}] = [1] | add";
    const all = within(1e9, slices, 50_000).used;
    expect(all).toBeGreaterThan(2 * DEFAULT_DECISION_BUDGET);
    const cut = within(DEFAULT_DECISION_BUDGET, slices, 50_000);
    expect(cut.r.error).toBe(BUDGET_EXCEEDED_MESSAGE);
    expect(cut.used).toBe(DEFAULT_DECISION_BUDGET + 1);
  });

  it("charges a slice by the elements or characters it copies", () => {
    // n slices of a suffix copy n²/2 elements: 4 GB for n = 50,000 once went uncharged
    const suffixes = "[range(length) as $i | .[$i:]] | length";
    expect(within(1e9, `[range(.)] | ${suffixes}`, 2000).used).toBeGreaterThan((2000 * 2000) / 2);
    expect(within(1e9, `"x" * . | ${suffixes}`, 2000).used).toBeGreaterThan((2000 * 2000) / 2);
    expect(within(DEFAULT_DECISION_BUDGET, `[range(.)] | ${suffixes}`, 50_000).r.error).toBe(
      BUDGET_EXCEEDED_MESSAGE,
    );
    // the whole array is shared, not copied (it stays a path)
    expect(within(1e9, "[range(.)] | [range(100) as $i | .[0:]] | length", 2000).used).toBeLessThan(
      2000 * 10,
    );
  });

  it("never shares a container the assignment still writes into with the filter of |= (issue 24 item 2)", () => {
    // the second path hands `.a` (copied by the first) to the filter, which returns its first element twice
    const src =
      '(.a[0][0], .a, .a[0][0]) |= (if type == "array" and length == 2 then [.[0], .[0]] else . + 1 end)';
    expect(within(1e9, src, { a: [[0], [0]] }).r.outputs).toEqual([{ a: [[2], [1]] }]);
  });

  it("ends subnormal math (issue 24 item 1) and prints deep error values (item 8) without a stack overflow", () => {
    expect(within(1000, "1e-310 | [significand, frexp, logb]").r.outputs).toEqual([
      [1.1505236063118787, [0.5752618031559393, -1029], -1030],
    ]);
    const deep = within(1e9, "reduce range(20000) as $i (0; [.]) | error");
    expect(deep.r.error).toBe("[".repeat(20000) + "0" + "]".repeat(20000) + " (not a string)");
    expect(within(1e9, "reduce range(20000) as $i (0; {a: .}) | tojson | length").r.outputs).toEqual([
      20000 * 6 + 1,
    ]);
  });

  it("charges walks over values that share their parts (2^40 nodes built in 40 steps)", () => {
    for (const src of [
      "reduce range(40) as $i (0; [., .]) | tojson",
      "reduce range(40) as $i (0; [., .]) | error",
      "reduce range(40) as $i (0; [., .])",
    ])
      expect(within(100_000, src).r.error, src).toBe(BUDGET_EXCEEDED_MESSAGE);
  });

  it("charges every key a program sets into an object, where workerd pays about 1.4 µs for a new one (issue 24)", () => {
    // each ran to the end under the default budget, 100,000 keys, 110–140 ms of CPU in workerd
    for (const src of [
      'reduce range(1e5) as $i ({}; .["k\\($i)"] = $i) | length',
      '[range(1e5) | {("k\\(.)"): 1}] | length',
      'INDEX(range(1e5); "k\\(.)") | length',
    ])
      expect(within(DEFAULT_DECISION_BUDGET, src).r.error, src).toBe(BUDGET_EXCEEDED_MESSAGE);
    // the same programs finish under a budget that pays for their keys
    expect(within(1e9, 'reduce range(1000) as $i ({}; .["k\\($i)"] = $i) | length').r.outputs).toEqual([
      1000,
    ]);
    // an object copied to set one key costs its keys before the copy is made: at most about
    // sqrt(2 × budget / 3) keys are set one by one (632 when a copied key cost 2)
    const lengths: number[] = [];
    const b = new Budget(DEFAULT_DECISION_BUDGET);
    const r = b.run(() =>
      program("reduce range(1e5) as $i ({}; .[$i | tostring] = $i | debug(length))").run(null, {
        debug: (m) => void lengths.push((m as [string, number])[1]),
      }),
    );
    expect(r.error).toBe(BUDGET_EXCEEDED_MESSAGE);
    expect(lengths.length).toBeGreaterThan(400);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(520);
  });

  it("charges a value builtin its input before it runs, and from_entries its keys (issue 24)", () => {
    // a request array the budget cannot pay for never reaches the builtin: its error at the last element is not met
    const codepoints = [...Array<number>(500_000).fill(65), "x"];
    expect(within(DEFAULT_DECISION_BUDGET, "implode", codepoints).r.error).toBe(BUDGET_EXCEEDED_MESSAGE);
    const entries = [...Array.from({ length: 30_000 }, (_, i) => ({ key: `k${i}`, value: i })), 5];
    expect(within(DEFAULT_DECISION_BUDGET, "from_entries", entries).r.error).toBe(BUDGET_EXCEEDED_MESSAGE);
    expect(within(1e9, "from_entries | length", entries.slice(0, -1)).r.outputs).toEqual([30_000]);
  });

  it("charges objects and strings built on the single-valued path as the general path does (issue 24)", () => {
    // `{a: $x, b: $x}` and `"k\(.)"` have one output, so they run as direct evaluators, which built
    // them for nothing: 133,000 objects of the `10^6 objects` row, 30 ms of CPU in workerd
    const units = (src: string) => within(1e9, src).used;
    const base = units("[range(1000) as $x | $x] | length");
    // a unit a key, and the object (ALLOC, 3)
    expect(units("[range(1000) as $x | {a: $x, b: $x}] | length") - base).toBe(1000 * (2 + 3));
    // the same object on the general path (a value with two outputs, one of them taken)
    expect(units("[range(1000) as $x | first({a: $x, b: ($x, $x)})] | length") - base).toBeGreaterThanOrEqual(
      1000 * (2 + 3),
    );
    // a string: its length and two allocations a part, as strGen charges ("k", the value, "")
    const str = units('[range(1000) | "k\\(.)"] | length') - units("[range(1000) | .] | length");
    const chars = Array.from({ length: 1000 }, (_, i) => `k${i}`.length).reduce((a, b) => a + b, 0);
    expect(str).toBeGreaterThanOrEqual(chars + 1000 * 2 * 3 * 2);
    expect(
      units('[range(1000) | first("k\\(.)", 1)] | length') - units("[range(1000) | first(., 1)] | length"),
    ).toBe(str);
    // the `from_entries` row: the entries' objects and keys end it at about 15,000 of its 100,000
    const r = within(
      DEFAULT_DECISION_BUDGET,
      '[limit(20000; range(1e5) | {key: "k\\(.)", value: .})] | length',
    );
    expect(r.r.error).toBe(BUDGET_EXCEEDED_MESSAGE);
  });

  it("charges quadratic searches before they run", () => {
    expect(within(100_000, '("a" * 20000) as $s | $s | indices($s[:10000]) | length').r.error).toBe(
      BUDGET_EXCEEDED_MESSAGE,
    );
    expect(within(100_000, "[range(3000)] as $a | $a | contains($a)").r.error).toBe(BUDGET_EXCEEDED_MESSAGE);
  });
});
