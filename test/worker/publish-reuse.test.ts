import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { compileBundle, LoadedBundle, sourcesOf, type Bundle } from "../../src/bundle/index.js";
import { ENGINE_NAMES, type EngineName } from "../../src/engines/common/engine.js";
import { compilerId, embeddedBundle } from "../../src/state/policy-store.js";

// Issue 24, "/healthz answers within 100 ms throughout": publishing one engine compiles that
// engine only and takes the other engines' compiled entries from the active bundle, when that
// bundle was made by the same compiler (its `compiler` fingerprint). The bundle must be the one a
// full compile gives, byte for byte. The publishes here send each active source with trailing
// blanks: the same policy under a new revision, so the other files of this project see no change.

const BASE = "http://arbiter.test";

/** An engine's source with `n` trailing blanks: the same policy, another source text. */
const variant = (source: string, n: number): string => `${source.trimEnd()}\n${" ".repeat(n)}`;

/** The text and object of a bundle as stored in KV. */
async function stored(revision: string): Promise<{ text: string; bundle: Bundle }> {
  const text = await env.POLICIES.get(`bundle:${revision}`);
  expect(text, `bundle:${revision}`).not.toBeNull();
  return { text: text!, bundle: JSON.parse(text!) as Bundle };
}

/** Every engine's compiled entry taken by reference from `base` (not compiled again), the changed ones excepted. */
function reused(result: Bundle, base: Bundle, changed: EngineName[]): EngineName[] {
  return ENGINE_NAMES.filter(
    (e) =>
      !changed.includes(e) &&
      result.engines[e] !== undefined &&
      result.engines[e]!.compiled === base.engines[e]?.compiled,
  );
}

/** The engines of a bundle other than `changed`. */
const others = (bundle: Bundle, changed: EngineName[]): EngineName[] =>
  ENGINE_NAMES.filter((e) => !changed.includes(e) && bundle.engines[e] !== undefined);

describe("a publish compiles only the engine that changed", () => {
  it("builds on the embedded bundle: the same bytes as a full compile, the other engines' entries taken as they are", async () => {
    const base = embeddedBundle();
    expect(
      compilerId(),
      "the embedded bundle carries the compiler's fingerprint (scripts/build-bundle.mjs)",
    ).toMatch(/^[0-9a-f]{64}$/);
    // Decisions load the base's engines first: loading must leave the stored entries as they were.
    const loaded = new LoadedBundle(base);
    for (const e of ENGINE_NAMES) loaded.policy(e);
    for (const engine of ENGINE_NAMES) {
      if (base.engines[engine] === undefined) continue;
      const sources = { ...sourcesOf(base), [engine]: variant(base.engines[engine]!.source, 3) };
      const at = new Date(0).toISOString();
      const partial = await compileBundle(sources, at, undefined, { compiler: compilerId(), base });
      const full = await compileBundle(sources, at, undefined, { compiler: compilerId() });
      if (!partial.ok || !full.ok) throw new Error(`${engine}: the variant did not compile`);
      expect(JSON.stringify(partial.value), engine).toBe(JSON.stringify(full.value));
      expect(partial.value.revision).not.toBe(base.revision);
      expect(reused(partial.value, base, [engine]), engine).toEqual(others(base, [engine]));
    }
  });

  it("compiles every engine of a base made by another compiler, or whose entry does not hash to its source", async () => {
    const base = embeddedBundle();
    const sources = { ...sourcesOf(base), limits: variant(base.engines.limits!.source, 1) };
    const at = new Date(0).toISOString();
    const full = await compileBundle(sources, at, undefined, { compiler: compilerId() });
    const older: Bundle = { ...base, compiler: "0".repeat(64) };
    const unstamped: Bundle = { revision: base.revision, created_at: base.created_at, engines: base.engines };
    for (const other of [older, unstamped]) {
      const r = await compileBundle(sources, at, undefined, { compiler: compilerId(), base: other });
      expect(r.ok && JSON.stringify(r.value)).toBe(full.ok && JSON.stringify(full.value));
      expect(r.ok && reused(r.value, other, ["limits"])).toEqual([]);
    }
    const placement = base.engines.placement!;
    const tampered: Bundle = {
      ...base,
      engines: { ...base.engines, placement: { ...placement, source_sha256: "0".repeat(64) } },
    };
    const r = await compileBundle(sources, at, undefined, { compiler: compilerId(), base: tampered });
    expect(r.ok && JSON.stringify(r.value)).toBe(full.ok && JSON.stringify(full.value));
    expect(r.ok && reused(r.value, tampered, ["limits"])).toEqual(others(base, ["limits", "placement"]));
  });

  it("publishes, stages and promotes each engine on top of a published bundle to the bytes a full compile gives", async () => {
    const active = async () =>
      ((await (await SELF.fetch(`${BASE}/v1/policies`)).json()) as { revision: string }).revision;
    for (const [i, engine] of ENGINE_NAMES.entries()) {
      const before = await active();
      const base = before === embeddedBundle().revision ? embeddedBundle() : (await stored(before)).bundle;
      let revision: string;
      if (base.engines[engine] === undefined) continue;
      const source = variant(base.engines[engine]!.source, 5 + i);
      // Published through the coordinator, alternately as a publish and as a staging and its promotion.
      if (i % 2 === 0) {
        const res = await SELF.fetch(`${BASE}/v1/policies/${engine}`, { method: "PUT", body: source });
        expect(res.status, await res.clone().text()).toBe(200);
        revision = ((await res.json()) as { revision: string }).revision;
      } else {
        const staged = await SELF.fetch(`${BASE}/v1/policies/${engine}?stage=candidate`, {
          method: "PUT",
          body: source,
        });
        expect(staged.status, await staged.clone().text()).toBe(200);
        const promoted = await SELF.fetch(`${BASE}/v1/candidate/promote`, { method: "POST" });
        expect(promoted.status, await promoted.clone().text()).toBe(200);
        revision = ((await promoted.json()) as { revision: string }).revision;
      }
      const after = await stored(revision);
      expect(after.bundle.engines[engine]!.source).toBe(source);
      expect(after.bundle.compiler).toBe(compilerId());
      const full = await compileBundle(sourcesOf(after.bundle), after.bundle.created_at, undefined, {
        compiler: compilerId(),
      });
      if (!full.ok) throw new Error(`${engine}: the full compile failed`);
      expect(after.text, engine).toBe(JSON.stringify(full.value));
    }
  });
});
