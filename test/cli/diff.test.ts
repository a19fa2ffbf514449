import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cases.js";
import { run, scratchSpace } from "./run-cli.js";

const scratch = scratchSpace("arbiter-diff-");
const shipped = (name: string) => join(REPO_ROOT, "policies", name);

const filters = (n: number): string =>
  JSON.stringify([
    {
      uuid: "00000000-0000-0000-0000-000000000001",
      watermark: 0,
      priority: 0,
      reason_trail: [],
      predicates: [["opcode", [">", "memory", n]]],
      action: "REJECT",
    },
  ]);

describe("arbiter diff", () => {
  it("says equivalent for an identical filter pair and exits 0", async () => {
    const a = join(scratch.folder({ "filters.json": filters(100) }), "filters.json");
    const r = await run(["diff", a, a]);
    expect(r.code).toBe(0);
    expect(r.out.split("\n")[0]).toBe("jobfilter: equivalent");
  });

  it("prints the differing pair with an example and exits 1", async () => {
    const a = join(scratch.folder({ "filters.json": filters(100) }), "filters.json");
    const b = join(scratch.folder({ "filters.json": filters(101) }), "filters.json");
    const r = await run(["diff", a, b]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^ {2}action REJECT → ACCEPT: 1, e\.g\. .*"memory":101/m);
  });

  it("decides captured requests from --requests and names an invalid side", async () => {
    const a = join(scratch.folder({ "filters.json": filters(100) }), "filters.json");
    const req = scratch.file(
      "req.jsonl",
      `${JSON.stringify({ job: { id: 5, opcodes: [{ OP_ID: "OP_X", memory: 5000 }] } })}\n`,
    );
    const r = await run(["diff", a, a, "--requests", req, "--format", "json"]);
    expect(JSON.parse(r.out).coverage.captured).toBe(1);
    const bad = join(scratch.folder({ "filters.json": "[{" }), "filters.json");
    const r2 = await run(["diff", a, bad]);
    expect(r2.code).toBe(1);
    expect(r2.err).toContain(bad);
  });

  it("diffs the shipped placement policy against itself", async () => {
    const r = await run(["diff", shipped("placement.yaml"), shipped("placement.yaml")]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^placement: no difference found over \d+ requests/);
  });
});
