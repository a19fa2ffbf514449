import { describe, expect, it } from "vitest";
import {
  captureMode,
  errorView,
  maskAd,
  maskAddress,
  maskRequest,
  maskRules,
  maskView,
  MAX_EXAMPLES,
  MAX_PAIRS,
  OTHER_PAIR,
  pairOf,
  pseudonym,
  reportText,
  Tally,
  viewOf,
  type Example,
} from "../../src/bundle/compare/index.js";
import { readAd } from "../../src/engines/classad/index.js";

const example = (n: number): Example => ({
  at: `2026-01-01T00:00:${String(n).padStart(2, "0")}Z`,
  request: { n },
  active: { allowed: true },
  candidate: { allowed: false },
});

describe("views and outcome pairs", () => {
  it("names the first differing field with both values", () => {
    const a = viewOf("limits", {
      decision_id: "x",
      allowed: true,
      priority: 0,
      task: null,
      diagnostics: "one",
    });
    const b = viewOf("limits", {
      decision_id: "y",
      allowed: false,
      priority: null,
      task: null,
      diagnostics: "two",
    });
    expect(pairOf(a, b)).toBe("allowed true → false");
    expect(pairOf(a, { ...a })).toBeNull();
  });

  it("leaves explanatory text out of the comparison", () => {
    const a = viewOf("limits", { allowed: true, priority: 0, task: null, diagnostics: "Limit 'a' passed" });
    const b = viewOf("limits", { allowed: true, priority: 0, task: null, diagnostics: "Limit 'b' passed" });
    expect(pairOf(a, b)).toBeNull();
  });

  it("compares objects by content and shows them short", () => {
    const a = viewOf("limits", {
      allowed: true,
      priority: 0,
      task: { test: { type: "x", spec: { a: 1, b: 2 } } },
    });
    const same = viewOf("limits", {
      allowed: true,
      priority: 0,
      task: { test: { spec: { b: 2, a: 1 }, type: "x" } },
    });
    const other = viewOf("limits", {
      allowed: true,
      priority: 0,
      task: { test: { type: "x", spec: { a: 1 } } },
    });
    expect(pairOf(a, same)).toBeNull();
    expect(pairOf(a, other)).toBe("task {…} → {…}");
  });

  it("orders placement rejection before the queue, and counts match results", () => {
    const placed = viewOf("placement", { queue: "root.a", rejected: false, create: false });
    const rejected = viewOf("placement", { queue: null, rejected: true, create: false });
    expect(pairOf(placed, rejected)).toBe("rejected false → true");
    expect(pairOf(placed, viewOf("placement", { queue: "root.b", rejected: false, create: true }))).toBe(
      "queue root.a → root.b",
    );
    const m1 = viewOf("match", {
      job: { discarded: false },
      machines: [{ match: true }, { match: true }],
      best: "s1",
    });
    const m2 = viewOf("match", {
      job: { discarded: false },
      machines: [{ match: true }, { match: false }],
      best: "s1",
    });
    expect(pairOf(m1, m2)).toBe("matched 2 → 1");
    // a best-N verdict lists one machine; its counts say how many matched
    const b1 = viewOf("match", {
      job: { discarded: false },
      machines: [{ match: true }],
      best: "s1",
      counts: { matched: 7 },
    });
    const b2 = viewOf("match", {
      job: { discarded: false },
      machines: [{ match: true }],
      best: "s1",
      counts: { matched: 6 },
    });
    expect(pairOf(b1, b2)).toBe("matched 7 → 6");
    expect(
      pairOf(
        viewOf("jobfilter", { action: "ACCEPT", rule: null }),
        viewOf("jobfilter", { action: "PAUSE", rule: "u1" }),
      ),
    ).toBe("action ACCEPT → PAUSE");
  });

  it("pairs a decision that ended in an error", () => {
    expect(pairOf(viewOf("ads-check", { discarded: false }), errorView("budget_exceeded"))).toBe(
      "error none → budget_exceeded",
    );
    expect(pairOf(errorView("budget_exceeded"), errorView("budget_exceeded"))).toBeNull();
  });
});

