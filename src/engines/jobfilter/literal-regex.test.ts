import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileLinear } from "../common/regex/index.js";
import { literalTest } from "./literal-regex.js";

const patternChars = fc.constantFrom(
  "a",
  "b",
  "^",
  "$",
  "\\",
  ".",
  "-",
  "/",
  "*",
  " ",
  "é",
  "😀",
  "(",
  ")",
  "?",
  "|",
  ":",
  "]",
);
const subjectChars = fc.constantFrom(
  "a",
  "b",
  ".",
  "-",
  "/",
  "$",
  "^",
  "\\",
  " ",
  "é",
  "😀",
  "\ud83d",
  "*",
  ":",
  "\n",
);

describe("literalTest", () => {
  it("agrees with the PCRE matcher on every pattern it accepts", () => {
    fc.assert(
      fc.property(
        fc.array(patternChars, { maxLength: 6 }),
        fc.array(fc.array(subjectChars, { maxLength: 8 }), { maxLength: 10 }),
        (p, subjects) => {
          const source = p.join("");
          const compiled = compileLinear(source, "pcre");
          if (!compiled.ok) return;
          const re = compiled.value;
          const test = literalTest(source);
          if (test === null) return;
          const plain = source.replace(/\\(.)/g, "$1").replace(/^\^/, "").replace(/\$$/, "");
          for (const s of [...subjects.map((c) => c.join("")), plain, `x${plain}`, `${plain}x`, `${plain}\n`])
            expect(test(s)).toBe(re.test(s));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("takes anchored and escaped text, and leaves real patterns to the regex engine", () => {
    expect(literalTest("^db1\\.")?.("db1.example")).toBe(true);
    expect(literalTest("^db1\\.")?.("xdb1.example")).toBe(false);
    expect(literalTest("ticket 7$")?.("maintenance ticket 7")).toBe(true);
    expect(literalTest("^$")?.("")).toBe(true);
    expect(literalTest("a.b")).toBeNull();
    expect(literalTest("a$b")).toBeNull();
    expect(literalTest("\\d")).toBeNull();
    expect(literalTest("é")).toBeNull();
  });
});
