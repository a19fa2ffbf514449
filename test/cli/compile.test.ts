import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ENGINE_NAMES } from "../../src/engines/common/engine.js";
import { compilerId } from "../../scripts/compiler-id.mjs";
import { REPO_ROOT } from "../support/cases.js";
import { run, scratchSpace } from "./run-cli.js";

const scratch = scratchSpace("arbiter-compile-");
const policy = (name: string) => readFileSync(join(REPO_ROOT, "policies", name), "utf8");
const others = (...keep: string[]) =>
  ENGINE_NAMES.filter((e) => !keep.includes(e)).flatMap((e) => ["--allow-missing", e]);

describe("arbiter compile", () => {
  it("compiles policies/ into a bundle with a stable content revision, naming every engine found", async () => {
    const a = await run(["compile", join(REPO_ROOT, "policies")]);
    const b = await run(["compile", join(REPO_ROOT, "policies")]);
    expect(a.code).toBe(0);
    const bundle = JSON.parse(a.out) as { revision: string; engines: Record<string, unknown> };
    expect(bundle.revision).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.keys(bundle.engines).sort()).toEqual([...ENGINE_NAMES].sort());
    expect(JSON.parse(b.out).revision).toBe(bundle.revision);
    for (const [engine, file] of [
      ["limits", "limits.json"],
      ["placement", "placement.yaml"],
      ["match", "pool.conf"],
      ["customs", "customs.json"],
      ["jobfilter", "filters.json"],
    ]) {
      expect(a.err).toContain(`${engine} (${join(REPO_ROOT, "policies", file)})`);
    }
    expect(a.err).toContain("not found: none\n");
    // stamped with this checkout's compiler, as the Worker stamps what it compiles, so a
    // Worker built from these sources reuses the entries of engines a later publish keeps
    expect((bundle as { compiler?: string }).compiler).toBe(compilerId(REPO_ROOT));
    expect(compilerId(REPO_ROOT)).toBe(compilerId(join(REPO_ROOT, "src", "..")));
  });

  it("refuses an empty folder, naming every engine it did not find", async () => {
    const dir = scratch.folder({});
    const out = join(dir, "bundle.json");
    const r = await run(["compile", dir, "-o", out]);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err).toContain("found: no policy file\n");
    for (const engine of ENGINE_NAMES) expect(r.err).toContain(`--allow-missing ${engine}\n`);
    expect(r.err).toContain(
      "not found: limits (no limits.json or limits.conf), placement (no placement.yaml or queues.yaml)",
    );
    expect(existsSync(out)).toBe(false);
  });

  it("recognises pScheduler's limits.conf, and builds a partial bundle only when told which engines to leave out", async () => {
    const dir = scratch.folder({ "limits.conf": policy("limits.json") });
    const refused = await run(["compile", dir]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain(`found: limits (${join(dir, "limits.conf")})\n`);
    expect(refused.err).toContain("refusing a bundle without placement, match, customs, jobfilter");
    const partial = await run(["compile", dir, ...others("limits")]);
    expect(partial.code, partial.err).toBe(0);
    expect(Object.keys(JSON.parse(partial.out).engines)).toEqual(["limits"]);
    // Leaving out three of the four is still refused, naming the one not allowed.
    const short = await run(["compile", dir, ...others("limits", "customs")]);
    expect(short.code).toBe(1);
    expect(short.err).toContain("refusing a bundle without customs:");
  });

  it("takes the engines to leave out from ARBITER_ALLOW_MISSING too, as the build runs compile itself", async () => {
    const dir = scratch.folder({ "limits.conf": policy("limits.json") });
    const r = await run(["compile", dir], "", false, { ARBITER_ALLOW_MISSING: "placement, match,customs" });
    expect(r.code).toBe(1);
    expect(r.err).toContain("refusing a bundle without jobfilter:");
    const ok = await run(["compile", dir, "--allow-missing", "jobfilter"], "", false, {
      ARBITER_ALLOW_MISSING: "placement, match,customs",
    });
    expect(ok.code, ok.err).toBe(0);
    expect((await run(["compile", dir], "", false, { ARBITER_ALLOW_MISSING: "pool" })).code).toBe(2);
  });

  it("recognises YuniKorn's queues.yaml and HTCondor's condor_config and *.config", async () => {
    for (const poolName of ["condor_config", "condor_config.local", "negotiator.config"]) {
      const dir = scratch.folder({
        "queues.yaml": policy("placement.yaml"),
        [poolName]: policy("pool.conf"),
      });
      const r = await run(["compile", dir, ...others("placement", "match")]);
      expect(r.code, r.err).toBe(0);
      expect(Object.keys(JSON.parse(r.out).engines).sort()).toEqual(["match", "placement"]);
      expect(r.err).toContain(`placement (${join(dir, "queues.yaml")}), match (${join(dir, poolName)})`);
    }
  });

  it("refuses two files for one engine, naming both", async () => {
    const dir = scratch.folder({
      "limits.json": policy("limits.json"),
      "limits.conf": policy("limits.json"),
    });
    const r = await run(["compile", dir, ...others("limits")]);
    expect(r.code).toBe(1);
    expect(r.err).toContain(
      `${join(dir, "limits.conf")} and ${join(dir, "limits.json")} both hold the limits policy`,
    );
    const pool = scratch.folder({ "pool.conf": policy("pool.conf"), "a.config": policy("pool.conf") });
    expect((await run(["compile", pool, ...others("match")])).err).toContain(
      `${join(pool, "a.config")} and ${join(pool, "pool.conf")} both hold the match policy`,
    );
  });

  it("names files it ignores", async () => {
    const dir = scratch.folder({
      "placement.yml": policy("placement.yaml"),
      "filters.json": policy("filters.json"),
    });
    const r = await run(["compile", dir, ...others("jobfilter")]);
    expect(r.code).toBe(0);
    expect(r.err).toContain("ignored (not a policy file name): placement.yml\n");
  });

  it("rejects --allow-missing of something that is not an engine", async () => {
    const r = await run(["compile", join(REPO_ROOT, "policies"), "--allow-missing", "pool"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("there is no engine `pool`");
  });

  it("writes nothing when any policy is invalid, and names the file it read", async () => {
    const dir = scratch.folder({
      "queues.yaml": policy("placement.yaml"),
      condor_config: "NEGOTIATOR_PE_JOB_ONLY_EXPR = (Owner == \n",
    });
    const out = join(dir, "bundle.json");
    writeFileSync(out, "before");
    const r = await run(["compile", dir, "-o", out, ...others("placement", "match")]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(new RegExp(`${join(dir, "condor_config")}:1:\\d+: `));
    expect(r.err).toContain("nothing was written");
    expect(readFileSync(out, "utf8")).toBe("before");
  });
});

describe("scripts/build-bundle.mjs (npm test's and wrangler's build step)", () => {
  it("keeps the last build's output when neither the policies nor the compiler changed, and compiles again when a policy or the output did", () => {
    const names = readdirSync(join(REPO_ROOT, "policies")).filter((n) =>
      statSync(join(REPO_ROOT, "policies", n)).isFile(),
    );
    const dir = scratch.folder(Object.fromEntries(names.map((n) => [n, policy(n)])));
    const out = join(scratch.root, "embedded.generated.json");
    const build = () =>
      spawnSync(process.execPath, ["scripts/build-bundle.mjs"], {
        cwd: REPO_ROOT,
        env: { ...process.env, ARBITER_BUILD_POLICIES: dir, ARBITER_BUILD_OUTPUT: out },
        encoding: "utf8",
      });
    const kept = "unchanged since the last build";
    const first = build();
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).not.toContain(kept);
    const made = readFileSync(out, "utf8");
    const placement = () =>
      (JSON.parse(readFileSync(out, "utf8")) as { engines: Record<string, { source: string }> }).engines
        .placement.source;

    const second = build();
    expect(second.status).toBe(0);
    expect(second.stdout).toContain(kept);
    expect(readFileSync(out, "utf8")).toBe(made);

    writeFileSync(join(dir, "placement.yaml"), `${policy("placement.yaml")}\n# edited\n`);
    const third = build();
    expect(third.status, third.stderr).toBe(0);
    expect(third.stdout).not.toContain(kept);
    expect(placement()).toContain("# edited");

    writeFileSync(out, made); // an output that is not the one the last build wrote
    const fourth = build();
    expect(fourth.stdout).not.toContain(kept);
    expect(placement()).toContain("# edited");
  });
});
