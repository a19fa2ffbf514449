import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cases.js";
import { run, scratchSpace } from "./run-cli.js";

const scratch = scratchSpace("arbiter-validate-");
const policy = (name: string) => readFileSync(join(REPO_ROOT, "policies", name), "utf8");

describe("arbiter validate", () => {
  it.each(["placement.yaml", "pool.conf", "customs.json", "filters.json"])(
    "says `Policy is valid.` for %s whether or not stdout is a terminal",
    async (name) => {
      const file = join(REPO_ROOT, "policies", name);
      expect(await run(["validate", file], "", false)).toEqual({
        code: 0,
        out: "Policy is valid.\n",
        err: "",
      });
      expect(await run(["validate", file], "", true)).toEqual({
        code: 0,
        out: "Policy is valid.\n",
        err: "",
      });
      expect(await run(["validate", file, "--quiet"])).toEqual({ code: 0, out: "", err: "" });
    },
  );

  it("prints one `file:line:column: message` line per error and exits 1", async () => {
    const file = scratch.file(
      "pool.conf",
      "# policy\nNEGOTIATOR_PE_JOB_ONLY_EXPR = (Owner ==\nNEGOTIATOR_PE_JOB_EXPR = )\n",
    );
    const r = await run(["validate", file]);
    expect(r.code).toBe(1);
    expect(r.out).toBe("");
    const lines = r.err.trimEnd().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(new RegExp(`^${file}:2:\\d+: .+`));
    expect(lines[1]).toMatch(new RegExp(`^${file}:3:\\d+: .+`));
  });

  it("places YAML key errors and every placement error by line and column", async () => {
    const file = scratch.file(
      "queues.yaml",
      "partitions:\n  - name: default\n    queues:\n      - name: root\n        bogus: 1\n    placementrules:\n      - name: fixed\n        valu: root.x\n",
    );
    expect(await run(["validate", file])).toEqual({
      code: 1,
      out: "",
      err: `${file}:5:9: field \`bogus\` not found in queue\n${file}:8:9: field \`valu\` not found in placement rule\n`,
    });
  });

  it("names the file it was given for a JSON syntax error, with line and column", async () => {
    const file = scratch.file("pool-defaults.json", '{\n  "defaults": {"maxLoad": 2\n}\n');
    expect(await run(["validate", file, "--engine", "customs"])).toEqual({
      code: 1,
      out: "",
      err: `${file}:4:1: not valid JSON: Expecting ',' delimiter\n`,
    });
    const filters = scratch.file("filters.json", '[{"action": "ACCEPT"}\n {"action": "REJECT"}]');
    expect((await run(["validate", filters])).err).toBe(
      `${filters}:2:2: not valid JSON: Expecting ',' delimiter\n`,
    );
    const limits = scratch.file("limits.conf", '{\n  "schema": 1,\n}');
    expect((await run(["validate", limits])).err).toBe(
      "Limit configuration is invalid:\nInvalid limit configuration: Invalid JSON: Expecting property name enclosed in double quotes: line 3 column 1 (char 17)\n",
    );
  });

  it("keeps pscheduler validate-limits' terminal rule and texts for limits only", async () => {
    const limits = join(REPO_ROOT, "policies/limits.json");
    expect(await run(["validate", limits], "", true)).toEqual({
      code: 0,
      out: "Limit configuration is valid.\n",
      err: "",
    });
    expect(await run(["validate", limits], "", false)).toEqual({ code: 0, out: "", err: "" });
    expect((await run(["validate", limits, "--quiet"], "", true)).out).toBe("");
    const dup = scratch.file(
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
    expect(await run(["validate", dup])).toEqual({
      code: 1,
      out: "",
      err: `Limit configuration is invalid:\n${dup}:1:85: Duplicate identifier 'a'\n`,
    });
    const schema = await run(["validate", scratch.file("limits.conf", '{"schema": 1, "identifiers": []}')]);
    expect(schema.err).toMatch(
      /^Limit configuration is invalid:\nInvalid limit configuration: At \/: '\w+' is a required property\n$/,
    );
    const missing = await run(["validate", join(scratch.root, "absent", "limits.json")]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/^Unable to read input: /);
  });

  it("places a jq error of a limits file at the file's line and column, naming the limit", async () => {
    const file = scratch.file(
      "limits.conf",
      [
        "{",
        '  "schema": 2,',
        '  "identifiers": [{"name": "id-x", "description": "x", "type": "ip-cidr-list", "data": 5}],',
        '  "classifiers": [],',
        '  "limits": [],',
        '  "applications": []',
        "}",
      ].join("\n"),
    );
    expect((await run(["validate", file])).err).toBe(
      `Limit configuration is invalid:\n${file}:3:88: identifier "id-x": JSON provided must be a dictionary.\n`,
    );
    const jq = scratch.file(
      "limits.conf",
      [
        "{",
        '  "schema": 2, "identifiers": [], "classifiers": [], "applications": [],',
        '  "limits": [{"name": "throughput-default-parallel", "description": "p", "type": "jq",',
        '              "data": {"script": [".test.spec.parallel as $p |", "$p <= lenght"]}}]',
        "}",
      ].join("\n"),
    );
    const r = await run(["validate", jq]);
    expect(r.code).toBe(1);
    expect(r.err).toBe(
      `Limit configuration is invalid:\n${jq}:4:73: limit "throughput-default-parallel": lenght/0 is not defined\n`,
    );
  });

  it.each([
    ["limits.conf", "limits.json", "Limit configuration is valid.\n"],
    ["queues.yaml", "placement.yaml", "Policy is valid.\n"],
    ["condor_config", "pool.conf", "Policy is valid.\n"],
    ["condor_config.local", "pool.conf", "Policy is valid.\n"],
    ["99-negotiator.config", "pool.conf", "Policy is valid.\n"],
  ])("guesses the engine from the origin's file name %s", async (name, ours, said) => {
    const file = scratch.file(name, policy(ours));
    expect(await run(["validate", file], "", true)).toEqual({ code: 0, out: said, err: "" });
  });

  it("guesses by the origin's name for an invalid file too, and reports in that engine's terms", async () => {
    const r = await run(["validate", scratch.file("queues.yaml", "partitions: 7\n")]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("must be a sequence");
  });

  it("takes --engine when the file name says nothing", async () => {
    const file = scratch.file("anything.txt", 'NEGOTIATOR_PE_JOB_ONLY_EXPR = Owner == "mallory"\n');
    const guess = await run(["validate", file]);
    expect(guess.code).toBe(2);
    expect(guess.err).toContain("use --engine");
    expect(await run(["validate", file, "--engine", "match"])).toEqual({
      code: 0,
      out: "Policy is valid.\n",
      err: "",
    });
  });

  it("says in its help which engine keeps the terminal rule", async () => {
    const r = await run(["validate", "--help"]);
    expect(r.out).toContain('"Policy is valid."');
    expect(r.out).toContain("only when stdout is a terminal");
    for (const name of ["limits.conf", "queues.yaml", "condor_config", "*.config"])
      expect(r.out).toContain(name);
  });
});
