import { beforeEach, describe, expect, it, vi } from "vitest";
import {
  clearExprCache,
  clearSeenTexts,
  exprCacheHeld,
  isTrimmed,
  parseNewAd,
  parseOldAd,
  type AdResult,
} from "../../src/engines/classad/ad-input.js";
import { AdLayout, adOf, type SlotValue } from "../../src/engines/classad/classad.js";
import { compile } from "../../src/engines/classad/compile.js";
import { Compiled, type Node } from "../../src/engines/classad/node.js";
import { lineCol, parseAdLiteral, parseExpr } from "../../src/engines/classad/parser.js";
import { unparseAd } from "../../src/engines/classad/unparse.js";
import { Real, UNDEF } from "../../src/engines/classad/values.js";

/** An ad slot as a whole parse makes it: a plain literal bare, anything else compiled. */
function slotOf(n: Node): SlotValue {
  return n.k === "lit" && n.text === undefined ? n.v : compile(n);
}

/** What reading gave, comparable: the ad unparsed, or the error. */
function outcome(r: AdResult): string {
  return r.ok ? `ok ${unparseAd(r.ad)}` : `error ${r.error.message} at ${r.error.at}`;
}

/** A new-syntax ad parsed whole, then built (the reading before the shared cache). */
function wholeNew(text: string): string {
  const p = parseAdLiteral(text, true);
  if (!p.ok) return `error ${p.message} at ${lineCol(text, p.offset)}`;
  if (p.node.k !== "ad") return "error expected an ad at 1:1";
  return `ok ${unparseAd(adOf(p.node.attrs.map(([k, v]) => [k, slotOf(v)] as const)))}`;
}

/** An old long-form ad read line by line with the regular expressions the reader used before it read in place. */
function wholeOld(text: string): string {
  const names: string[] = [];
  const slots: SlotValue[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, "");
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#")) continue;
    const m = /^[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*=(?!=)/.exec(line);
    if (m === null) return `error expected \`Name = Expr\` at ${i + 1}:1`;
    const expr = line.slice(m[0].length).trim();
    let slot: SlotValue;
    if (/^-?(?:0|[1-9][0-9]{0,14})$/.test(expr)) slot = Number(expr) + 0;
    else if (/^"[^"\\]*"$/.test(expr)) slot = expr.slice(1, -1);
    else {
      const p = parseExpr(expr, true, true);
      if (!p.ok) return `error attribute \`${m[1]}\`: ${p.message} at ${i + 1}:${m[0].length + 1}`;
      slot = compile(p.node);
    }
    names.push(m[1]);
    slots.push(slot);
  }
  return `ok ${unparseAd(adOf(names.map((n, i) => [n, slots[i]] as const)))}`;
}

const NEW_ADS = [
  '[ Name = "slot1"; Memory = 2048; Requirements = TARGET.Memory >= 1024 && Arch == "X86_64" ]',
  "[ a = -1; b = - 1; c = 1 - -2; d = .5; e = 1e3; f = 0; g = -0; h = 007 ]",
  '[ a = "x\\ny"; b = "tab\\there"; c = "q\\"uote"; d = "nul\\0" ]',
  '[ s = "a" "b"; t = "c" /* comment ] ; */ "d"; u = { 1, [ x = 1; y = { 2; } ], (3) } ]',
  "[ ;; a = 1;; b = 2; ]",
  "[;]",
  "[ ]",
  "[ a = 1 2 ]",
  "[ a = ; ]",
  "[ a = (1; b = 2 ]",
  "[ a = 1) ]",
  "[ 'quoted name' = 1; b = 'x' ]",
  "[ true = 1 ]",
  "[ a.b = 1 ]",
  "[ a = 1 ] trailing",
  "[ A = 1; a = 2; B = A ]",
  '[ x = strcat("a"; "b"); y = ifThenElse(x == "ab", 1, 2); z = x ?: 3; w = x[0] ]',
  '[ t = absTime("2024-01-01T00:00:00Z"); r = relTime("1:00:00"); u = absTime("nonsense") ]',
  "[ u = undefined; e = error; T = TRUE; f = False; is1 = a is b; n = a isnt b; m = a =?= b ]",
  "[ deep = " + "(".repeat(398) + "1" + ")".repeat(398) + " ]",
  "[ deeper = " + "(".repeat(399) + "1" + ")".repeat(399) + " ]",
  "[ chain = " + Array(398).fill("1").join(" + ") + " ]",
  "[ chain2 = " + Array(399).fill("1").join(" + ") + " ]",
  `[ ${Array.from({ length: 300 }, (_, i) => `a${i} = ${i}`).join("; ")} ]`,
  "[ a = 0x10 ]",
  "[ a = 1. ]",
  '[ a = "unterminated ]',
  "[ a = /* unterminated ]",
  "[ a = b[ ]",
  "[ a = 99999999999999999999 ]",
  "[ a = -9223372036854775808; b = 9007199254740993 ]",
  "[ a = TRUE; b = False; c = tRuE; d = 0.25; e = -0.0; f = 00.5; g = -12.5; h = truex; j = 1.5e3 ]",
  "[ i = 1.5.5 ]",
];

