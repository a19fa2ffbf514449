import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseNetwork, v6Words } from "./cidr.js";
import { SCANNED, scanNetwork } from "./cidr-scan.js";

/** What scanNetwork read, in parseNetwork's terms, or null. */
function scanned(
  text: string,
): { family: number; prefix: number; hostBits: boolean; words: number[] } | null {
  if (!scanNetwork(text)) return null;
  return {
    family: SCANNED.family,
    prefix: SCANNED.prefix,
    hostBits: SCANNED.hostBits,
    words: [...SCANNED.w],
  };
}

function parsed(text: string): { family: number; prefix: number; hostBits: boolean; words: number[] } | null {
  const n = parseNetwork(text);
  if (n === null) return null;
  const words = n.family === 4 ? [0, 0, 0, n.start as number] : [...v6Words(n.start as bigint)];
  return { family: n.family, prefix: n.prefix, hostBits: n.hostBits, words };
}

const TRICKY = [
  "",
  ":",
  "::",
  ":::",
  "::1",
  "1::",
  "1:::2",
  "::ffff:1.2.3.4",
  "1.2.3.4::",
  "1:1.2.3.4::5",
  "1:2:3:4:5:6:7::",
  "::1:2:3:4:5:6:7:8",
  "1:2:3:4:5:6:7:8",
  "1:2:3:4:5:6:7:8:9",
  "1:2:3:4:5:6:1.2.3.4",
  "1:2:3:4:5:6:7:1.2.3.4",
  "12345::",
  "fe80::1%eth0",
  "1.2.3.4/",
  "1.2.3.4/33",
  "1.2.3.4/032",
  "1.2.3.4/0",
  "10.1.2.3/8",
  "01.2.3.4",
  "256.1.1.1",
  "1.2.3",
  "1.2.3.4.5",
  "2001:db8::/32",
  "2001:db8::1/129",
  "2001:db8::1/64",
  "::/0",
  "::ffff:256.1.1.1",
  "::ffff:01.1.1.1",
  "a.1.2.3",
  "::a.1.2.3",
  " 1.2.3.4",
  "1.2.3.4 ",
  "1:2",
  "x",
];

describe("scanNetwork", () => {
  it("reads tricky texts exactly as parseNetwork does", () => {
    for (const t of TRICKY) expect(scanned(t), t).toEqual(parsed(t));
  });
  it("agrees with parseNetwork on generated addresses and networks", () => {
    const chars = fc.constantFrom(..."0123456789abcdefABCDEF:.:/x%");
    const text = fc.oneof(
      fc.ipV4(),
      fc.ipV6(),
      fc.tuple(fc.oneof(fc.ipV4(), fc.ipV6()), fc.integer({ min: 0, max: 140 })).map(([a, p]) => `${a}/${p}`),
      fc.string({ unit: chars, maxLength: 24 }),
    );
    fc.assert(
      fc.property(text, (t) => {
        expect(scanned(t)).toEqual(parsed(t));
      }),
      { numRuns: 3000 },
    );
  });
});
