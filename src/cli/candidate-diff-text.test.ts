import { describe, expect, it } from "vitest";
import type { DiffFindings, EngineFindings } from "../bundle/compare/diff-findings.js";
import { diffFindingsText } from "./candidate-diff-text.js";

const findings = (over: Partial<EngineFindings>): EngineFindings => ({
  result: "12 of 40 requests differ",
  equivalent: false,
  compared: 40,
  differing: 12,
  coverage: { boundaries: {}, generated: 40, captured: 0, exhaustive: true, stopped: false, why: [] },
  active_sha256: "a",
  candidate_sha256: "b",
  stale: false,
  pairs: [],
  unseen: 0,
  ...over,
});
const example = { request: {}, old: {}, new: {} };

describe("arbiter candidate report: the diff findings", () => {
  it("prints each pair with its requests and live count, `none yet` when live traffic has not shown it", () => {
    const diff: DiffFindings = {
      engines: {
        placement: findings({
          pairs: [
            { pair: "rejected false → true", count: 10, example, seen: true, live_count: 7 },
            { pair: "queue root.a → root.b", count: 2, example, seen: false, live_count: 0 },
          ],
          unseen: 1,
        }),
      },
      not_covered: ["limits"],
    };
    expect(diffFindingsText(diff)).toBe(
      [
        "",
        "diff against the active policy (computed when staged, before any traffic):",
        "  placement: 12 of 40 requests differ",
        "  not covered by the diff: limits",
        "Engine    Pair                  Requests Seen live",
        "placement rejected false → true 10       7",
        "placement queue root.a → root.b 2        none yet",
        "",
      ].join("\n"),
    );
  });

  it("says when a diff is stale or was stopped by the work bound, and prints nothing without findings", () => {
    const text = diffFindingsText({
      engines: {
        jobfilter: findings({
          result: "no difference found over 9 requests",
          stale: true,
          coverage: { ...findings({}).coverage, stopped: true },
        }),
      },
      not_covered: [],
    });
    expect(text).toContain(
      "jobfilter: no difference found over 9 requests (stopped by the work bound) (stale: the active source changed since staging; stage again)",
    );
    expect(diffFindingsText({ engines: {}, not_covered: [] })).toBe("");
    expect(diffFindingsText(undefined)).toBe("");
  });
});
