import { describe, expect, it } from "vitest";
import { checkJsonDepth, checkJsonShape, describeJsonShape } from "./json-shape.js";

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
    expect(describeJsonShape(v!)).toBe(
      "`spec.x[0][0][0][0][0][0]…` is nested more than 100 levels deep (the limit is 100)",
    );
  });

  it("stays without recursion under a depth limit far past the first pass's (a 200,000-deep value, limit 1,000,000)", () => {
    expect(checkJsonShape(nest(200_000), { maxDepth: 1_000_000, maxItems: 10 })).toBeNull();
  });

  it("names a container holding too many items", () => {
    const v = checkJsonShape(
      { ok: [1], tools: Array.from({ length: 10_001 }, () => 0) },
      { maxDepth: 100, maxItems: 10_000 },
    );
    expect(v).toEqual({ kind: "items", path: ["tools"], limit: 10_000 });
    expect(describeJsonShape(v!)).toBe("`tools` holds more than 10000 items (the limit is 10000)");
    const wide = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, i]));
    expect(checkJsonShape([wide], { maxDepth: 5, maxItems: 10 })).toEqual({
      kind: "items",
      path: [0],
      limit: 10,
    });
  });
});

describe("checkJsonShape's first pass", () => {
  it("answers as the walk at and past each limit, for objects and arrays at every depth", () => {
    const limits = { maxDepth: 4, maxItems: 3 };
    const cases: [unknown, unknown][] = [
      [{ a: { b: { c: [] } } }, null],
      [{ a: { b: { c: [{}] } } }, { kind: "depth", path: ["a", "b", "c", 0], limit: 4 }],
      [[1, [2, [3, [4, 5, 6]]]], null],
      [[1, [2, [3, [4, 5, 6, 7]]]], { kind: "items", path: [1, 1, 1], limit: 3 }],
      [{ x: 1, y: 2, z: { p: 1, q: 2, r: 3 } }, null],
      [
        { x: 1, y: 2, z: { p: 1, q: 2, r: 3, s: 4 } },
        { kind: "items", path: ["z"], limit: 3 },
      ],
      [
        { w: 0, x: 1, y: 2, z: 3 },
        { kind: "items", path: [], limit: 3 },
      ],
    ];
    for (const [value, expected] of cases) expect(checkJsonShape(value, limits)).toEqual(expected);
  });

  it("is not misled by an inherited enumerable key (the walk counts own keys only)", () => {
    const proto = Object.prototype as Record<string, unknown>;
    proto.polluted = { deep: [[[[[]]]]] };
    try {
      expect(checkJsonShape({ a: 1, b: 2, c: 3 }, { maxDepth: 3, maxItems: 3 })).toBeNull();
    } finally {
      delete proto.polluted;
    }
  });
});

describe("checkJsonDepth", () => {
  const unlimited = (maxDepth: number) => ({ maxDepth, maxItems: Number.POSITIVE_INFINITY });

  it("answers as checkJsonShape without an item cap, at, under and past the limit", () => {
    const values: unknown[] = [
      null,
      "s",
      [],
      {},
      nest(100),
      nest(101),
      { spec: { x: nest(200_000) } },
      { a: [1, { b: nest(98) }], c: { d: nest(99) } },
      [{}, [[], { e: [nest(97)] }]],
      { wide: Array.from({ length: 20_000 }, () => ({ k: [0] })) },
      { ["__proto__"]: { deep: nest(100) } },
    ];
    for (const v of values)
      for (const depth of [1, 3, 100])
        expect(checkJsonDepth(v, depth)).toEqual(checkJsonShape(v, unlimited(depth)));
  });

  it("names the first container nested too deeply, as the full check does", () => {
    const v = checkJsonDepth({ ok: nest(3), spec: { x: nest(200_000) } }, 100);
    expect(v).toMatchObject({ kind: "depth", limit: 100 });
    expect(v?.path.slice(0, 3)).toEqual(["spec", "x", 0]);
  });
});
