import { describe, expect, it } from "vitest";
import { VerdictMemo, withDecisionId } from "./verdict-memo.js";

describe("VerdictMemo", () => {
  it("keys by route, revision and exact body, and forgets entries when they expire", () => {
    const memo = new VerdictMemo();
    const key = memo.key("/v1/place", "rev1", '{"user":"a"}')!;
    expect(memo.key("/v1/place", "rev2", '{"user":"a"}')).not.toBe(key);
    memo.set(key, "placed", '{"revision":"rev1"}', 1000);
    expect(memo.get(key, 999)).toMatchObject({
      expires: 1000,
      outcome: "placed",
      json: '{"revision":"rev1"}',
    });
    expect(memo.get(key, 1000)).toBeUndefined();
    expect(memo.get(key, 10)).toBeUndefined();
  });

  it("evicts the least recently used entry past its size", () => {
    const memo = new VerdictMemo(2);
    memo.set("a", "x", "{}", 100);
    memo.set("b", "x", "{}", 100);
    memo.get("a", 0);
    memo.set("c", "x", "{}", 100);
    expect(memo.get("b", 0)).toBeUndefined();
    expect(memo.get("a", 0)).toBeDefined();
    expect(memo.get("c", 0)).toBeDefined();
  });

  // Issue 24 item 10: 1,000 entries of bodies near the 16 KiB key limit and their verdicts kept 30 MB or more.
  it("holds at most its bound of characters, evicting the oldest entries", () => {
    const memo = new VerdictMemo();
    const verdict = JSON.stringify({ pad: "v".repeat(8000) });
    for (let i = 0; i < 1000; i++) {
      const key = memo.key("/v1/match", "rev1", JSON.stringify({ i, pad: "b".repeat(16000) }))!;
      memo.set(key, "matched", verdict, 100);
    }
    expect(memo.heldChars).toBeGreaterThan(500_000);
    expect(memo.heldChars).toBeLessThanOrEqual(1_000_000);
    const last = memo.key("/v1/match", "rev1", JSON.stringify({ i: 999, pad: "b".repeat(16000) }))!;
    expect(memo.get(last, 0)?.json).toBe(verdict);
    const first = memo.key("/v1/match", "rev1", JSON.stringify({ i: 0, pad: "b".repeat(16000) }))!;
    expect(memo.get(first, 0)).toBeUndefined();
  });

  it("remembers that a request's verdict is not cacheable", () => {
    const memo = new VerdictMemo();
    memo.set("k", "denied", null, 100);
    expect(memo.get("k", 0)).toMatchObject({ expires: 100, outcome: "denied", json: null });
  });

  it("does not memoise bodies larger than its key limit", () => {
    const memo = new VerdictMemo(10, 8);
    expect(memo.key("/p", "r", "123456789")).toBeUndefined();
    expect(memo.key("/p", "r", "12345678")).toBeDefined();
  });
});

describe("withDecisionId", () => {
  it("puts the id first without disturbing the verdict", () => {
    expect(JSON.parse(withDecisionId("id-1", '{"revision":"r","cacheable":true}'))).toEqual({
      decision_id: "id-1",
      revision: "r",
      cacheable: true,
    });
    expect(JSON.parse(withDecisionId("id-2", "{}"))).toEqual({ decision_id: "id-2" });
  });
});
