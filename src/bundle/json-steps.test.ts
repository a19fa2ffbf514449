// The bundle's JSON work in slices (issue 24, "/healthz answers within 100 ms"): the
// sliced copy, text and canonical text are exactly what JSON.parse(JSON.stringify(v)),
// JSON.stringify(v) and canonicalJson(v) give, edge values included, and a large value
// is really cut into slices.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { finish, finishInSlices, Pace } from "../engines/common/slices.js";
import { ENGINES } from "./registry.js";
import { canonicalJson } from "./canonical.js";
import { canonicalJsonSteps, jsonCopySteps, jsonBytesSteps } from "./json-steps.js";

/** Runs all three, each in slices of `slice` units, and compares them with the one-piece forms. */
async function agree(value: unknown, slice = 7): Promise<void> {
  const copy = await finishInSlices(jsonCopySteps(value, new Pace(slice)), async () => {});
  expect(copy).toStrictEqual(JSON.parse(JSON.stringify(value ?? null)));
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  expect(text(finish(jsonBytesSteps(value, new Pace(slice))))).toBe(JSON.stringify(value));
  expect(finish(canonicalJsonSteps(value, new Pace(slice)))).toEqual(
    new TextEncoder().encode(canonicalJson(value)),
  );
}

describe("JSON work in slices", () => {
  it("agrees with the one-piece forms on arbitrary JSON values", async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), async (v) => {
        await agree(v);
      }),
      { numRuns: 300 },
    );
  });

  it("agrees on what JSON leaves out or changes: undefined, functions, NaN, -0, dates, boxed values, __proto__ keys", async () => {
    const edge = {
      a: undefined,
      b: () => 1,
      c: [undefined, () => 1, Symbol("s"), Number.NaN, -0, Infinity],
      d: new Date(0),
      e: Object(2),
      f: JSON.parse('{"__proto__": {"x": 1}, "2": "two", "1": "one"}'),
      g: { nested: [[[{ deep: null }]]], empty: {}, none: [] },
      "h\u2028\ud800": "lone \udc00 surrogate",
    };
    await agree(edge, 1);
    const copy = finish(jsonCopySteps(edge)) as { f: object };
    expect(Object.getPrototypeOf(copy.f)).toBe(Object.prototype);
    expect(Object.keys(copy.f)).toEqual(["1", "2", "__proto__"]);
    expect(finish(jsonCopySteps(undefined))).toBeNull();
  });

  it("throws as JSON.stringify does on a circular value and a BigInt", () => {
    const loop: Record<string, unknown> = { a: [1] };
    (loop.a as unknown[]).push(loop);
    expect(() => finish(jsonCopySteps(loop))).toThrow(TypeError);
    expect(() => finish(jsonBytesSteps(loop))).toThrow(TypeError);
    expect(() => finish(jsonCopySteps({ n: 1n }))).toThrow(TypeError);
    // a value met twice, not inside itself, is no loop
    const shared = { x: 1 };
    expect(finish(jsonCopySteps([shared, shared]))).toEqual([{ x: 1 }, { x: 1 }]);
  });

  it("agrees on every engine's compiled shipped policy, and cuts a large one into slices", async () => {
    const files = {
      placement: "placement.yaml",
      match: "pool.conf",
      limits: "limits.json",
      customs: "customs.json",
      jobfilter: "filters.json",
    } as const;
    for (const [engine, file] of Object.entries(files)) {
      const compiled = ENGINES[engine as keyof typeof files].compile(
        readFileSync(`policies/${file}`, "utf8"),
      );
      expect(compiled.ok).toBe(true);
      if (compiled.ok) await agree({ engines: { [engine]: compiled.value } }, 64);
    }
    const big = Array.from({ length: 20_000 }, (_, i) => ({ i, name: `rule-${i}`, list: [i, i + 1] }));
    let pauses = 0;
    await finishInSlices(jsonCopySteps(big), async () => void pauses++);
    expect(pauses).toBeGreaterThan(5);
  });
});
