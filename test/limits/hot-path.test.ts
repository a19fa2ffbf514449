/**
 * Behaviour the hot-path shortcuts of the limits engine must keep: the rewriter's
 * private key added and removed around tasks holding odd keys, and the requester
 * parse shared by identifiers across consecutive decisions.
 */
import { describe, expect, it } from "vitest";
import type { JsonObject } from "../../src/engines/common/json.js";
import { decideLimits, type LimitsContext, type LimitsPolicy } from "../../src/engines/limits/index.js";
import { loadLimitsText } from "../../src/engines/limits/engine.js";
import { compilePrioritizer, compileRewriter } from "../../src/engines/limits/scripts.js";
import { verdictMembersWriter } from "../../src/engines/common/decision.js";

const ctx: LimitsContext = {
  now: 0,
  explain: false,
  cidrList: () => undefined,
  localAddresses: ["192.0.2.1"],
};

function policy(limitsJson: unknown): LimitsPolicy {
  const r = loadLimitsText(JSON.stringify(limitsJson));
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

describe("rewriter and prioritizer private keys", () => {
  it("keep a task's own __proto__ key as a plain key and its key order", () => {
    const task = JSON.parse(
      '{"__proto__": {"x": 1}, "test": {"type": "rtt", "spec": {}}, "z": 1}',
    ) as JsonObject;
    const rw = compileRewriter({ script: ['.test.spec.count = 3 | change("set count")'] });
    if (!rw.ok) throw new Error(rw.error.message);
    const r = rw.value.run(task, ["c"], { requester: "192.0.2.1" }, 0);
    if ("error" in r) throw new Error(r.error);
    expect(Object.keys(r.task)).toEqual(["__proto__", "test", "z"]);
    expect(Object.getPrototypeOf(r.task)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(r.task, "__proto__")?.value).toEqual({ x: 1 });
    expect(r.task.test).toEqual({ type: "rtt", spec: { count: 3 } });
    expect(r).toMatchObject({ changed: true, messages: ["set count"] });
    const pr = compilePrioritizer({
      script: ['set(if .["__proto__"].x == 1 then 7 else 0 end; "proto seen")'],
    });
    if (!pr.ok) throw new Error(pr.error.message);
    expect(pr.value.run(task, ["c"], 0)).toEqual({ priority: 7, notes: ["proto seen  (Set to 7)"] });
  });
  it("the rewriter keeps its last run's objects until its next run (their hidden classes outlive a full collection)", () => {
    const rw = compileRewriter({ script: ['.test.spec.count = 3 | change("set count")'] });
    if (!rw.ok) throw new Error(rw.error.message);
    const mine = () => rw.value.lastRun();
    expect(mine()).toEqual([undefined, undefined, undefined]);
    for (const count of [1, 2]) {
      const task = { test: { type: "rtt", spec: { n: count } } } as JsonObject;
      const r = rw.value.run(task, ["c"], {}, 0);
      if ("error" in r) throw new Error(r.error);
      const [input, result, out] = mine() ?? [];
      // the task the jq program read (with its private key), what it gave, and the rewritten task
      expect(Object.keys(input ?? {})).toEqual(["test", "__REWRITER_PRIVATE__"]);
      expect((input?.test as JsonObject).spec).toEqual({ n: count });
      expect(Object.keys((result ?? {}) as JsonObject)).toEqual(["test", "__REWRITER_PRIVATE__"]);
      expect(out).toBe(r.task);
      expect(out).toEqual({ test: { type: "rtt", spec: { n: count, count: 3 } } });
    }
  });
  it("the rewriter answers the task itself when its script gives back its input, a copy otherwise", () => {
    const rw = compileRewriter({ script: [".", "| if .test.spec.n == 2 then .test.spec.n = 3 else . end"] });
    if (!rw.ok) throw new Error(rw.error.message);
    const task = { test: { type: "rtt", spec: { n: 1 } }, "0": 1 } as JsonObject;
    const same = rw.value.run(task, ["c"], { requester: "192.0.2.1" }, 0);
    expect(same).toEqual({ task, changed: false, messages: [] });
    if ("error" in same) throw new Error(same.error);
    expect(same.task).toBe(task);
    expect(JSON.stringify(same.task)).toBe('{"0":1,"test":{"type":"rtt","spec":{"n":1}}}');
    // a result the script built is the copy without the private key
    const built = rw.value.run({ test: { type: "rtt", spec: { n: 2 } } }, [], {}, 0);
    expect(built).toEqual({ task: { test: { type: "rtt", spec: { n: 3 } } }, changed: false, messages: [] });
    // a task's own private key is overwritten in place by the run's: the task less that key, never the task
    const own = { __REWRITER_PRIVATE__: "mine", test: { type: "rtt", spec: { n: 1 } } } as JsonObject;
    const r = rw.value.run(own, [], {}, 0);
    if ("error" in r) throw new Error(r.error);
    expect(r.task).not.toBe(own);
    expect(Object.keys(r.task)).toEqual(["test"]);
    expect(own.__REWRITER_PRIVATE__).toBe("mine");
  });
  it("overwrite a private key the task already carries, in place", () => {
    const task = { __REWRITER_PRIVATE__: "mine", test: { type: "rtt", spec: {} } } as JsonObject;
    const rw = compileRewriter({ script: ["keys_unsorted"] });
    if (!rw.ok) throw new Error(rw.error.message);
    expect(rw.value.run(task, [], {}, 0)).toEqual({
      error: 'Invalid rewriter result:\n["__REWRITER_PRIVATE__","test"]',
    });
  });
});

describe("the scripts' depth bound, measured by the run's output charge", () => {
  // `.test.spec.x` holds n nested arrays: the task is then n + 3 levels deep
  const nest = (n: number): string => `.test.spec.x = (reduce range(${n}) as $i (0; [.]))`;
  const task = { test: { type: "rtt", spec: {} } } as JsonObject;
  it("keeps a rewritten task of 100 levels and refuses one of 101, named", () => {
    for (const [n, ok] of [
      [97, true],
      [98, false],
      [300, false],
    ] as const) {
      const rw = compileRewriter({ script: [nest(n)] });
      if (!rw.ok) throw new Error(rw.error.message);
      const r = rw.value.run(task, [], {}, 0);
      if (ok) expect("task" in r).toBe(true);
      else
        expect(r).toEqual({
          error: expect.stringMatching(
            /^the rewritten task: `test\.spec\.x(\[0\])+…?` is nested more than 100 levels deep \(the limit is 100\)$/,
          ) as unknown,
        });
    }
  });
  it("measures a result made plain by the literal walk as well (a long number literal)", () => {
    const rw = compileRewriter({ script: [nest(98).replace("(0;", "(100000000000000000001;")] });
    if (!rw.ok) throw new Error(rw.error.message);
    expect(rw.value.run(task, [], {}, 0)).toMatchObject({
      error: expect.stringContaining("is nested more than 100") as unknown,
    });
    const pr = compilePrioritizer({
      script: [`.__PRIORITIZER_PRIVATE__.diags = ${"[".repeat(99)}${"]".repeat(99)}`],
    });
    if (!pr.ok) throw new Error(pr.error.message);
    expect(pr.value.run(task, [], 0)).toMatchObject({
      error: expect.stringContaining("is nested more than 100") as unknown,
    });
  });
});

describe("identifiers sharing the requester parse", () => {
  const p = policy({
    schema: 1,
    identifiers: [
      { name: "local", description: "l", type: "localif", data: {} },
      { name: "listed", description: "c", type: "ip-cidr-list", data: { cidrs: ["198.51.100.0/24"] } },
    ],
    classifiers: [
      { name: "friends", description: "f", identifiers: ["local"] },
      { name: "foes", description: "f", identifiers: ["listed"] },
    ],
    limits: [{ name: "ok", description: "ok", type: "pass-fail", data: { pass: true } }],
    applications: [{ apply: [{ require: "all", limits: ["ok"] }] }],
  });
  it("answer for each decision's own requester, alternating and repeated", async () => {
    const task = { test: { type: "rtt", spec: {} } };
    for (const [requester, want] of [
      ["192.0.2.1", ["local"]],
      ["198.51.100.7", ["listed"]],
      ["198.51.100.7", ["listed"]],
      ["192.0.2.1", ["local"]],
      ["not an address", []],
    ] as const) {
      const d = await decideLimits(p, { requester, task }, ctx);
      expect(d.verdict.identifiers).toEqual(want);
    }
  });
});

describe("the verdict's own JSON", () => {
  // names JSON escapes (a quote, a backslash, a line separator, a lone surrogate), identified twice
  const p = policy({
    schema: 3,
    identifiers: [
      { name: 'local "lan"', description: "l", type: "localif", data: {} },
      {
        name: "listed\\\u2028",
        description: "c",
        type: "ip-cidr-list",
        data: { cidrs: ["198.51.100.0/24"] },
      },
      { name: "\ud800 all", description: "a", type: "always", data: {} },
    ],
    classifiers: [
      { name: "friends\n", description: "f", identifiers: ['local "lan"'] },
      { name: "foes", description: "f", identifiers: ["listed\\\u2028"] },
      { name: "ünïcode", description: "u", identifiers: ["\ud800 all"] },
    ],
    rewrite: {
      script: [
        'if .test.spec.boom then reject("no \\"boom\\"") else . end',
        '| .test.spec.x = "é\\u0001"',
        '| change("set x")',
      ],
    },
    priority: {
      script: [
        'if .test.spec.p == "null" then .__PRIORITIZER_PRIVATE__.priority = null else set(.test.spec.p // 2.5; "p") end',
      ],
    },
    limits: [
      { name: "ok", description: "ok", type: "pass-fail", data: { pass: true } },
      { name: "no", description: "no", type: "pass-fail", data: { pass: false } },
    ],
    applications: [
      { classifier: "foes", apply: [{ require: "all", limits: ["no"] }] },
      { apply: [{ require: "all", limits: ["ok"] }] },
    ],
  });
  const write = (verdict: object): string | undefined => verdictMembersWriter(verdict)?.();
  it("is the text JSON.stringify gives for it, written from the names' JSON made at load", async () => {
    const task = (spec: JsonObject) => ({ test: { type: "rtt", spec } });
    const requests = [
      { requester: "192.0.2.1", task: task({}) },
      { requester: "198.51.100.7", task: task({}) },
      { requester: "192.0.2.1", task: task({ boom: true }) },
      { requester: "192.0.2.1", task: task({}), prioritize: true },
      { requester: "192.0.2.1", task: task({ p: -0 }), prioritize: true },
      { requester: "192.0.2.1", task: task({ p: 1e21 }), prioritize: true },
      { requester: "192.0.2.1", task: task({ p: "null" }), prioritize: true },
      { requester: "192.0.2.1", task: task({ p: "x" }), prioritize: true },
      { requester: "192.0.2.1", task: task({}), rewrite: false },
      { requester: "192.0.2.1", task: task({}), run: { start: "2026-01-01T00:00:00Z", duration: "PT1M" } },
    ];
    const seen = new Set<string>();
    for (const request of requests) {
      const d = await decideLimits(p, request, ctx);
      const members = write(d.verdict);
      expect(members).toBe(JSON.stringify(d.verdict).slice(1, -1));
      // the same members as an object literal's: nothing else for a spread or JSON.stringify to see
      expect(JSON.stringify({ ...d.verdict })).toBe(`{${members}}`);
      seen.add(`${d.outcome} ${String(d.verdict.priority)} ${d.verdict.identifiers.length}`);
    }
    // allowed with priorities 0 (from −0), 2.5 and 1e21; denied (rejected, limits failed, priority errors)
    expect([...seen].sort()).toEqual(["allowed 0 2", "allowed 1e+21 2", "allowed 2.5 2", "denied null 2"]);
    // no policy; no identification; a decision that threw
    const none = await decideLimits(null, { requester: "x", task: task({}) }, ctx);
    expect(write(none.verdict)).toBe(JSON.stringify(none.verdict).slice(1, -1));
    const nobody = policy({
      schema: 1,
      identifiers: [
        { name: "never", description: "n", type: "ip-cidr-list", data: { cidrs: ["10.0.0.0/8"] } },
      ],
      classifiers: [{ name: "c", description: "c", identifiers: ["never"] }],
      limits: [{ name: "ok", description: "ok", type: "pass-fail", data: { pass: true } }],
      applications: [{ apply: [{ require: "all", limits: ["ok"] }] }],
    });
    const unknown = await decideLimits(nobody, { requester: "192.0.2.1", task: task({}) }, ctx);
    expect(unknown.verdict.diagnostics).toContain("Made no identifications.");
    expect(write(unknown.verdict)).toBe(JSON.stringify(unknown.verdict).slice(1, -1));
    const threw = await decideLimits(p, { requester: "192.0.2.1", task: "not a task" as never }, ctx);
    expect(write(threw.verdict)).toBe(JSON.stringify(threw.verdict).slice(1, -1));
  });
});