describe("the tally", () => {
  it("counts agreed and differing decisions per engine, pairs by count", () => {
    const t = new Tally();
    for (let i = 0; i < 5; i++) t.add("limits", null);
    for (let i = 0; i < 3; i++) t.add("limits", "allowed true → false", [example(i)]);
    t.add("limits", "priority 0 → 5", [example(9)]);
    t.add("placement", "queue root.a → root.b");
    const r = t.report("2026-01-01T00:00:00Z");
    expect(r).toMatchObject({ compared: 10, agreed: 5, differing: 5 });
    expect(r.engines.limits).toMatchObject({ compared: 9, agreed: 5, differing: 4 });
    expect(r.engines.limits?.pairs.map((p) => [p.pair, p.count, p.examples.length])).toEqual([
      ["allowed true → false", 3, 3],
      ["priority 0 → 5", 1, 1],
    ]);
    expect(r.engines.placement?.pairs[0].examples).toEqual([]);
  });

  it("keeps at most MAX_EXAMPLES examples per pair, the first ones", () => {
    const t = new Tally();
    for (let i = 0; i < MAX_EXAMPLES + 7; i++) {
      expect(t.wantsExample("limits", "p")).toBe(i < MAX_EXAMPLES);
      t.add("limits", "p", [example(i)]);
    }
    const p = t.report(null).engines.limits!.pairs[0];
    expect(p.count).toBe(MAX_EXAMPLES + 7);
    expect(p.examples.map((e) => (e.request as { n: number }).n)).toEqual([...Array(MAX_EXAMPLES).keys()]);
  });

  it("counts pairs past MAX_PAIRS under one name", () => {
    const t = new Tally();
    for (let i = 0; i < MAX_PAIRS + 10; i++) t.add("placement", `queue root.a → root.q${i}`);
    const pairs = t.report(null).engines.placement!.pairs;
    expect(pairs).toHaveLength(MAX_PAIRS + 1);
    expect(pairs.find((p) => p.pair === OTHER_PAIR)?.count).toBe(10);
  });

  it("merging batches gives the counts of one tally that saw everything", () => {
    const one = new Tally();
    const a = new Tally();
    const b = new Tally();
    for (let i = 0; i < 30; i++) {
      const pair = i % 3 === 0 ? null : `action ACCEPT → ${i % 2 ? "PAUSE" : "REJECT"}`;
      one.add("jobfilter", pair, [example(i % 60)]);
      (i < 12 ? a : b).add("jobfilter", pair, [example(i % 60)]);
    }
    const merged = new Tally().merge(a.toBatch()).merge(b.toBatch());
    expect(merged.report("s")).toEqual(one.report("s"));
  });

  it("replaces an example part too large to keep by a note of its size", () => {
    const t = new Tally();
    t.add("match", "best a → b", [
      { at: "t", request: { ad: "x".repeat(10_000) }, active: { best: "a" }, candidate: { best: "b" } },
    ]);
    const kept = t.report(null).engines.match!.pairs[0].examples[0];
    expect(kept.request).toEqual({ omitted: expect.stringMatching(/^\d+ characters$/) });
    expect(kept.active).toEqual({ best: "a" });
  });

  it("reads as text with the totals, the pairs and examples", () => {
    const t = new Tally();
    t.add("limits", null);
    t.add("limits", "allowed true → false", [example(1)]);
    const text = reportText(t.report("2026-01-01T00:00:00Z"));
    expect(text).toContain("2 decisions compared since 2026-01-01T00:00:00Z: 1 agreed, 1 differing");
    expect(text).toContain("limits: 2 compared, 1 agreed, 1 differing");
    expect(text).toMatch(/ 1 {2}allowed true → false\n +request: {3}\{"n":1\}/);
  });
});

