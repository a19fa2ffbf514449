import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { USAGE, version } from "../../src/cli/main.js";
import { FILTER_COMMANDS } from "../../src/cli/filter-command.js";
import { REPO_ROOT } from "../support/cases.js";
import { run } from "./run-cli.js";

describe("arbiter eval", () => {
  it("answers JSON lines with the API's verdicts, and a line may carry its own policy", async () => {
    const own =
      "partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: '*'\n        queues:\n          - name: fixedq\n    placementrules:\n      - name: fixed\n        value: root.fixedq\n";
    const lines = [
      JSON.stringify({ user: "sarah", groups: ["sarah"], queue: "root.default" }),
      "not json",
      JSON.stringify({ policy: own, input: { user: "bob" } }),
      JSON.stringify({ policy: "partitions: 7", input: { user: "bob" } }),
      JSON.stringify({ user: 5 }),
    ].join("\n");
    const r = await run(["eval", "placement"], lines);
    expect(r.code).toBe(0);
    const out = r.out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(out).toHaveLength(5);
    expect(out[0]).toMatchObject({ cacheable: true, rejected: false });
    expect(out[0].decision_id).toMatch(/[0-9a-f-]{36}/);
    expect(out[1].error.code).toBe("invalid_json");
    expect(out[2]).toMatchObject({ queue: "root.fixedq", rule: { name: "fixed" } });
    expect(out[3].error.code).toBe("policy_invalid");
    expect(out[4].error).toMatchObject({ code: "invalid_request" });
    expect(out[4].error.message).toContain("`user`");
  });

  it("says what a line is for each engine", async () => {
    const help = (await run(["eval", "--help"])).out;
    for (const engine of ["limits", "placement", "match", "jobfilter", "customs", "jq", "classad"])
      expect(help).toMatch(new RegExp(`^  ${engine} `, "m"));
    expect(help).toContain('{"job": {...}, "queue"?:');
    expect(help).toContain("POST /v1/place");
  });

  it("refuses --policy where it does not apply", async () => {
    const r = await run(["eval", "jq", "--policy", "x"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("--policy does not apply to `jq`");
  });

  it("reads jq lines keeping number literals, as jq reads its input", async () => {
    const lines = [
      '{"program": ".", "input": [1.0, 1E+2, 100000000000000000000, 9007199254740993]}',
      '{"program": "$x", "input": null, "args": {"x": 1.50}}',
      '{"program": ".", "input": 1.0',
    ].join("\n");
    const r = await run(["eval", "jq"], lines);
    expect(r.code).toBe(0);
    const out = r.out
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(out[0].printed).toEqual(["[1.0,1E+2,100000000000000000000,9007199254740993]"]);
    expect(out[1].printed).toEqual(["1.50"]);
    expect(out[2].error.code).toBe("invalid_json");
  });

  it("writes jq outputs with their keys in jq's order", async () => {
    const r = await run(["eval", "jq"], '{"program": ". + {\\"1\\": 2}", "input": {"b": 1, "10": 0}}');
    expect(r.out).toBe('{"outputs":[{"b":1,"10":0,"1":2}],"printed":["{\\"b\\":1,\\"10\\":0,\\"1\\":2}"]}\n');
  });

  it("rejects an unknown engine with usage", async () => {
    const r = await run(["eval", "nope"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown engine");
  });
});

describe("arbiter help and version", () => {
  it("prints the package version", async () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { version: string };
    expect(version()).toBe(pkg.version);
    expect(await run(["--version"])).toEqual({ code: 0, out: `arbiter ${pkg.version}\n`, err: "" });
  });

  it("lists every command and every filter subcommand in the top-level help", async () => {
    const r = await run(["--help"]);
    expect(r).toEqual({ code: 0, out: USAGE, err: "" });
    for (const cmd of ["validate", "compile", "eval", "publish", "jq", "filter"])
      expect(USAGE).toMatch(new RegExp(`^  ${cmd} `, "m"));
    for (const sub of FILTER_COMMANDS) expect(USAGE).toMatch(new RegExp(`^  filter ${sub} `, "m"));
    expect(USAGE).toContain("--reset");
    expect(USAGE).toContain("--version");
  });

  it("answers each command's unknown options with usage", async () => {
    for (const cmd of ["validate", "lint", "compile", "eval", "publish"]) {
      const r = await run([cmd, "--frobnicate"]);
      expect(r.code, cmd).toBe(2);
      expect(r.err.toLowerCase(), cmd).toContain("usage");
    }
  });

  it.each(["validate", "lint", "compile", "eval", "publish", "jq", "filter"])(
    "%s --help prints usage and exits 0",
    async (cmd) => {
      const r = await run([cmd, "--help"]);
      expect(r.code).toBe(0);
      expect(r.out.toLowerCase()).toContain("usage");
    },
  );

  it("rejects unknown commands", async () => {
    const r = await run(["frobnicate"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("unknown command");
  });

  it("suggests the closest command, option and verb for a misspelt one", async () => {
    const command = await run(["valdate", "policies/pool.conf"]);
    expect(command.code).toBe(2);
    expect(command.err).toMatch(/^arbiter: unknown command `valdate` \(did you mean `validate`\?\)\n/);
    const cases: [string[], string][] = [
      [["validate", "x.yaml", "--quite"], "unknown option --quite (did you mean `--quiet`?)"],
      [
        ["compile", "--allow-mising", "customs"],
        "unknown option --allow-mising (did you mean `--allow-missing`?)",
      ],
      [["eval", "match", "--polcy", "pool.conf"], "unknown option --polcy (did you mean `--policy`?)"],
      [["publish", "--remot"], "unknown option --remot (did you mean `--remote`?)"],
      [["test", "--fromat", "json"], "unknown option --fromat (did you mean `--format`?)"],
    ];
    for (const [argv, text] of cases) {
      const r = await run(argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.err.split("\n")[0], argv.join(" ")).toBe(text);
      expect(r.err.toLowerCase(), argv.join(" ")).toContain("usage");
    }
    const engine = await run(["validate", "x.txt", "--engine", "placment"]);
    expect(engine.code).toBe(2);
    expect(engine.err).toBe("unknown engine `placment` (did you mean `placement`?)\n");
    const byFile = await run(["validate", "x.txt", "--engine", "pool"]);
    expect(byFile.err).toBe("unknown engine `pool`; the engine for pool.conf is `match`\n");
    const missing = await run(["compile", "--allow-missing", "custom"]);
    expect(missing.err).toContain("--allow-missing: there is no engine `custom` (did you mean `customs`?)");
    const verb = await run(["candidate", "promte"]);
    expect(verb.code).toBe(2);
    expect(verb.err).toMatch(/^arbiter candidate: unknown verb `promte` \(did you mean `promote`\?\)/);
  });
});

it("the bin entry runs the CLI through node", { timeout: 30_000 }, () => {
  const r = spawnSync(
    process.execPath,
    [join(REPO_ROOT, "bin/arbiter.mjs"), "validate", join(REPO_ROOT, "policies/pool.conf")],
    {
      encoding: "utf8",
    },
  );
  expect(r.status).toBe(0);
  expect(r.stdout).toBe("Policy is valid.\n");
  expect(readFileSync(join(REPO_ROOT, "package.json"), "utf8")).toContain('"arbiter": "bin/arbiter.mjs"');
});

it("a reader that stops early ends the command quietly, as jq does", async () => {
  const { spawn } = await import("node:child_process");
  const child = spawn(process.execPath, [join(REPO_ROOT, "bin/arbiter.mjs"), "jq", "-c", ".[]"], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let err = "";
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  child.stdin.end(JSON.stringify(Array.from({ length: 200_000 }, (_, i) => i)));
  // Read the first output, then close the pipe as `head -1` would.
  await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
  child.stdout.destroy();
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  expect(err).toBe("");
  expect(code).toBe(141);
}, 30_000);
