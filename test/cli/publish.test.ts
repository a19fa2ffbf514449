import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ENGINE_NAMES } from "../../src/engines/common/engine.js";
import { REPO_ROOT } from "../support/cases.js";
import { run, scratchSpace } from "./run-cli.js";

const scratch = scratchSpace("arbiter-publish-");
const policy = (name: string) => readFileSync(join(REPO_ROOT, "policies", name), "utf8");
const others = (...keep: string[]) =>
  ENGINE_NAMES.filter((e) => !keep.includes(e)).flatMap((e) => ["--allow-missing", e]);

/** Reads a key of a local KV state folder with wrangler itself, as `wrangler dev --persist-to` would see it. */
function kvGet(state: string, key: string): string {
  return spawnSync(
    "npx",
    [
      "wrangler",
      "kv",
      "key",
      "get",
      key,
      "--binding",
      "POLICIES",
      "--local",
      "--persist-to",
      state,
      "--text",
    ],
    {
      cwd: REPO_ROOT,
      encoding: "utf8",
    },
  ).stdout.trim();
}

describe("arbiter publish", () => {
  it(
    "writes bundle then pointer, refuses to drop a served engine, and --reset drops the published bundle",
    { timeout: 180_000 },
    async () => {
      const state = join(scratch.root, "wrangler-state");
      const r = await run(["publish", "--local", "--persist-to", state, join(REPO_ROOT, "policies")]);
      expect(r.code, r.err).toBe(0);
      expect(r.err).toContain("not found: none\n");
      const revision = /published revision ([0-9a-f]{64})/.exec(r.out)?.[1] ?? "";
      expect(revision).toMatch(/^[0-9a-f]{64}$/);
      expect(kvGet(state, "bundle:current")).toBe(revision);
      expect(JSON.parse(kvGet(state, `bundle:${revision}`)).revision).toBe(revision);

      // A folder holding only filters.json would leave /v1/place and the rest unanswered: refused.
      const filtersOnly = scratch.folder({ "filters.json": policy("filters.json") });
      const refused = await run(["publish", "--local", "--persist-to", state, filtersOnly]);
      expect(refused.code).toBe(1);
      expect(refused.err).toContain(
        `the bundle published in local KV (revision ${revision.slice(0, 12)}) serves limits, placement, match, customs`,
      );
      expect(refused.err).toContain("--allow-missing placement\n");
      expect(refused.err).toContain("nothing was published\n");
      expect(kvGet(state, "bundle:current")).toBe(revision);

      const reset = await run(["publish", "--local", "--persist-to", state, "--reset"]);
      expect(reset.code, reset.err).toBe(0);
      expect(reset.out).toContain("serves its embedded bundle again");
      expect(kvGet(state, "bundle:current")).toBe("embedded");
      // The stored bundle stays, for rolling back.
      expect(JSON.parse(kvGet(state, `bundle:${revision}`)).revision).toBe(revision);

      // After the reset the embedded bundle is the active one again: dropping its engines is refused.
      const again = await run(["publish", "--local", "--persist-to", state, filtersOnly]);
      expect(again.code).toBe(1);
      expect(again.err).toContain("the embedded bundle (local KV holds no published bundle) serves limits,");
    },
  );

  it(
    "publishes a partial bundle when each left-out engine is named, against the embedded bundle when KV holds none",
    { timeout: 120_000 },
    async () => {
      const state = join(scratch.root, "partial-state");
      const filtersOnly = scratch.folder({ "filters.json": policy("filters.json") });
      const refused = await run([
        "publish",
        "--local",
        "--persist-to",
        state,
        filtersOnly,
        ...others("jobfilter", "customs"),
      ]);
      expect(refused.code).toBe(1);
      expect(refused.err).toContain(
        "the embedded bundle (local KV holds no published bundle) serves customs,",
      );
      const r = await run(["publish", "--local", "--persist-to", state, filtersOnly, ...others("jobfilter")]);
      expect(r.code, r.err).toBe(0);
      expect(r.err).toContain(`found: jobfilter (${join(filtersOnly, "filters.json")})\n`);
      const revision = /published revision ([0-9a-f]{64})/.exec(r.out)?.[1] ?? "";
      expect(Object.keys(JSON.parse(kvGet(state, `bundle:${revision}`)).engines)).toEqual(["jobfilter"]);
    },
  );

  it("publishes nothing when a policy is invalid", async () => {
    const dir = scratch.folder({ "placement.yaml": "partitions: 7\n" });
    const r = await run(["publish", "--local", "--persist-to", join(scratch.root, "never"), dir]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("nothing was published");
    expect(existsSync(join(scratch.root, "never"))).toBe(false);
  });

  it("takes --reset alone", async () => {
    expect((await run(["publish", "--reset", join(REPO_ROOT, "policies")])).code).toBe(2);
    expect((await run(["publish", "--reset", "--allow-missing", "limits"])).code).toBe(2);
  });
});