describe("masking", () => {
  it("reads the capture mode, off unless masked or full", () => {
    expect([undefined, "", "yes", "masked", "FULL", "off"].map(captureMode)).toEqual([
      "off",
      "off",
      "off",
      "masked",
      "full",
      "off",
    ]);
  });

  it("cuts addresses to /24 and /48, and names to pseudonyms", async () => {
    expect(await maskAddress("203.0.113.77")).toBe("203.0.113.0");
    expect(await maskAddress("2001:db8:1234:5678::9")).toBe("2001:db8:1234::");
    expect(await maskAddress("host.example.org")).toMatch(/^m_[0-9a-f]{12}$/);
    expect(await pseudonym("sarah")).toBe(await pseudonym("sarah"));
    expect(await pseudonym("sarah")).not.toBe(await pseudonym("bob"));
  });

  it("masks the limits requester and nothing else of the request", async () => {
    const request = {
      requester: "198.51.100.23",
      task: { test: { type: "rtt", spec: { dest: "192.0.2.9" } } },
    };
    expect(await maskRequest("limits", request, maskRules(undefined))).toEqual({
      ...request,
      requester: "198.51.100.0",
    });
  });

  it("masks the placement user, a group and queue levels spelt like the user, in the request and the verdict", async () => {
    const alias = await pseudonym("sarah.k");
    const request = {
      user: "sarah.k",
      groups: ["sarah.k", "dev_app"],
      queue: "root.users.sarah_dot_k",
      tags: { namespace: "newapp" },
    };
    expect(await maskRequest("placement", request, maskRules(undefined))).toEqual({
      user: alias,
      groups: [alias, "dev_app"],
      queue: `root.users.${alias}`,
      tags: { namespace: "newapp" },
    });
    expect(
      await maskView("placement", request, {
        rejected: false,
        queue: "root.newapp.sarah_dot_k",
        create: true,
      }),
    ).toEqual({
      rejected: false,
      queue: `root.newapp.${alias}`,
      create: true,
    });
  });

  it("masks the named ClassAd attributes in every syntax, keeping the ad readable", async () => {
    const rules = maskRules("Owner, RemoteUser");
    const masked = (await maskAd(
      '[ Owner = "alice"; Memory = 2048; Requirements = TARGET.Memory > 1 ]',
      rules.attributes,
    )) as string;
    expect(masked).toBe(
      `[ Owner = "${await pseudonym('"alice"')}"; Memory = 2048; Requirements = TARGET.Memory > 1 ]`,
    );
    expect(readAd(masked).ok).toBe(true);
    const old = (await maskAd('owner = "alice"\nMemory = 10', rules.attributes)) as string;
    expect(old).toContain("Memory = 10");
    expect(old).not.toContain("alice");
    expect(await maskAd({ REMOTEUSER: "bob", Name: "slot1" }, rules.attributes)).toEqual({
      REMOTEUSER: await pseudonym("bob"),
      Name: "slot1",
    });
    expect(JSON.parse((await maskAd('{"Owner": "carol", "Cpus": 4}', rules.attributes)) as string)).toEqual({
      Owner: await pseudonym("carol"),
      Cpus: 4,
    });
    // an ad that names no masked attribute is kept byte for byte
    expect(await maskAd('[ Name = "slot1" ]', rules.attributes)).toBe('[ Name = "slot1" ]');
  });

  it("masks ads in a match request and an ad check", async () => {
    const rules = maskRules(undefined);
    const r = (await maskRequest(
      "match",
      { job: '[ Owner = "alice" ]', machines: ['[ Name = "s1"; RemoteUser = "bob" ]'] },
      rules,
    )) as {
      job: string;
      machines: string[];
    };
    expect(r.job).not.toContain("alice");
    expect(r.machines[0]).not.toContain("bob");
    expect(r.machines[0]).toContain('Name = "s1"');
    const c = (await maskRequest("ads-check", { kind: "job", ad: { Owner: "alice" } }, rules)) as {
      ad: Record<string, string>;
    };
    expect(c.ad.Owner).toMatch(/^m_/);
  });

  it("masks a job's free-text comment only", async () => {
    const job = {
      id: 4,
      opcodes: [{ OP_ID: "OP_INSTANCE_STARTUP", instance_name: "web1", comment: "asked by alice" }],
    };
    const m = (await maskRequest("jobfilter", job, maskRules(undefined))) as typeof job;
    expect(m.opcodes[0]).toEqual({
      OP_ID: "OP_INSTANCE_STARTUP",
      instance_name: "web1",
      comment: await pseudonym("asked by alice"),
    });
  });
});
