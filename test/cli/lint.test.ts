import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cases.js";
import { run, scratchSpace } from "./run-cli.js";

const scratch = scratchSpace("arbiter-lint-");
const shipped = (name: string) => join(REPO_ROOT, "policies", name);

const SHADOWED = `partitions:
  - name: default
    placementrules:
      - name: fixed
        value: root.default
      - name: provided
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: default
`;

describe("arbiter lint", () => {
  it.each(["placement.yaml", "pool.conf", "customs.json", "filters.json"])(
    "finds nothing in the shipped %s",
    async (name) => {
      expect(await run(["lint", shipped(name)])).toEqual({ code: 0, out: "", err: "" });
    },
  );

  it("prints the shipped limits' one info and exits 0", async () => {
    const file = shipped("limits.json");
    expect(await run(["lint", "limits", file])).toEqual({
      code: 0,
      out: `${file}:149:9: limits_unused_limit: limit 'always' is defined but no application applies it\n`,
      err: "",
    });
  });

  it("prints file:line:column: code: message for a warning and exits 1, 0 with --max-severity warning", async () => {
    const file = scratch.file("placement.yaml", SHADOWED);
    const line = `${file}:6:9: placement_unreachable_rule: rule 2 (\`provided\`) is never reached: rule 1 (\`fixed root.default\`) places every application in root.default first, unless the request reports root.default as draining\n`;
    expect(await run(["lint", file])).toEqual({ code: 1, out: line, err: "" });
    expect(await run(["lint", file, "--max-severity", "warning"])).toEqual({ code: 0, out: line, err: "" });
    expect(await run(["lint", "--engine", "placement", "-"], SHADOWED)).toEqual({
      code: 1,
      out: line.replace(file, "<stdin>"),
      err: "",
    });
  });

  it("prints the findings as JSON with --format json", async () => {
    const file = scratch.file("placement.yaml", SHADOWED);
    const r = await run(["lint", file, "--format", "json"]);
    expect(r.code).toBe(1);
    const body = JSON.parse(r.out) as {
      file: string;
      engine: string;
      findings: { code: string; severity: string; at: string }[];
      counts: unknown;
    };
    expect(body).toMatchObject({ file, engine: "placement", counts: { warning: 1, info: 0 } });
    expect(body.findings).toEqual([
      expect.objectContaining({ code: "placement_unreachable_rule", severity: "warning", at: "6:9" }),
    ]);
  });

  it("reads a condor_status -l sample with --ads (match only)", async () => {
    const pool = scratch.file("pool.conf", "NEGOTIATOR_PE_STARTD_ONLY_EXPR = Memroy < 512\n");
    const ads = scratch.file(
      "slots.txt",
      'MyType = "Machine"\nMemory = 2048\n\nMyType = "Machine"\nMemory = 4096\n',
    );
    expect(await run(["lint", "match", pool])).toEqual({ code: 0, out: "", err: "" });
    expect(await run(["lint", "match", pool, "--ads", ads])).toEqual({
      code: 1,
      out: `${pool}:1:34: match_attribute_not_in_ads: NEGOTIATOR_PE_STARTD_ONLY_EXPR reads Memroy, which none of the 2 Machine ads in the sample defines\n`,
      err: "",
    });
    expect((await run(["lint", shipped("customs.json"), "--ads", ads])).code).toBe(2);
  });

  it("prints an invalid policy's errors as validate does and exits 1; usage errors exit 2", async () => {
    const file = scratch.file("customs.json", '{\n  "defaults": {"maxLoad": 2\n}\n');
    const r = await run(["lint", file]);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`${file}:4:1: not valid JSON: Expecting ',' delimiter\n`);
    expect((await run(["lint", "nope", file])).code).toBe(2);
    expect((await run(["lint", file, "--max-severity", "error"])).code).toBe(2);
    expect((await run(["lint", file, "--format", "yaml"])).code).toBe(2);
    expect((await run(["lint", scratch.file("policy.txt", "x")])).code).toBe(2);
  });
});

describe("arbiter test lints the policies it ran against", () => {
  it("prints each warning on stderr and keeps the exit status of the cases", async () => {
    const dir = scratch.folder({
      "placement.yaml": SHADOWED,
      "my.test.yaml":
        "engine: placement\ncases:\n  - name: everybody lands in default\n    request: {user: bob}\n    expect: {queue: root.default}\n",
    });
    const r = await run(["test", dir]);
    expect(r.out).toBe("1 passed, 0 failed\n");
    expect(r.err).toBe(
      `lint: ${join(dir, "placement.yaml")}:6:9: placement_unreachable_rule: rule 2 (\`provided\`) is never reached: rule 1 (\`fixed root.default\`) places every application in root.default first, unless the request reports root.default as draining\n`,
    );
    expect(r.code).toBe(0);
  });
});
