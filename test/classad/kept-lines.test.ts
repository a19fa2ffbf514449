import { describe, expect, it } from "vitest";
import { parseOldAd, type AdResult } from "../../src/engines/classad/ad-input.js";
import { Budget } from "../../src/engines/common/budget.js";
import { evalAttr, printValue } from "../../src/engines/classad/evaluate.js";
import { EvalState } from "../../src/engines/classad/state.js";

const st = new EvalState({ now: 0, random: Math.random });

/** What reading an ad gave, as comparable text: its error, or each attribute's type and printed value. */
function shown(r: AdResult, names: string[]): string {
  if (!r.ok) return `error ${r.error.message} at ${r.error.at}`;
  return names.map((n) => JSON.stringify(printValue(evalAttr(r.ad, n, null, st)))).join(" ");
}

/** Value texts for one attribute, read one ad after another: repeats, near misses and expressions. */
const VALUES = [
  '"X86_64"',
  '"X86_64"',
  '"X86_64" ',
  '"X86_64"\r',
  '"X86_6"',
  '"X86_644"',
  '"X86_64" + 1',
  '"X86_64"',
  '"ab\\"c"',
  '"slot1@node1.example.org.long"',
  '"slot1@node1.example.org.long"',
  '"slot1@node2.example.org.long"',
  "32",
  "32",
  "320",
  "3",
  "-3",
  "32 + 1",
  "0.25",
  "0.25",
  "0.5",
  "true",
  "TRUE",
  "true",
  "false",
  "true && false",
  "1e3",
  "007",
  "32",
  "33",
  "321",
  "322",
  "1.25",
  "1.26",
];

// Issue 31 goals 2 and 3: an old-form line written as the last ad of the same kind wrote it, when
// that was a plain literal, is that value without being read again (ads of one kind share their
// equal values). Whatever the lines before it, a line must read as it does in an ad of a kind
// never seen before.
describe("old-form lines kept from the last ad of one kind", () => {
  it("read every value as a fresh reading does, whatever the line before it was", () => {
    // each value after the one before it, in a kind of its own (a kind's kept line is replaced a
    // bounded number of times), at an even and at an odd offset in its text (it is compared two code
    // units at a time)
    for (const first of ["0", "10"])
      VALUES.forEach((v, i) => {
        if (i === 0) return;
        // names of one length, so that an error's column is the same
        const f = `f${String(i).padStart(3, "0")}`;
        const k = `${first === "0" ? "k" : "m"}${String(i).padStart(3, "0")}`;
        const ad = (p: string, value: string) =>
          parseOldAd(`${p}X = ${first}\n${p}A = ${value}\n${p}B = 2\n${p}C = "c"`);
        const fresh = ad(f, v);
        ad(k, VALUES[i - 1]);
        const kept = ad(k, v);
        expect(
          shown(
            kept,
            ["a", "b", "c"].map((x) => `${k}${x}`),
          ).replaceAll(k, "name"),
          `${VALUES[i - 1]} then ${v}`,
        ).toBe(
          shown(
            fresh,
            ["a", "b", "c"].map((x) => `${f}${x}`),
          ).replaceAll(f, "name"),
        );
      });
  });

  it("reads a kept line under another name or in another place as its own", () => {
    parseOldAd('placeA = "x"\nplaceB = "y"');
    parseOldAd('placeA = "x"\nplaceB = "y"');
    // the same text one line later, and a name that only starts like the kept one
    const r = parseOldAd('placeB = "y"\nplaceA = "x"\nplaceAB = "x"');
    expect(shown(r, ["placea", "placeb", "placeab"])).toBe(
      [
        JSON.stringify(printValue("x")),
        JSON.stringify(printValue("y")),
        JSON.stringify(printValue("x")),
      ].join(" "),
    );
    const dup = parseOldAd('placeA = "x"\nplacea = "z"');
    expect(shown(dup, ["placea"])).toBe(JSON.stringify(printValue("z")));
  });

  it("charges a line read from the kept one as any line is charged", () => {
    const text = Array.from({ length: 40 }, (_, i) => `keptLine${i} = ${i}`).join("\n");
    const units = () => {
      const b = new Budget(1_000_000);
      expect(b.run(() => parseOldAd(text)).ok).toBe(true);
      return b.used;
    };
    const first = units();
    expect(first).toBeGreaterThanOrEqual(40);
    expect(units()).toBe(first);
    // and a budget too small for the lines still ends the reading
    const small = new Budget(10);
    expect(() => small.run(() => parseOldAd(text))).toThrow(/budget/);
  });
});
