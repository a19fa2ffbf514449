import { describe, expect, it } from "vitest";
import { isoTime } from "./iso-time.js";

describe("isoTime", () => {
  it("is Date#toISOString for each millisecond, repeated or not", () => {
    const times = [
      0, 0, 1_700_000_000_000, 1_700_000_000_000, 1_700_000_000_001, 0, -1, 8.64e15, 1_700_000_000_000,
    ];
    for (const ms of times) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });

  it("throws Date's RangeError for a time Date cannot write, every time", () => {
    for (const ms of [NaN, NaN, 8.64e15 + 1]) expect(() => isoTime(ms)).toThrow(RangeError);
    expect(isoTime(5)).toBe(new Date(5).toISOString());
  });
});
