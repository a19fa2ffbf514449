// Issue 24, "/healthz answers within 100 ms throughout": after a publish of one engine, an
// isolate that reads the new bundle keeps the policies it has loaded of the engines whose
// compiled entry did not change, and loads the changed engine only.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import type { EngineName } from "../engines/common/engine.js";
import { compileBundle, type Sources } from "./build.js";
import { LoadedBundle } from "./load.js";
import type { Bundle } from "./types.js";

const FILES: Record<EngineName, string> = {
  limits: "policies/limits.json",
  placement: "policies/placement.yaml",
  match: "policies/pool.conf",
  customs: "policies/customs.json",
  jobfilter: "policies/filters.json",
};
const ALL = Object.keys(FILES) as EngineName[];
const sources: Sources = Object.fromEntries(ALL.map((e) => [e, readFileSync(FILES[e], "utf8")]));
const at = new Date(0).toISOString();

/** A bundle compiled by the compiler `compiler` (a fingerprint), on `base` when given, as KV hands it back (parsed afresh). */
async function compiled(s: Sources, compiler: string | undefined, base?: Bundle): Promise<Bundle> {
  const r = await compileBundle(s, at, async () => {}, { compiler, base });
  if (!r.ok) throw new Error(r.error[0].message);
  return JSON.parse(JSON.stringify(r.value)) as Bundle;
}

describe("LoadedBundle after a publish", () => {
  it("keeps the loaded policies of unchanged engines and loads the changed one", async () => {
    const before = new LoadedBundle(await compiled(sources, "c1"));
    const policies = ALL.map((e) => before.policy(e));
    const next = await compiled({ ...sources, limits: `${sources.limits} ` }, "c1", before.bundle);
    const after = new LoadedBundle(next, [before]);
    expect(after.isLoaded("limits")).toBe(false);
    expect(after.policy("limits")).not.toBe(policies[0]);
    for (const [i, e] of ALL.entries()) if (e !== "limits") expect(after.policy(e), e).toBe(policies[i]);
  });

  it("loads every engine again when the bundles name no compiler or different ones", async () => {
    for (const [a, b] of [
      [undefined, undefined],
      ["c1", "c2"],
      ["c1", undefined],
    ] as const) {
      const before = new LoadedBundle(await compiled(sources, a));
      for (const e of ALL) before.policy(e);
      const after = new LoadedBundle(await compiled({ ...sources, limits: `${sources.limits} ` }, b), [
        before,
      ]);
      for (const e of ALL) expect(after.isLoaded(e), `${a} → ${b}: ${e}`).toBe(false);
    }
  });

  it("takes only what the earlier bundle has loaded, and an engine it lacks is loaded", async () => {
    const { placement, ...rest } = sources;
    const before = new LoadedBundle(await compiled(rest, "c1"));
    const match = before.policy("match");
    const after = new LoadedBundle(await compiled({ ...rest, placement }, "c1"), [before]);
    expect(after.policy("match")).toBe(match);
    expect(after.isLoaded("customs")).toBe(false);
    expect(after.isLoaded("placement")).toBe(false);
    expect(after.policy("placement")).toBeDefined();
  });
});
