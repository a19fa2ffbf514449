import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

const BASE = "http://arbiter.test";

interface Node {
  queuename: string;
  isLeaf: boolean;
  rules: { index: number; name: string }[];
  children: Node[];
}

describe("GET /v1/placement/queues", () => {
  it("shows the embedded policy's queue tree (YuniKorn's complex example) with the rules placing into each leaf", async () => {
    const res = await SELF.fetch(`${BASE}/v1/placement/queues`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      revision: string;
      partitions: { name: string; root: Node; creates: { name: string; under: string[] }[] }[];
    };
    expect(body.partitions.map((p) => p.name)).toEqual(["default"]);
    const root = body.partitions[0].root;
    expect(root.children.map((c) => [c.queuename, c.isLeaf])).toEqual([
      ["root.default", true],
      ["root.namespaces", false],
      ["root.newapp", false],
    ]);
    // Only the last rule (fixed root.default) names a configured leaf.
    expect(root.children[0].rules).toEqual([{ index: 2, name: "fixed" }]);
    expect(body.partitions[0].creates.find((c) => c.name === "tag")?.under).toEqual(["root.namespaces"]);
  });

  it("answers 404 naming an unknown partition", async () => {
    const res = await SELF.fetch(`${BASE}/v1/placement/queues?partition=nosuch`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain("`nosuch`");
  });
});
