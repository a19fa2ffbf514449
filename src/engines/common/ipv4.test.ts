import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseIpv4 } from "./cidr.js";

/** The dotted-quad rule spelled as a pattern, as the parser was written before it became a scan. */
function byPattern(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let value = 0;
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part)) return null;
    const n = Number(part);
    if (n > 255) return null;
    value = value * 256 + n;
  }
  return value;
}

describe("parseIpv4", () => {
  it("reads dotted quads and refuses everything else", () => {
    expect(parseIpv4("192.0.2.1")).toBe(0xc0000201);
    expect(parseIpv4("0.0.0.0")).toBe(0);
    expect(parseIpv4("255.255.255.255")).toBe(0xffffffff);
    for (const bad of [
      "",
      "1.2.3",
      "1.2.3.4.",
      ".1.2.3",
      "1..2.3",
      "01.2.3.4",
      "1.2.3.256",
      "1.2.3.4 ",
      "1.2.3.-4",
      "1.2.3.1000",
      "１.2.3.4",
    ]) {
      expect(parseIpv4(bad), bad).toBeNull();
    }
  });

  it("agrees with the pattern on generated texts (property)", () => {
    const piece = fc.constantFrom(
      "0",
      "1",
      "2",
      "5",
      "9",
      ".",
      "25",
      "255",
      "256",
      "00",
      "01",
      "a",
      " ",
      "-",
      "300",
      "1000",
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 9 }), (pieces) => {
        const text = pieces.join("");
        expect(parseIpv4(text)).toBe(byPattern(text));
      }),
      { numRuns: 5000 },
    );
  });
});
