/**
 * The string-list built-ins keep the token sets of lists they have cut
 * (functions/string-lists.ts): a list seen again, under the same or other
 * delimiters and with or without case folding, must answer exactly as a list
 * cut afresh does. The expected answers are computed here from the tokens.
 */
import { describe, expect, it } from "vitest";
import { evaluateRequest } from "../../src/engines/classad/evaluate.js";
import { asciiLower, stringTokens } from "../../src/engines/classad/functions/string-lists.js";
import { quoteString } from "../../src/engines/classad/unparse.js";

const ctx = { now: Date.UTC(2024, 0, 1), random: () => 0.5 };

/** What stringListMember / stringListIMember answer, from the tokens. */
function expected(item: string, list: string, delims: string, fold: boolean): string {
  const low = (s: string) => (fold ? s.replace(/[A-Z]/g, (c) => c.toLowerCase()) : s);
  return String(stringTokens(list, delims).map(low).includes(low(item)));
}

function member(item: string, list: string, delims: string | null, fold: boolean): string {
  const fn = fold ? "stringListIMember" : "stringListMember";
  const args = [item, list, ...(delims === null ? [] : [delims])].map((s) => quoteString(s)).join(", ");
  return evaluateRequest({ expr: `${fn}(${args})` }, ctx).value;
}

describe("string lists cut once", () => {
  it("answer the same for a list seen again, under other delimiters and case folding", () => {
    const lists = ["Mallory, guest", "a;B;c", "x y,Z", "mallory,guest", "a;b;c", ""];
    const items = ["mallory", "Mallory", "guest", "b", "B", "c", "x y", "Z", "z", ""];
    const delimsList: (string | null)[] = [null, ";", ", ", " "];
    // three passes, so every list is answered from a kept set after the first
    for (let pass = 0; pass < 3; pass++) {
      for (const list of lists)
        for (const delims of delimsList)
          for (const fold of [false, true])
            for (const item of items) {
              const want = expected(item, list, delims ?? ", \t\r\n", fold);
              expect(
                member(item, list, delims, fold),
                `${fold ? "I" : ""}Member(${item}, ${list}, ${delims})`,
              ).toBe(want);
            }
    }
  });

  it("answer the same once more lists were seen than are kept", () => {
    for (let pass = 0; pass < 2; pass++)
      for (let i = 0; i < 600; i++) {
        const list = `n${i}, N${i + 1}, other`;
        expect(member(`n${i + 1}`, list, null, true)).toBe("true");
        expect(member(`n${i + 1}`, list, null, false)).toBe("false");
      }
  });

  it("fold ASCII letters only, as strcasecmp compares", () => {
    // a text without upper case is itself, an ASCII one toLowerCase's, any other lowered letter by letter
    for (const t of ["alice", "", "Mallory", "GUEST-01", "ÄBc", "İX", "ẞtraße", "Ωmega", "tab\tUP"])
      expect(asciiLower(t), t).toBe(t.replace(/[A-Z]/g, (c) => c.toLowerCase()));
    expect(member("Äb", "äb, x", null, true)).toBe("false");
    expect(member("ÄB", "Äb, x", null, true)).toBe("true");
    expect(member("İX", "İx", null, true)).toBe("true");
  });
});
