import { describe, expect, it } from "vitest";
import { compile } from "../../src/engines/classad/compile.js";
import { evaluateRequest } from "../../src/engines/classad/evaluate.js";
import { parseExpr } from "../../src/engines/classad/parser.js";

/** Operands of every kind `&&` treats differently: booleans, UNDEFINED, ERROR, numbers, a string. */
const OPERANDS = ["true", "false", "undefined", "error", "0", "1", "2.5", "0.0", '"s"', "x"];

const ctx = { now: 0, random: Math.random };
const value = (expr: string) => {
  const r = evaluateRequest({ expr, my: "x = 1" }, ctx);
  return `${r.type} ${r.value}`;
};

function compiled(text: string) {
  const p = parseExpr(text, false, true);
  if (!p.ok) throw new Error(p.message);
  return compile(p.node);
}

// Issue 31 goal 3: `a && b && c …` is compiled as one closure over its operands; it must give what
// the nested form gives (written with parentheses, which keep it nested) for every operand kind.
describe("a chain of && compiled as one closure", () => {
  it("gives the nested form's value for every three and four operands", () => {
    for (const a of OPERANDS)
      for (const b of OPERANDS)
        for (const c of OPERANDS) {
          expect(value(`${a} && ${b} && ${c}`), `${a} && ${b} && ${c}`).toBe(value(`(${a} && ${b}) && ${c}`));
          for (const d of ["true", "undefined", "error", '"s"'])
            expect(value(`${a} && ${b} && ${c} && ${d}`)).toBe(value(`((${a} && ${b}) && ${c}) && ${d}`));
        }
  });

  it("stops at the first false or ERROR, as the nested form does", () => {
    // a later operand that would fail the whole evaluation (random() with a bound of 0) is not reached
    expect(value("false && x && random(0)")).toBe("boolean false");
    expect(value("error && x && random(0)")).toBe("error error");
  });

  it("counts its nodes and height as the nested form's", () => {
    for (const k of [2, 3, 5, 40]) {
      const c = compiled(Array.from({ length: k }, (_, i) => `a${i}`).join(" && "));
      // 2k - 1 nodes; the leftmost operand k levels down
      expect(c.cost).toBe(1 + ((2 * k - 1) >> 1));
      expect(c.height).toBe(k);
    }
  });
});
