import { describe, expect, it } from "vitest";
import { checkJsonShape, describeJsonShape } from "./json-shape.js";

const nest = (n: number): unknown => JSON.parse("[".repeat(n) + "]".repeat(n));

describe("checkJsonShape", () => {
  it("accepts values at the limits", () => {
    expect(checkJsonShape(nest(100))).toBeNull();
    expect(checkJsonShape({ a: Array.from({ length: 10_000 }, () => 0) })).toBeNull();
    expect(checkJsonShape("scalar")).toBeNull();
  });

  it("names the first container nested past the depth limit, without recursion", () => {
    const v = checkJsonShape({ spec: { x: nest(200_000) } });
    expect(v).toMatchObject({ kind: "depth", limit: 100 });
    expect(v?.path.slice(0, 3)).toEqual(["spec", "x", 0]);
    expect(v?.path).toHaveLength(100);
    expect(describeJsonShape(v!)).toBe("`spec.x[0][0][0][0][0][0]…` is nested more than 100 levels deep (the limit is 100)");
  });

  it("names a container holding too many items", () => {
    const v = checkJsonShape({ ok: [1], tools: Array.from({ length: 10_001 }, () => 0) }, { maxDepth: 100, maxItems: 10_000 });
    expect(v).toEqual({ kind: "items", path: ["tools"], limit: 10_000 });
    expect(describeJsonShape(v!)).toBe("`tools` holds more than 10000 items (the limit is 10000)");
    const wide = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i]));
    expect(checkJsonShape([wide], { maxDepth: 5, maxItems: 10 })).toEqual({ kind: "items", path: [0], limit: 10 });
  });
});
