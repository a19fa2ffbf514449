import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { calendarFields, parseIsoDuration, parseIsoTimestamp } from "./iso8601.js";

describe("parseIsoDuration", () => {
  it("reads exact microseconds", () => {
    expect(parseIsoDuration("PT1M8S")).toEqual({ ok: true, value: 68_000_000 });
    expect(parseIsoDuration("P1W2DT3H")).toEqual({ ok: true, value: (9 * 86400 + 3 * 3600) * 1e6 });
    expect(parseIsoDuration("PT0.5S")).toEqual({ ok: true, value: 500_000 });
    expect(parseIsoDuration("PT1,25S")).toEqual({ ok: true, value: 1_250_000 });
    expect(parseIsoDuration("-PT5S")).toEqual({ ok: true, value: -5_000_000 });
    expect(parseIsoDuration("PT")).toEqual({ ok: true, value: 0 });
    expect(parseIsoDuration("P0Y1D")).toEqual({ ok: true, value: 86_400_000_000 });
  });
  it("treats equal lengths as equal", () => {
    expect(parseIsoDuration("PT60S")).toEqual(parseIsoDuration("PT1M"));
  });
  it("gives pScheduler's error texts", () => {
    expect(parseIsoDuration("P")).toEqual({ ok: false, error: "Invalid ISO duration" });
    expect(parseIsoDuration("pt5s")).toEqual({ ok: false, error: "Invalid ISO duration" });
    expect(parseIsoDuration("P1M")).toEqual({ ok: false, error: "Cannot support months or years" });
    expect(parseIsoDuration("P2Y")).toEqual({ ok: false, error: "Cannot support months or years" });
    expect(parseIsoDuration(5)).toEqual({
      ok: false,
      error: "Invalid duration; must be ISO8601 string or timedelta.",
    });
  });
  it("never throws", () => {
    fc.assert(
      fc.property(fc.string(), (s) => {
        parseIsoDuration(s);
      }),
    );
  });
});

describe("parseIsoTimestamp", () => {
  it("reads extended and basic formats with offsets", () => {
    const z = parseIsoTimestamp("2026-03-02T10:00:00Z");
    const basic = parseIsoTimestamp("20260302T100000Z");
    const off = parseIsoTimestamp("2026-03-02T05:00-05:00");
    expect(z.ok && basic.ok && off.ok).toBe(true);
    if (z.ok && basic.ok && off.ok) {
      expect(basic.value.micros).toBe(z.value.micros);
      expect(off.value.micros).toBe(z.value.micros);
      expect(off.value.offsetMinutes).toBe(-300);
    }
    const frac = parseIsoTimestamp("2026-03-02T10:00:00.25+0100");
    expect(frac.ok && frac.value.micros % 1_000_000).toBe(250_000);
  });
  it("rejects dates alone, spaces and impossible values", () => {
    for (const bad of [
      "2026-03-02",
      "2026-03-02 10:00:00",
      "2026-02-30T10:00:00Z",
      "2026-03-02T24:00:00Z",
      7,
    ]) {
      expect(parseIsoTimestamp(bad)).toEqual({ ok: false, error: "Invalid ISO8601 date" });
    }
  });
});

describe("calendarFields", () => {
  it("breaks an instant down at the given offset with ISO week and weekday", () => {
    const t = parseIsoTimestamp("2027-01-01T02:00:00Z");
    if (!t.ok) throw new Error("parse");
    expect(calendarFields(t.value.micros, 0)).toMatchObject({ year: 2027, week: 53, weekday: 5, hour: 2 });
    expect(calendarFields(t.value.micros, -300)).toMatchObject({
      year: 2026,
      month: 12,
      day: 31,
      weekday: 4,
      hour: 21,
    });
  });
});
