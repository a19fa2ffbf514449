import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileLinear } from "../common/regex/index.js";
import { literalTest, requiredGlob, requiredLiteral } from "./literal-regex.js";

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

describe("requiredLiteral", () => {
  it("finds the longest run every match holds, as the regex layer reads it", () => {
    expect(requiredLiteral("[0-9]7\\.ex(a|b)mple")).toBe("7.ex");
    expect(requiredLiteral("^db[0-9]+\\.example\\.com$")).toBe(".example.com");
    expect(requiredLiteral("abc?d")).toBe("ab");
    expect(requiredLiteral("x{2}yz")).toBe("yz");
    expect(requiredLiteral("a|b")).toBeNull();
    expect(requiredLiteral("(?i)abc")).toBeNull();
    expect(requiredLiteral("\\x41bc")).toBe("Abc");
    expect(requiredLiteral("[[:alpha:]]x")).toBe("x");
    expect(requiredLiteral("a(?:bc)d")).toBe("abcd");
    expect(requiredLiteral("\\Qa.b\\E")).toBe("a.b");
    expect(requiredLiteral("(abc)+")).toBeNull();
    expect(requiredLiteral("[0-9]+")).toBeNull();
  });

  it("is contained in every string the engine's regex matches", () => {
    const chars = fc.constantFrom(
      "a",
      "b",
      "c",
      ".",
      "\\",
      "[",
      "]",
      "(",
      ")",
      "|",
      "?",
      "*",
      "+",
      "{",
      "}",
      "1",
      ",",
      "^",
      "$",
      "-",
      "d",
      "A",
      // escapes and groups the regex layer reads literals through
      "\\x41",
      "\\x2e",
      "[[:alpha:]]",
      "(?:",
      "(?i)",
      "\\Q",
      "\\E",
    );
    fc.assert(
      fc.property(
        fc.array(chars, { maxLength: 10 }),
        fc.array(fc.constantFrom("a", "b", "c", "A", "B", ".", "1", "-", "{", "}", ","), { maxLength: 12 }),
        (p, s) => {
          const source = p.join("");
          const lit = requiredLiteral(source);
          if (lit === null) return;
          const compiled = compileLinear(source, "pcre");
          if (!compiled.ok) return;
          const re = compiled.value;
          const subject = s.join("");
          if (re.test(subject)) expect(subject).toContain(lit);
          // the literal placed in the subject: a pattern matching its own literal is no special case
          const withLit = subject + lit;
          if (re.test(withLit)) expect(withLit).toContain(lit);
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe("requiredGlob", () => {
  it("is the run of single characters that rules out the most ASCII text, as SQLite GLOBs from a literal character where it can", () => {
    // no literal: one GLOB per character of the position admitting the fewest, the positions before it dropped
    expect(requiredGlob("[0-9][05][^0-9]")).toEqual(["*0[^0-9]*", "*5[^0-9]*"]);
    expect(requiredGlob("(?i)ab")).toEqual(["*A[Bb]*", "*a[Bb]*"]);
    // from the first literal character
    expect(requiredGlob("[0-9]7\\.ex(a|b)mple")).toEqual(["*7.ex*"]);
    // anchored at the start: no leading `*`
    expect(requiredGlob("^db[0-9]+")).toEqual(["db*"]);
    // `.` is all but a newline; GLOB's own characters in a class of their own
    expect(requiredGlob("a.b")).toEqual(["*a[^\n]b*"]);
    expect(requiredGlob("x[]^-]y")).toEqual(["*x[]^-]y*"]);
    expect(requiredGlob("z[-^]")).toEqual(["*z[-^]*"]);
    expect(requiredGlob("q[*?[]")).toEqual(["*q[*?[]*"]);
    // every position admitting many: the whole run, from its first class
    expect(requiredGlob("\\d\\d[^a]")).toEqual(["*[0-9][0-9][^a]*"]);
    // a run cut at its 32 positions goes on in a new one, which is not at the start any more
    expect(requiredGlob(`^${".".repeat(32)}xyz`)).toEqual(["*xyz*"]);
    // a character that is not ASCII: any such one
    expect(requiredGlob("é[0-9]")).toEqual(["*[^\u0001-\u007f][0-9]*"]);
    // nothing every match holds in a row, or a pattern that does not compile
    expect(requiredGlob("(a|b)+")).toBeNull();
    expect(requiredGlob(".*")).toBeNull();
    expect(requiredGlob("(")).toBeNull();
  });
});
