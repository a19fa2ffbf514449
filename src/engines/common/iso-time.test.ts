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

  it("writes every other millisecond of a day as Date does: across days, years before 0 and after 9999, fractions", () => {
    const DAY = 86_400_000;
    const days = [
      0,
      1_700_000_000_000,
      -1,
      -62_198_755_200_000,
      253_402_300_799_999,
      8.64e15 - DAY,
      -8.64e15,
    ];
    let seed = 7;
    const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648);
    const same = (ms: number) => {
      if (Number.isNaN(new Date(ms).getTime())) expect(() => isoTime(ms), String(ms)).toThrow(RangeError);
      else expect(isoTime(ms), String(ms)).toBe(new Date(ms).toISOString());
    };
    for (const start of days) {
      for (const ms of [
        start,
        start + 1,
        start + DAY - 1,
        start + DAY,
        start - 1,
        start + 0.5,
        start + 999.9,
      ])
        same(ms);
      for (let i = 0; i < 300; i++) same(start + (next() % (2 * DAY)) - DAY / 2);
    }
    for (const ms of [8.64e15, 8.64e15 + 1, -8.64e15 - 1, NaN, 8.64e15 - 1, -8.64e15]) same(ms);
  });
});
