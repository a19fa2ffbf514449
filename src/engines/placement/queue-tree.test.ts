import { describe, expect, it } from "vitest";
import { compilePlacement } from "./compile.js";
import { queueTrees, type QueueTreeNode } from "./queue-tree.js";
import type { PlacementData } from "./types.js";

function compiled(yaml: string): PlacementData {
  const r = compilePlacement(yaml);
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.value;
}

function find(node: QueueTreeNode | null, path: string): QueueTreeNode | undefined {
  if (node === null) return undefined;
  if (node.queuename === path) return node;
  for (const c of node.children) {
    const f = find(c, path);
    if (f) return f;
  }
  return undefined;
}

const POLICY = `
partitions:
  - name: default
    placementrules:
      - name: fixed
        value: root.batch
      - name: user
        create: true
        parent:
          name: fixed
          value: root.users
      - name: tag
        value: namespace
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: batch
            submitacl: "alice,bob admins"
            adminacl: " ops"
          - name: users
            parent: true
            queues:
              - name: sarah
          - name: web
  - name: gpu
    placementrules:
      - name: provided
    queues:
      - name: root
        queues:
          - name: a
`;

describe("queueTrees", () => {
  const [main, gpu] = queueTrees(compiled(POLICY));

  it("shows the configured tree with parents, leaf flags and ACLs as YuniKorn writes them", () => {
    expect(main.name).toBe("default");
    expect(main.root?.queuename).toBe("root");
    expect(main.root?.parent).toBe("");
    expect(main.root?.children.map((c) => c.queuename)).toEqual(["root.batch", "root.users", "root.web"]);
    const batch = find(main.root, "root.batch")!;
    expect(batch).toMatchObject({
      isLeaf: true,
      parent: "root",
      submitacl: "alice,bob admins",
      adminacl: " ops",
    });
    expect(find(main.root, "root.users")).toMatchObject({ isLeaf: false });
    expect(main.root?.submitacl).toBe("*");
  });

  it("names the rules that can place into each leaf", () => {
    expect(find(main.root, "root.batch")!.rules).toEqual([
      { index: 0, name: "fixed" },
      { index: 2, name: "tag" },
    ]);
    expect(find(main.root, "root.users.sarah")!.rules).toEqual([{ index: 1, name: "user" }]);
    expect(find(main.root, "root.web")!.rules).toEqual([{ index: 2, name: "tag" }]);
    expect(find(main.root, "root.users")!.rules).toEqual([]);
    // A provided rule without a parent can name any queue.
    expect(find(gpu.root, "root.a")!.rules).toEqual([{ index: 0, name: "provided" }]);
  });

  it("lists where creating rules may create queues", () => {
    expect(main.creates).toEqual([{ index: 1, name: "user", under: ["root.users"] }]);
  });

  it("filters by partition, case-insensitively", () => {
    expect(queueTrees(compiled(POLICY), "GPU").map((p) => p.name)).toEqual(["gpu"]);
    expect(queueTrees(compiled(POLICY), "none")).toEqual([]);
  });
});