const OLD_ADS = [
  'MyType = "Machine"\nName = "slot1"\nMemory = 2048\nRequirements = TARGET.Memory >= 1024\n',
  "a = 1\r\nb = 2\r\n\r\n# comment\n  \t c = 3  \r\n",
  "a = -0\nb = 007\nc = 123456789012345\nd = 1234567890123456\ne = -5\nf = 0\ng = - 1",
  'a = "x\\"y"\nb = "c:\\tmp"\nc = "plain"\nd = ""\ne = "',
  "a == 1",
  "= 1",
  "1a = 2",
  "\u00a0a = 1",
  "a = \u00a0 1 \u00a0",
  "a = 1\u2028",
  "\va = 1",
  "A = 1\na = 2\nB = A",
  "a = (1",
  "a =",
  Array.from({ length: 300 }, (_, i) => `a${i} = x${i}`).join("\n"),
  "a = 1\n\n\n",
  "",
  "   ",
  'name_with_digits9 = true\n_under = false\nx\t=\t"t"',
  "a = TRUE\nb = False\nc = tRuE\nd = 0.25\ne = -0.0\nf = 00.5\nh = .5\ni = 1.5e3\nj = -.5\nk = 12345678901234567890.5\nl = truex\nn = fals\no = -12.5",
  "g = 1.",
  "m = 1.5.5",
  'a = strcat("\\\\", "x")\nb = "clean"\nc = "back\\\\slash"\nd = "after"\ne = "q\\"uote"\nf = "x" + "y"',
  // the reader finds a line's end in the pass that reads a plain literal: what may follow one
  'a = "x" y\nb = "x" "y"\nc = "x"  \r\nd = "x"\u00a0\u2028\ne = "x\nf = 1',
  "a = 1 2\nb = 1+2\nc = true \u00a0\r\nd = -5\t\ne = 5x\nf = 1.25 \ng = false;",
  "\u00a0# comment = 1\na = 1\n\r\n \u3000 \n#\nb = 2",
  'a = "\nb = 1',
  'a = "x\\',
  "a = 1\n  # indented comment\nb = \u00a0\nc = 3",
  // a line's value is found by its end (indexOf) and trimmed back: a string is plain when no quote is inside (a backslash escapes only a quote)
  'b = "tab\tand  spaces inside"\nf = "/home/alice/run7/run7.log"\ne = "\u00a0"\u3000\nc = "ends \\"',
  'b = "x"\nd = """',
  'a = "back\\slash"\nb = "\\"\nc = "x\\\\"\nd = "\\n"',
  'f = "/home/alice/run7/run7.log"\na = "x"y"',
  // ` = ` read at once when a character trim() keeps follows it; any other spacing as before
  "a =b\nb= 2\nc  =  3\nd = \t4\ne = =5\nf =\u00a06\ng = \u3000 7\nh = ",
  "a = 1\nb = x",
  "a = ",
  // reals of up to 15 digits are m / 10^frac; longer ones (or more than 22 after the dot) as Number() reads them
  "a = 0.1234567890123456789012345\nb = 123456789.123456\nc = 9007199254740993.5\nd = -0.000001\ne = 1.7976931348623157\nf = 0.30000000000000004",
  // a string or an unsigned integer right before the line feed (or the text's end) is read at once
  'a = 0\nb = 00\nc = 0123\nd = 123456789012345\ne = 1234567890123456\nf = "q"\ng = ""\nh = "a"b"\ni = "a\\"\nl = 9',
  "j = 12\u0000",
  'k = "x"\u0000',
  "b = 00",
  "c = 0123",
  'h = "a"b"',
  "a = 42",
  'a = "end"',
  "a = 0",
  'a = "x',
  "a = 7\u0000",
  "a = 1\nb = 999999999999999\nc = 9999999999999999\nd = 5 ",
  "a = falsE\nb = TRUE\nc = tru\nd = trux\ne = fal\nf = t\ng = falsey\nh = trueish\ni = true",
  "d = true\u0000",
  "d = false\u0000",
  "a = f",
  "a = false",
  // a string's closing quote is on its own line: no string crosses a line's end
  'a = "x\n"\nb = 1',
  'a = "x\n"',
  'a = "\n"\n',
  'a = 1\nb = "long enough to be cut as a view\n"\nc = 2',
];

