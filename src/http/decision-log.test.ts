import { describe, expect, it } from "vitest";
import { decisionIdJson, decisionLogText, newDecisionId, type DecisionLog } from "./decision-log.js";
import { logLine } from "../log-line.js";

describe("the decision line's text", () => {
  it("is the text logLine gives for { ts, ...entry }, whatever the fields hold, as they change", () => {
    const values = ["allowed", "a\u2028b\u2029c\u0085", 'q"\\x\n\r\u0000', "é 日本", "lone \ud800", ""];
    let now = Date.UTC(2026, 10, 28, 13, 0, 0, 123);
    for (const a of values)
      for (const b of values)
        for (const cache of [undefined, "hit", "miss", "bypass"] as const)
          for (const ms of [0, 12, NaN]) {
            const entry: DecisionLog = { decision_id: b, engine: a, revision: b, outcome: a, ms };
            if (cache !== undefined) entry.cache = cache;
            now += 1;
            expect(decisionLogText(entry, now)).toBe(logLine({ ts: new Date(now).toISOString(), ...entry }));
          }
  });

  it("writes the ids newDecisionId makes, and any other id after one, as JSON.stringify does", () => {
    const seen = new Set<string>();
    let now = Date.UTC(2026, 10, 28, 23, 59, 59, 990);
    for (let i = 0; i < 20; i++) {
      const made = newDecisionId();
      expect(made).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      seen.add(made);
      for (const id of [made, 'q"\\\u2028', made.toUpperCase(), made]) {
        const entry: DecisionLog = {
          decision_id: id,
          engine: "placement",
          revision: "r1",
          outcome: "place",
          ms: 0,
        };
        now += 1;
        expect(decisionLogText(entry, now)).toBe(logLine({ ts: new Date(now).toISOString(), ...entry }));
        expect(JSON.parse(decisionIdJson(id))).toBe(id);
      }
    }
    expect(seen.size).toBe(20);
  });
});
