import fc from "fast-check";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compilePlacement } from "./compile.js";
import { decidePlacement } from "./decide.js";
import { placementEngine } from "./engine.js";
import { loadPlacement } from "./load.js";
import { keysOf, placementShapes } from "./config-shape.js";
import { PLACEMENT_KEYS } from "./parse.js";

const defaultSource = readFileSync(new URL("../../../policies/placement.yaml", import.meta.url), "utf8");

describe("compile and load", () => {
  it("decodes each mapping with the keys of its shape in config-shape.ts (written out in parse.ts)", () => {
    const s = placementShapes();
    expect(PLACEMENT_KEYS).toEqual({
      TOP_KEYS: keysOf(s.PlacementConfigShape),
      PARTITION_KEYS: keysOf(s.PartitionShape),
      QUEUE_KEYS: keysOf(s.QueueShape),
      RULE_KEYS: keysOf(s.PlacementRuleShape),
      FILTER_KEYS: keysOf(s.PlacementFilterShape),
      RESOURCE_KEYS: keysOf(s.QueueResourcesShape),
      LIMIT_KEYS: keysOf(s.LimitShape),
      TEMPLATE_KEYS: keysOf(s.ChildTemplateShape),
      PREEMPTION_KEYS: keysOf(s.PreemptionShape),
      NODESORT_KEYS: keysOf(s.NodeSortPolicyShape),
      RESOLVER_KEYS: keysOf(s.UserGroupResolverShape),
    });
  });

  it("compiles the embedded default to plain JSON that survives a round trip", () => {
    const compiled = placementEngine.compile(defaultSource);
    expect(compiled.ok).toBe(true);
    if (!compiled.ok) return;
    expect(JSON.parse(JSON.stringify(compiled.value))).toEqual(compiled.value);
    const policy = placementEngine.load(compiled.value);
    expect([...policy.partitions.keys()]).toEqual(["default"]);
    expect([...policy.partitions.get("default")!.queues.keys()]).toEqual([
      "root",
      "root.default",
      "root.namespaces",
      "root.newapp",
    ]);
  });

  it("never throws on arbitrary text", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (text) => {
        const r = compilePlacement(text);
        if (!r.ok) for (const e of r.error) expect(e.code).toMatch(/^placement_[a-z_]+$/);
      }),
    );
  });

  it("never throws on arbitrary YAML-shaped values", () => {
    const leaf = fc.oneof(fc.string({ maxLength: 8 }), fc.boolean(), fc.integer(), fc.constant(null));
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        leaf,
        fc.array(tie("node"), { maxLength: 3 }),
        fc.dictionary(
          fc.constantFrom(
            "name",
            "queues",
            "parent",
            "create",
            "value",
            "filter",
            "users",
            "submitacl",
            "placementrules",
            "x",
          ),
          tie("node"),
          { maxKeys: 4 },
        ),
      ),
    })).node;
    fc.assert(
      fc.property(value, (partition) => {
        const r = compilePlacement(JSON.stringify({ partitions: [partition] }));
        if (r.ok) {
          const policy = loadPlacement(r.value);
          const d = decidePlacement(
            policy,
            { user: "alice", queue: "q", tags: { namespace: "n" } },
            { explain: true },
          );
          expect(typeof d.verdict.rejected).toBe("boolean");
        }
      }),
      { numRuns: 300 },
    );
  });

  it("reports every validation error, YuniKorn's first first, each at its line and column", () => {
    const r = compilePlacement(
      "partitions:\n  - queues: [{name: root, queues: [{name: 'a b'}, {name: 'c d'}]}]\n",
    );
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.error.map((e) => [e.code, e.at])).toEqual([
        ["placement_invalid_queue_name", "2:37"],
        ["placement_invalid_queue_name", "2:52"],
      ]);
  });
});