describe("reading ads in place", () => {
  beforeEach(() => clearExprCache());

  it("reads every new-syntax ad as parsing it whole does, errors included", () => {
    for (const text of NEW_ADS) {
      // twice: the second reading finds the values in the shared cache
      expect(outcome(parseNewAd(text)), text.slice(0, 80)).toBe(wholeNew(text));
      expect(outcome(parseNewAd(text)), text.slice(0, 80)).toBe(wholeNew(text));
    }
  });

  it("reads every old long-form ad as the line-by-line reading did, errors included", () => {
    for (const text of OLD_ADS) {
      expect(outcome(parseOldAd(text)), JSON.stringify(text.slice(0, 80))).toBe(wholeOld(text));
      expect(outcome(parseOldAd(text)), JSON.stringify(text.slice(0, 80))).toBe(wholeOld(text));
    }
  });

  // a string's closing quote is looked for four bytes a step (a quote, a line feed or any byte below
  // 35 stops the step): a stop at every place in a step, the string starting at every offset in one
  it("reads a string whatever stops its scan and wherever the stop sits", () => {
    for (const stop of ['"', "\n", " ", "!", "#", "\t", "\u0000", "\u00e9", '\\"'])
      for (let lead = 0; lead < 4; lead++)
        for (let at = 0; at < 11; at++)
          for (const after of ["", "\nb = 1", '"\nb = 1', '"']) {
            const text = `${"x".repeat(lead)}a = "${"y".repeat(at)}${stop}${"z".repeat(10 - at)}${after}`;
            expect(outcome(parseOldAd(text)), JSON.stringify(text)).toBe(wholeOld(text));
          }
  });

  it("reads a plain real exactly as Number() does, whatever its digits", () => {
    let seed = 7;
    const digit = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 16) % 10;
    };
    const texts: string[] = [];
    for (let i = 0; i < 400; i++) {
      const whole = 1 + (i % 9);
      const frac = 1 + ((i * 7) % 24);
      let t = i % 3 === 0 ? "-" : "";
      for (let k = 0; k < whole; k++) t += String(digit());
      t += ".";
      for (let k = 0; k < frac; k++) t += String(digit());
      texts.push(t);
    }
    const r = parseOldAd(texts.map((t, i) => `r${i} = ${t}`).join("\n"));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const wrong = texts.filter((t, i) => !Object.is((r.ad.slots[i] as Real).v, Number(t)));
    expect(wrong).toEqual([]);
  });

  it("trims an expression in place exactly as String.prototype.trim does, for every code unit", () => {
    const differ: string[] = [];
    for (let c = 0; c < 0x10000; c++)
      if (isTrimmed(c) !== (String.fromCharCode(c).trim() === "")) differ.push(c.toString(16));
    expect(differ).toEqual([]);
  });

  it("reads a name against the one the ads of its kind had there, also when it only starts like it", () => {
    const texts = [
      "Memory = 1\nCpus = 2\nDisk = 3",
      "Memory = 1\nCpusX = 2\nDisk = 3",
      "Memory = 1\nCpu = 2\nDisk = 3",
      "Memory = 1\nCpus= 2\nDisk = 3",
      "Memory = 1\nCpus_2 = 2\nDisk = 3",
      "Memory = 1\ncpus = 2\nDisk = 3",
      "Memory = 1\nCpus\t = 2\nDisk = 3",
      "Memory = 1\nCpus == 2",
      "Memory = 1\nCpus = 2\nDisk = 3",
    ];
    for (const text of [...texts, ...texts.reverse()])
      expect(outcome(parseOldAd(text)), JSON.stringify(text)).toBe(wholeOld(text));
  });

  it("keeps an old-form ad's plain literals as bare values, compiling none of them", () => {
    const r = parseOldAd('a = TRUE\nb = false\nc = 0.25\nd = -1.5\ne = "s"\nf = 7\ng = UNDEFINED\nh = a');
    if (!r.ok) throw new Error(r.error.message);
    const [a, b, c, d, e, f, g, h] = r.ad.slots;
    expect([a, b, e, f]).toEqual([true, false, "s", 7]);
    expect(c).toBeInstanceOf(Real);
    expect((c as Real).v).toBe(0.25);
    expect((d as Real).v).toBe(-1.5);
    expect(g).toBe(UNDEF);
    expect(h).toBeInstanceOf(Compiled);
  });

  it("compiles a new-syntax value at most twice for all the ads that repeat its text (kept on its second sighting)", () => {
    clearSeenTexts();
    const ads = Array.from({ length: 50 }, (_, i) =>
      parseNewAd(`[ Name = "m${i}"; Requirements = TARGET.Memory > ${i % 2} ]`),
    );
    const slots = ads.map((r) => (r.ok ? r.ad.slots[1] : null));
    expect(slots[0]).not.toBeNull();
    expect(slots[4]).toBe(slots[2]);
    expect(slots[49]).toBe(slots[3]);
    expect(slots[3]).not.toBe(slots[2]);
    expect(exprCacheHeld().entries).toBe(2);
  });

  it("shares one layout between ads of one kind, in either syntax", () => {
    const a = parseNewAd('[ Name = "a"; Memory = 1 ]');
    const b = parseNewAd('[ Name = "b"; Memory = 2 ]');
    const c = parseOldAd('Name = "c"\nMemory = 3');
    if (!a.ok || !b.ok || !c.ok) throw new Error("ads do not read");
    expect(b.ad.layout).toBe(a.ad.layout);
    expect(c.ad.layout).toBe(a.ad.layout);
  });

  it("stores per ad only the slots its kind varies in, every ad reading back what it was written with", () => {
    // a slot that varies from the 20th ad on (Late), one that varies in every ad (Cpus, Name), long and
    // short strings, a real, a negative zero's real and an expression; read in either syntax, and
    // through a new generation of kept lines
    const text = (i: number, form: "old" | "new") => {
      const lines = [
        ["Name", `"slot1@node${i}.example.org"`],
        ["Arch", '"X86_64"'],
        ["Version", '"$CondorVersion: 24.0.1 $"'],
        ["Cpus", `${i}`],
        ["Late", `${i < 20 ? 1 : i}`],
        ["HasDocker", `${i % 3 === 0}`],
        ["LoadAvg", i < 30 ? "0.25" : "-0.0"],
        ["Start", `Cpus${form === "old" ? "Old" : "New"} > 2`],
      ];
      return form === "old"
        ? lines.map(([n, v]) => `${n}Old = ${v}`).join("\n")
        : `[ ${lines.map(([n, v]) => `${n}New = ${v}`).join("; ")} ]`;
    };
    for (const form of ["old", "new"] as const) {
      const results: AdResult[] = [];
      for (let i = 0; i < 40; i++) {
        if (i === 35) clearExprCache();
        results.push(form === "old" ? parseOldAd(text(i, form)) : parseNewAd(text(i, form)));
      }
      // every ad read back after all were read (a slot that varied later is still right in the earlier ads)
      const whole = form === "old" ? wholeOld : wholeNew;
      results.forEach((r, i) => expect(outcome(r), `${form} ${i}`).toBe(whole(text(i, form))));
      const ads = results.map((r) => (r.ok ? r.ad : adOf([])));
      ads.forEach((ad, i) => {
        const real = ad.at(6) as Real;
        expect(Object.is(real.v, i < 30 ? 0.25 : -0), `${form} ${i}`).toBe(true);
      });
      // from the second ad of the kind on, the shared slots are the template's: Name, Cpus, HasDocker,
      // Start (an expression) stored, and from the 20th on Late (the new syntax: the reals too, one each)
      expect(ads[10].length).toBeLessThanOrEqual(5);
      expect(ads[25].length).toBeLessThanOrEqual(6);
      expect(ads[10].slots.length).toBe(8);
    }
  });

  it("holds an ad's stored slots as the ad's own elements, none when its kind shares every slot", () => {
    // three ads of one kind, every value the same and small: the first stores its slots, the ones made
    // with the template store none (their values are the template's), and all read back alike; an ad's
    // array methods give plain arrays (an ad is never built by them)
    const text = 'ElemA = 1\nElemB = 2.5\nElemC = "x"';
    const ads = [0, 1, 2].map(() => {
      const r = parseOldAd(text);
      if (!r.ok) throw new Error(r.error.message);
      return r.ad;
    });
    expect(ads.map((ad) => ad.length)).toEqual([3, 0, 0]);
    for (const ad of ads) {
      expect(unparseAd(ad)).toBe(unparseAd(ads[0]));
      expect(ad.at(0)).toBe(1);
      expect((ad.at(1) as Real).v).toBe(2.5);
      expect(ad.at(2)).toBe("x");
      expect(ad.at(3)).toBeUndefined();
    }
    const copy = ads[0].slice();
    expect(Array.isArray(copy)).toBe(true);
    expect(copy.constructor).toBe(Array);
    expect(copy).toEqual(ads[0].slots);
  });

  it("reads back ads of two kinds whose names one starts the other's, their shared lines differing", () => {
    // the shorter kind's chain of layouts is the longer one's start: each kind's template has its own
    // value of Y, and the lines kept along the chain are the last ad's, of either kind
    const short = (i: number) => `XChain = 1\nYChain = ${i < 6 ? 1 : 2}`;
    const long = (i: number) => `XChain = 1\nYChain = 2\nZChain = ${i}`;
    const texts: string[] = [];
    for (let i = 0; i < 12; i++)
      texts.push(...(i < 4 ? [short(i), short(i)] : i < 8 ? [long(i), long(i)] : [short(i), long(i)]));
    const results = texts.map((t) => parseOldAd(t));
    results.forEach((r, i) => expect(outcome(r), `${i}`).toBe(wholeOld(texts[i])));
  });

  it("compares only the lines another kind's template shares once the kept lines speak for the rest", () => {
    // a job's and a machine's ads read in turn, as /v1/match reads them: both start with the same two
    // names (their values differing), so from the job's template on those two slots are compared in
    // every machine's ad, and only they; a machine whose first line differs from its kind's still stores it
    const job = (i: number) =>
      `KindPrefix = "Job"\nOtherPrefix = "Machine"\nJobOwner = "alice"\nJobId = ${i}`;
    const machine = (i: number, kind = "Machine") =>
      `KindPrefix = "${kind}"\nOtherPrefix = "Job"\nArchM = "X86_64"\nOpSysM = "LINUX"\nStartM = true\nCpusM = ${i}`;
    const compare = vi.spyOn(AdLayout.prototype as unknown as { compare: () => void }, "compare");
    try {
      const texts: string[] = [];
      const results: AdResult[] = [];
      const compared: number[] = [];
      for (let round = 0; round < 4; round++) {
        compare.mockClear();
        for (const text of [
          job(round),
          ...Array.from({ length: 6 }, (_, i) => machine(i, round === 3 && i === 4 ? "Other" : "Machine")),
        ]) {
          texts.push(text);
          results.push(parseOldAd(text));
        }
        compared.push(compare.mock.calls.length);
      }
      // from the third round on two of the seven ads compare every slot: the job (its kind's kept lines
      // were the machines') and the first machine after it (its third line not the one the job's read
      // went on to, so not a kept line); the five others compare the two shared slots alone
      expect(compared.slice(2)).toEqual([2, 2]);
      results.forEach((r, i) => expect(outcome(r), `${i}`).toBe(wholeOld(texts[i])));
      const other = results[results.length - 2];
      expect(other.ok && other.ad.at(0)).toBe("Other");
    } finally {
      compare.mockRestore();
    }
  });
});
