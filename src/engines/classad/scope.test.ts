import { describe, expect, it } from "vitest";
import { Budget } from "../common/budget.js";
import { adOf, type ClassAd as ClassAdLike } from "./classad.js";
import { compile } from "./compile.js";
import { evalAttr } from "./evaluate.js";
import { Compiled, type Node } from "./node.js";
import { parseExpr } from "./parser.js";
import { evalExpr } from "./scope.js";
import { EvalState } from "./state.js";
import { UNDEF, type Value } from "./values.js";

const ctx = { now: Date.UTC(2026, 0, 1), random: () => 0.5 };

function compiled(text: string): Compiled {
  const p = parseExpr(text);
  if (!p.ok) throw new Error(p.message);
  return compile(p.node);
}

describe("the cycle check of attribute lookups", () => {
  it("searches the lookup stack only for an expression in progress, in the ad it is in progress in", () => {
    // one compiled expression shared by two ads, as the shared expression cache shares them
    const c = compiled("TARGET.x");
    const a = adOf([["x", c]]);
    const b = adOf([["x", c]]);
    // a.x → b.x → a.x: the same expression in the same ad again is a cycle (UNDEFINED)
    const st = new EvalState(ctx);
    expect(evalAttr(a, "x", b, st)).toBe(UNDEF);
    // in progress in another ad it is no cycle: j.z0 → m.z (the same expression) → j.z
    const j = adOf([
      ["z0", compiled("TARGET.z")],
      ["z", 7],
    ]);
    const shared = j.slots[0] as Compiled;
    const m = adOf([["z", shared]]);
    expect(evalAttr(j, "z0", m, st)).toBe(7);
    expect(shared.active).toBe(0);
    expect(c.active).toBe(0);
  });

  it("searches and charges only the lookups in progress, not the entries a deeper evaluation left behind", () => {
    // j.z0 → m.z (the same expression, in progress in j: searched, not a cycle) → j.z
    const shared = compiled("TARGET.z");
    const j = adOf([
      ["z0", shared],
      ["z", 7],
    ]);
    const m = adOf([["z", shared]]);
    // a0 → a1 → … → a23: 24 lookups in progress at the deepest (the walk's charge is one unit per 8)
    const chain = adOf(
      Array.from({ length: 24 }, (_, i) => [`a${i}`, compiled(i === 23 ? "1" : `a${i + 1}`)]),
    );
    /** Values and units of each step, in one state, inside a budget. */
    const run = (steps: (() => [string, ClassAdLike, ClassAdLike | null])[]): [Value, number][] => {
      const budget = new Budget(1e9);
      return budget.run(() => {
        const st = new EvalState(ctx);
        return steps.map((step) => {
          const [name, my, target] = step();
          const before = budget.used;
          const v = evalAttr(my, name, target, st);
          st.flushWork();
          return [v, budget.used - before] as [Value, number];
        });
      });
    };
    const pair = (): [string, ClassAdLike, ClassAdLike | null] => ["z0", j, m];
    const deep = (): [string, ClassAdLike, ClassAdLike | null] => ["a0", chain, null];
    const [alone] = run([pair]);
    expect(alone[0]).toBe(7);
    // again in the same state (its entry for m.z left one above), and after the 24-deep chain
    expect(run([pair, pair, deep, pair, pair])).toEqual([
      alone,
      alone,
      [1, expect.any(Number)],
      alone,
      alone,
    ]);
    expect(shared.active).toBe(0);
  });

  it("stops counting the expressions of an evaluation a throw abandoned when the state is reset", () => {
    const node: Node = { k: "lit", v: 1 };
    const c = new Compiled(() => {
      throw new Error("abandoned");
    }, node);
    const ad = adOf([["x", c]]);
    const st = new EvalState(ctx).plain(ad);
    expect(() => evalExpr(c, ad, st)).toThrow("abandoned");
    expect(c.active).toBe(1);
    st.reset();
    expect(c.active).toBe(0);
  });
});
