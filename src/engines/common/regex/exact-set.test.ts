import { describe, expect, it } from "vitest";
import { compileLinear, inspectPattern } from "./index.js";

/** Texts near the given ones: each with a character added, removed or changed, and a final newline. */
function near(texts: readonly string[]): string[] {
  const out = ["", "x", "\n"];
  for (const t of texts)
    out.push(t + "\n", t + "x", "x" + t, t.slice(1), t.slice(0, -1), t.toUpperCase(), t + t);
  return out;
}

describe("the whole texts of a small anchored pattern (exact-set.ts)", () => {
  it("lists exactly the texts the compiled pattern matches", () => {
    const patterns = [
      "^(u1|v1)$",
      "^(?:ab|cd)e$",
      "^(a|b)[xyz]c?$",
      "^(a|b){2}$",
      "^(x\\.y|z)$",
      "^(a|a)$",
      "^(?:ä|é)$",
    ];
    for (const p of patterns) {
      const facts = inspectPattern(p, "re2");
      if (!facts.ok || facts.value.exact === undefined) throw new Error(`${p} has whole texts`);
      const re = compileLinear(p, "re2");
      if (!re.ok) throw new Error(p);
      const exact = facts.value.exact;
      expect(new Set(exact).size, p).toBe(exact.length);
      for (const t of exact) expect(re.value.test(t), `${p} on ${JSON.stringify(t)}`).toBe(true);
      for (const t of near(exact))
        expect(exact.includes(t), `${p} on ${JSON.stringify(t)}`).toBe(re.value.test(t));
    }
  });

  it("gives none for patterns that are not anchored at both ends, fold case, repeat without bound or match many texts", () => {
    for (const p of [
      "(u1|v1)$",
      "^(u1|v1)",
      "^(u1|v1)+$",
      "(?i)^ab$",
      "^[a-z]$",
      "^(?m)a$",
      "^a\\b$",
      "^.$",
      "^(a|b){5}$",
      "^[ab]{4}c{250}$",
    ])
      expect(
        inspectPattern(p, "re2").ok &&
          (inspectPattern(p, "re2") as { value: { exact?: string[] } }).value.exact,
        p,
      ).toBeFalsy();
  });
});
