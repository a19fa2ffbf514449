/**
 * The headline figures line (playground/figures.js): the `metrics` object of
 * `GET /v1/status` as the page words it, and nothing when a status has none.
 */
import { describe, expect, it } from "vitest";
import { duration, figuresScope, statusFigures } from "../../playground/figures.js";

const status = {
  metrics: {
    scope: "isolate",
    uptime_seconds: 412,
    decisions: { total: 9, limits: 1, placement: 3, match: 2, customs: 0, jobfilter: 3 },
    cache: { hits: 1, misses: 4, bypasses: 1, hit_ratio: 0.2 },
    budget_exceeded: 2,
    revision_age_seconds: 3600,
  },
};

describe("the status figures", () => {
  it("words each figure of /v1/status, engines with no decision left out", () => {
    expect(statusFigures(status)).toEqual([
      "9 decisions (limits 1, placement 3, match 2, jobfilter 3)",
      "verdict cache 20% hits (1 of 5), 1 bypass",
      "2 budgets exceeded",
      "policy compiled 60 min ago",
      "up 6 min",
    ]);
    expect(figuresScope(status)).toBe("This isolate");
  });

  it("says when the cache has not been asked yet, and uses the singular for one", () => {
    const fresh = {
      metrics: {
        decisions: { total: 1, placement: 1 },
        cache: { hits: 0, misses: 0, bypasses: 0, hit_ratio: null },
        budget_exceeded: 1,
      },
    };
    expect(statusFigures(fresh)).toEqual([
      "1 decision (placement 1)",
      "verdict cache no lookups yet",
      "1 budget exceeded",
    ]);
    expect(figuresScope(fresh)).toBe("Server");
  });

  it("shows nothing for a status without figures, and leaves out figures of the wrong type", () => {
    expect(statusFigures({})).toEqual([]);
    expect(statusFigures(null)).toEqual([]);
    expect(statusFigures({ metrics: { decisions: { total: "9" }, budget_exceeded: 0 } } as never)).toEqual([
      "0 budgets exceeded",
    ]);
  });

  it("gives a duration in its largest whole unit", () => {
    expect([0, 119, 120, 7199, 7200, 172_799, 172_800].map(duration)).toEqual([
      "0 s",
      "119 s",
      "2 min",
      "119 min",
      "2 h",
      "47 h",
      "2 d",
    ]);
  });
});
