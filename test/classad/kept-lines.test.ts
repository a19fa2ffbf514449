import { describe, expect, it } from "vitest";
import { clearExprCache, parseOldAd, type AdResult } from "../../src/engines/classad/ad-input.js";
import { AdLayout } from "../../src/engines/classad/classad.js";
import { borrowCodes, releaseCodes, viewOf } from "../../src/engines/classad/char-codes.js";
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
    // bounded number of times), at offsets of both parities in its text (it is compared eight bytes a
    // step), kept at one offset and read at the same or another
    for (const [first, then, kind] of [
      ["0", "0", "k"],
      ["10", "10", "m"],
      ["0", "10", "n"],
      ["10", "0", "p"],
    ])
      VALUES.forEach((v, i) => {
        if (i === 0) return;
        // names of one length, so that an error's column is the same
        const f = `f${String(i).padStart(3, "0")}`;
        const k = `${kind}${String(i).padStart(3, "0")}`;
        const ad = (p: string, value: string, x: string) =>
          parseOldAd(`${p}X = ${x}\n${p}A = ${value}\n${p}B = 2\n${p}C = "c"`);
        const fresh = ad(f, v, then);
        // (the first ad of a kind keeps nothing, the second keeps its lines)
        ad(k, VALUES[i - 1], first);
        ad(k, VALUES[i - 1], first);
        const kept = ad(k, v, then);
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
    // the second reading keeps the lines, the third reads them from the kept ones
    expect(units()).toBe(first);
    expect(units()).toBe(first);
    // and a budget too small for the lines still ends the reading
    const small = new Budget(10);
    expect(() => small.run(() => parseOldAd(text))).toThrow(/budget/);
  });

  it("forgets every kept line when the expression cache is cleared (a cold read reads every line)", () => {
    const line = 'forgetA = "a value of more than thirteen characters"';
    const keptEnd = () => {
      const layout = AdLayout.EMPTY.with("forgetA") as AdLayout;
      const codes = borrowCodes(line);
      try {
        return layout.keptLineEnd(codes, viewOf(codes), 0, line.length);
      } finally {
        releaseCodes(codes);
      }
    };
    parseOldAd(`${line}\nforgetB = 2`);
    // the first ad of its kind keeps nothing (a kind read once pays no copy), the second keeps its line
    expect(keptEnd()).toBe(-1);
    parseOldAd(`${line}\nforgetB = 2`);
    expect(keptEnd()).toBe(line.length);
    // and at the other parity in a text (compared a word from the halves of two)
    const at1 = ` ${line}`;
    const codes = borrowCodes(at1);
    expect(
      (AdLayout.EMPTY.with("forgetA") as AdLayout).keptLineEnd(codes, viewOf(codes), 1, at1.length),
    ).toBe(at1.length);
    releaseCodes(codes);
    clearExprCache(false);
    expect(keptEnd()).toBe(line.length);
    clearExprCache();
    expect(keptEnd()).toBe(-1);
    const again = parseOldAd(`${line}\nforgetB = 2`);
    expect(shown(again, ["forgeta", "forgetb"])).toBe(
      `${JSON.stringify(printValue("a value of more than thirteen characters"))} ${JSON.stringify(printValue(2))}`,
    );
    expect(keptEnd()).toBe(-1);
    parseOldAd(`${line}\nforgetB = 2`);
    expect(keptEnd()).toBe(line.length);
  });

  it("reads lines right when the room for kept lines fills and is reused", () => {
    clearExprCache();
    // kinds whose one kept line (of one length, under one name) fills the room, 2^19 bytes, from its
    // start: the line after the last that fits is kept where the first was, which must then be forgotten
    // (its kind's next line written as that one is that one's value, not the first's)
    // (a short string, kept as the value itself, then blanks to the line's end)
    const value = (i: number) => `"${String(i).padStart(6, "0")}"`;
    const text = (i: number, v: string) =>
      `roomA${String(i).padStart(5, "0")} = x + 1\nshared = ${v}${" ".repeat(290)}`;
    const line = `shared = ${value(0)}${" ".repeat(290)}`;
    const fit = Math.floor(2 ** 19 / ((line.length + 7) & ~7));
    for (let i = 0; i <= fit; i++) for (let twice = 0; twice < 2; twice++) parseOldAd(text(i, value(i)));
    for (const [kind, v] of [
      [0, fit],
      [1, 1],
      [fit - 1, fit - 1],
      [fit, fit],
      [fit, 0],
    ]) {
      const r = parseOldAd(text(kind, value(v)));
      expect(shown(r, ["shared"]), `kind ${kind}, value ${v}`).toBe(
        JSON.stringify(printValue(JSON.parse(value(v)))),
      );
    }
  });

  // the readers see a text as bytes, every non-ASCII character as one byte (char-codes.ts): a line
  // must never be taken for a kept one that differs from it in such a character
  it("reads each non-ASCII value as written, however the lines before it were kept", () => {
    const ad = (v: string) => parseOldAd(`uniA = "${v}"\nuniB = 1`);
    const nul = "\u0000".repeat(17);
    for (const [a, b] of [
      ["caf\u00e9 au lait", "caf\u00fc au lait"],
      ["caf\u00e9 au lait", "caf\u00e9 au lait"],
      ["caf\u00e9 au lait", "cafe au lait"],
      ["cafe au lait", "caf\u00e9 au lait"],
      // eight zero bytes are a double's +0; a non-ASCII character's byte as the top one of eight (the
      // line's bytes 8 to 15 are the string's first eight characters) must not make them -0
      [nul, `${nul.slice(0, 7)}\u0100${nul.slice(8)}`],
      [nul, `${nul.slice(0, 7)}\u0080${nul.slice(8)}`],
    ]) {
      ad(a);
      ad(a);
      expect(shown(ad(a), ["unia"]), JSON.stringify(a)).toBe(JSON.stringify(printValue(a)));
      expect(shown(ad(b), ["unia"]), `${JSON.stringify(a)} then ${JSON.stringify(b)}`).toBe(
        JSON.stringify(printValue(b)),
      );
      expect(shown(ad(b), ["unia"])).toBe(JSON.stringify(printValue(b)));
    }
  });

  it("never finds a name the old form cannot write in an old-form line", () => {
    // bytes of "Attribute_\u0161" are not those of "Attribute_a" (0x161's low byte is "a")
    const layout = AdLayout.EMPTY.with("Attribute_\u0161") as AdLayout;
    const line = "Attribute_a = 1";
    const codes = borrowCodes(line);
    try {
      expect(layout.valueStartIn(viewOf(codes), 0, line.length)).toBe(-1);
    } finally {
      releaseCodes(codes);
    }
    const ok = AdLayout.EMPTY.with("Attribute_a") as AdLayout;
    const again = borrowCodes(line);
    try {
      expect(ok.valueStartIn(viewOf(again), 0, line.length)).toBe(14);
    } finally {
      releaseCodes(again);
    }
  });
});
