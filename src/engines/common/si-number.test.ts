import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseSiNumber } from "./si-number.js";

describe("parseSiNumber", () => {
  it("reads decimal and binary prefixes", () => {
    expect(parseSiNumber("50M")).toBe(50_000_000);
    expect(parseSiNumber("600K")).toBe(600_000);
    expect(parseSiNumber("1Gi")).toBe(1_073_741_824);
    expect(parseSiNumber("1.5k")).toBe(1500);
    expect(parseSiNumber("10 m")).toBe(10_000_000);
    expect(parseSiNumber("-3")).toBe(-3);
    expect(parseSiNumber(42)).toBe(42);
  });
  it("rejects what pScheduler rejects", () => {
    for (const bad of ["50Mb", "1e6", "", "M", "1.", ".5", "1 5"]) expect(parseSiNumber(bad), bad).toBeNull();
  });
  it("never throws", () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        parseSiNumber(s);
      }),
    );
  });
});
