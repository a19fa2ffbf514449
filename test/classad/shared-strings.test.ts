import { describe, expect, it } from "vitest";
import { parseOldAd } from "../../src/engines/classad/ad-input.js";
import type { ClassAd } from "../../src/engines/classad/classad.js";
import { evalAttr } from "../../src/engines/classad/evaluate.js";
import { EvalState } from "../../src/engines/classad/state.js";

function read(text: string): ClassAd {
  const r = parseOldAd(text);
  if (!r.ok) throw new Error(r.error.message);
  return r.ad;
}

const st = new EvalState({ now: 0, random: Math.random });
const value = (ad: ClassAd, lc: string) => evalAttr(ad, lc, null, st);

/** Old-form ads of one kind (the same names in the same order), each with its own prefix for the names. */
function kindAd(prefix: string, arch: string, name: string, rest = ""): string {
  return `${prefix}Arch = "${arch}"\n${prefix}Name = "${name}"\n${prefix}Version = "$CondorVersion: 24.0.1 2024-01-01 $"${rest}`;
}

// Issue 31 goals 2 and 3: ads of one kind share their equal string values (the pool's 100,000
// "X86_64" are one string), read by comparing the text with the value the last ad had there.
// Sharing a string is not observable from JavaScript; what these check is that every value read
// that way is the one the text holds.
describe("string values shared between old-form ads of one kind", () => {
  it("gives equal values one string and keeps different ones apart", () => {
    const ads = Array.from({ length: 40 }, (_, i) =>
      read(kindAd("sharedA", i % 5 === 4 ? "ARM64" : "X86_64", `slot1@node${i}.example.org`)),
    );
    for (let i = 0; i < ads.length; i++) {
      expect(value(ads[i], "sharedaarch")).toBe(i % 5 === 4 ? "ARM64" : "X86_64");
      expect(value(ads[i], "sharedaname")).toBe(`slot1@node${i}.example.org`);
      expect(value(ads[i], "sharedaversion")).toBe("$CondorVersion: 24.0.1 2024-01-01 $");
    }
  });

  it("does not take the kept value for a longer, shorter or escaped one, or one the line goes on after", () => {
    read(kindAd("sharedB", "abc", "n"));
    read(kindAd("sharedB", "abc", "n"));
    const cases: Array<[string, unknown]> = [
      ['"abcd"', "abcd"],
      ['"ab"', "ab"],
      ['"abc" + 1', null],
      ['"abc"   ', "abc"],
      ['"abc" # no comment syntax here', null],
      ['"ab\\"c"', 'ab"c'],
      ['"abc"', "abc"],
      ['"abc" == "abc"', true],
    ];
    for (const [text, want] of cases) {
      const r = parseOldAd(`sharedBArch = ${text}\nsharedBName = "n"\nsharedBVersion = "v"`);
      if (want === null) {
        // the old-form expression parser decides: an error, or a value that is not the string
        if (r.ok) expect(value(r.ad, "sharedbarch")).not.toBe("abc");
        continue;
      }
      expect(r.ok).toBe(true);
      if (r.ok) expect(value(r.ad, "sharedbarch")).toEqual(want);
    }
  });

  it("reads the same values as a reading without any kept value (a fresh kind of ad)", () => {
    const texts = ["x86", "", "a b", "ünï", "$x$", "slot1@node1.example.org.and.more.than.thirteen"];
    for (const t of texts) read(kindAd("sharedC", t, t));
    for (const t of texts) {
      const again = read(kindAd("sharedC", t, t));
      const fresh = read(kindAd(`sharedFresh${texts.indexOf(t)}`, t, t));
      expect(value(again, "sharedcarch")).toBe(t);
      expect(value(again, "sharedcname")).toBe(value(fresh, `sharedfresh${texts.indexOf(t)}name`));
    }
  });
});
