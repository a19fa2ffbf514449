/**
 * `arbiter diff` on pool.conf (match) and customs.json (customs) files: the
 * engine from the file name or --engine, the differing pair with its example,
 * captured requests in each engine's request form.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cases.js";
import { run, scratchSpace } from "./run-cli.js";

const scratch = scratchSpace("arbiter-diff-mc-");
const shipped = (name: string) => join(REPO_ROOT, "policies", name);

// each run decides about a thousand generated requests twice: room for a loaded CI machine
describe("arbiter diff: match and customs", { timeout: 30_000 }, () => {
  it("diffs the shipped pool.conf and customs.json against themselves", async () => {
    const m = await run(["diff", shipped("pool.conf"), shipped("pool.conf")]);
    expect(m.code).toBe(0);
    expect(m.out).toMatch(/^match: no difference found over \d+ requests\n/);
    expect(m.out).toMatch(/^ {2}not exhaustive: ClassAd expressions are searched, not proven/m);
    const c = await run(["diff", shipped("customs.json"), shipped("customs.json")]);
    expect(c.code).toBe(0);
    expect(c.out).toMatch(/^customs: no difference found over \d+ requests\n/);
  });

  it("prints a pool policy's differing pair with the job and machine ads, engine named for other file names", async () => {
    const a = scratch.file("old.conf", "NEGOTIATOR_PE_JOB_ONLY_EXPR = NumJobStarts > 10\n");
    const b = scratch.file("new.conf", "NEGOTIATOR_PE_JOB_ONLY_EXPR = NumJobStarts > 11\n");
    const r = await run(["diff", a, b, "--engine", "match"]);
    expect(r.code).toBe(1);
    expect(r.out.split("\n")[0]).toMatch(/^match: 2 of \d+ requests differ$/);
    expect(r.out).toMatch(/^ {2}job_discarded true → false: 2, e\.g\. .*NumJobStarts = 11/m);
  });

  it("prints a customs policy's differing pair and decides captured pools from --requests", async () => {
    const a = join(scratch.folder({ "customs.json": '{"defaults": {"minFreeProcs": 10}}' }), "customs.json");
    const b = join(scratch.folder({ "customs.json": '{"defaults": {"minFreeProcs": 11}}' }), "customs.json");
    const r = await run(["diff", a, b]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/^ {2}host h1 → null: 1, e\.g\. .*"freeProcs":10/m);
    const captured = {
      hosts: [
        { name: "ws0", address: "10.0.0.10", load: 0, swapFreePct: 50, jobs: 0 },
        { name: "a", address: "10.0.0.1", load: 0, swapFreePct: 50, jobs: 0, freeProcs: 10 },
      ],
      request: { client: "ws0", fromAddress: "10.0.0.10", user: "alice" },
    };
    const req = scratch.file("pools.jsonl", `${JSON.stringify(captured)}\n`);
    const j = await run(["diff", a, b, "--requests", req, "--format", "json"]);
    const report = JSON.parse(j.out);
    expect(report.coverage.captured).toBe(1);
    expect(report.pairs.find((p: { pair: string }) => p.pair === "host a → null")?.example.request).toEqual(
      captured,
    );
  });
});
