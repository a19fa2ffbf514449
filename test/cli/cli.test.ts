import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync, copyFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../src/cli/main.js";
import type { Io } from "../../src/cli/io.js";
import { REPO_ROOT } from "../support/cases.js";

interface Run {
  code: number;
  out: string;
  err: string;
}

async function run(argv: string[], stdin = "", isTty = false): Promise<Run> {
  let out = "";
  let err = "";
  const io: Io = {
    stdout: (t) => void (out += t),
    stderr: (t) => void (err += t),
    readStdin: async () => stdin,
    isTty,
    stdinIsTty: false,
    env: {},
  };
  const code = await main(argv, io);
  return { code, out, err };
}

const scratch = mkdtempSync(join(tmpdir(), "arbiter-cli-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function scratchFile(name: string, text: string): string {
  const path = join(scratch, name);
  writeFileSync(path, text);
  return path;
}

describe("arbiter validate", () => {
  it("accepts a valid policy, guessing the engine from the file name", async () => {
    const r = await run(["validate", join(REPO_ROOT, "policies/placement.yaml")]);
    expect(r).toEqual({ code: 0, out: "Policy is valid.\n", err: "" });
  });

  it("prints one `at: message` line per error and exits 1", async () => {
    const file = scratchFile("placement.yaml", "partitions:\n  - name: default\n    placementrules:\n      - name: bogus\n");
    const r = await run(["validate", file]);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    expect(r.err.trim().split("\n").length).toBeGreaterThanOrEqual(1);
    expect(r.err).toMatch(/^\S+: .+/);
  });

  it("speaks like pscheduler validate-limits", async () => {
    const limits = join(REPO_ROOT, "policies/limits.json");
    expect(await run(["validate", limits], "", true)).toEqual({ code: 0, out: "Limit configuration is valid.\n", err: "" });
    expect((await run(["validate", limits], "", false)).out).toBe("");
    expect((await run(["validate", limits, "--quiet"], "", true)).out).toBe("");
    const dup = scratchFile(
      "limits.json",
      JSON.stringify({
        schema: 1,
        identifiers: [
          { name: "a", description: "x", type: "always", data: {} },
          { name: "a", description: "y", type: "always", data: {} },
        ],
        classifiers: [],
        limits: [],
        applications: [],
      }),
    );
    const r = await run(["validate", dup]);
    expect(r.code).toBe(1);
    expect(r.err).toBe("Invalid limit configuration: At /identifiers/1: Duplicate identifier 'a'\n");
  });

  it("takes --engine when the file name says nothing", async () => {
    const file = scratchFile("anything.txt", "NEGOTIATOR_PE_JOB_ONLY_EXPR = Owner == \"mallory\"\n");
    expect((await run(["validate", file])).code).toBe(2);
    expect(await run(["validate", file, "--engine", "match"])).toMatchObject({ code: 0, out: "Policy is valid.\n" });
  });
});

describe("arbiter compile", () => {
  it("compiles policies/ into a bundle with a stable content revision", async () => {
    const a = await run(["compile", join(REPO_ROOT, "policies")]);
    const b = await run(["compile", join(REPO_ROOT, "policies")]);
    expect(a.code).toBe(0);
    const bundle = JSON.parse(a.out) as { revision: string; engines: Record<string, { format: string; source_sha256: string }> };
    expect(bundle.revision).toMatch(/^[0-9a-f]{64}$/);
    expect(Object.keys(bundle.engines).sort()).toEqual(["customs", "jobfilter", "limits", "match", "placement"]);
    expect(JSON.parse(b.out).revision).toBe(bundle.revision);
  });

  it("writes nothing when any policy is invalid", async () => {
    const dir = mkdtempSync(join(scratch, "policies-"));
    copyFileSync(join(REPO_ROOT, "policies/placement.yaml"), join(dir, "placement.yaml"));
    writeFileSync(join(dir, "pool.conf"), "NEGOTIATOR_PE_JOB_ONLY_EXPR = (Owner == \n");
    const out = join(dir, "bundle.json");
    const r = await run(["compile", dir, "-o", out]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("pool.conf");
    expect(existsSync(out)).toBe(false);
  });
});

describe("arbiter eval", () => {
  it("answers JSON lines with the API's verdicts, and a line may carry its own policy", async () => {
    const own = "partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n        queues:\n          - name: fixedq\n    placementrules:\n      - name: fixed\n        value: root.fixedq\n";
    const lines = [
      JSON.stringify({ user: "sarah", groups: ["sarah"], queue: "root.default" }),
      "not json",
      JSON.stringify({ policy: own, input: { user: "bob" } }),
      JSON.stringify({ policy: "partitions: 7", input: { user: "bob" } }),
      JSON.stringify({ user: 5 }),
    ].join("\n");
    const r = await run(["eval", "placement"], lines);
    expect(r.code).toBe(0);
    const out = r.out.trim().split("\n").map((l) => JSON.parse(l));
    expect(out).toHaveLength(5);
    expect(out[0]).toMatchObject({ cacheable: true, rejected: false });
    expect(out[0].decision_id).toMatch(/[0-9a-f-]{36}/);
    expect(out[1].error.code).toBe("invalid_json");
    expect(out[2]).toMatchObject({ queue: "root.fixedq", rule: { name: "fixed" } });
    expect(out[3].error.code).toBe("policy_invalid");
    expect(out[4].error).toMatchObject({ code: "invalid_request" });
    expect(out[4].error.message).toContain("`user`");
  });

  it("reads jq lines keeping number literals, as jq reads its input", async () => {
    const lines = [
      '{"program": ".", "input": [1.0, 1E+2, 100000000000000000000, 9007199254740993]}',
      '{"program": "$x", "input": null, "args": {"x": 1.50}}',
      '{"program": ".", "input": 1.0',
    ].join("\n");
    const r = await run(["eval", "jq"], lines);
    expect(r.code).toBe(0);
    const out = r.out.trim().split("\n").map((l) => JSON.parse(l));
    expect(out[0].printed).toEqual(["[1.0,1E+2,100000000000000000000,9007199254740993]"]);
    expect(out[1].printed).toEqual(["1.50"]);
    expect(out[2].error.code).toBe("invalid_json");
  });

  it("rejects an unknown engine with usage", async () => {
    const r = await run(["eval", "nope"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown engine");
  });
});

describe("arbiter help", () => {
  it.each(["validate", "compile", "eval", "publish", "jq", "filter"])("%s --help prints usage and exits 0", async (cmd) => {
    const r = await run([cmd, "--help"]);
    expect(r.code).toBe(0);
    expect(r.out.toLowerCase()).toContain("usage");
  });

  it("rejects unknown commands", async () => {
    const r = await run(["frobnicate"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown command");
  });
});

describe("arbiter publish", () => {
  it("writes bundle then pointer to a local KV through wrangler", { timeout: 120_000 }, async () => {
    const state = join(scratch, "wrangler-state");
    const r = await run(["publish", "--local", "--persist-to", state, join(REPO_ROOT, "policies")]);
    expect(r.code, r.err).toBe(0);
    const revision = /published revision ([0-9a-f]{64})/.exec(r.out)?.[1];
    expect(revision).toBeDefined();
    const get = (key: string) =>
      spawnSync("npx", ["wrangler", "kv", "key", "get", key, "--binding", "POLICIES", "--local", "--persist-to", state, "--text"], {
        cwd: REPO_ROOT,
        encoding: "utf8",
      }).stdout.trim();
    expect(get("bundle:current")).toBe(revision);
    expect(JSON.parse(get(`bundle:${revision}`)).revision).toBe(revision);
  });

  it("publishes nothing when a policy is invalid", async () => {
    const dir = mkdtempSync(join(scratch, "broken-"));
    writeFileSync(join(dir, "placement.yaml"), "partitions: 7\n");
    const r = await run(["publish", "--local", "--persist-to", join(scratch, "never"), dir]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("nothing was published");
    expect(existsSync(join(scratch, "never"))).toBe(false);
  });
});

it("the bin entry runs the CLI through node", () => {
  const r = spawnSync(process.execPath, [join(REPO_ROOT, "bin/arbiter.mjs"), "validate", join(REPO_ROOT, "policies/pool.conf")], {
    encoding: "utf8",
  });
  expect(r.status).toBe(0);
  expect(r.stdout).toBe("Policy is valid.\n");
  expect(readFileSync(join(REPO_ROOT, "package.json"), "utf8")).toContain('"arbiter": "bin/arbiter.mjs"');
});
