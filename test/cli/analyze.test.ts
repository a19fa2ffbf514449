import { describe, expect, it } from "vitest";
import { run, scratchSpace } from "./run-cli.js";

const space = scratchSpace("arbiter-analyze-");

const line = (job: string, machines: string[]) => JSON.stringify({ job, machines });
const job =
  'ClusterId = 9\nProcId = 1\nRequestMemory = 4096\nRequirements = (TARGET.Memory >= RequestMemory) && (TARGET.Arch == "X86_64")';
const machines = [
  '[ Name = "a"; Memory = 2048; Arch = "X86_64"; Cpus = 2; Requirements = true ]',
  '[ Name = "b"; Memory = 8192; Arch = "ARM"; Cpus = 2; Requirements = true ]',
];

describe("arbiter analyze", () => {
  it("prints the report as text under the shipped pool.conf by default", async () => {
    const r = await run(["analyze"], line(job, machines));
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const lines = r.out.split("\n");
    expect(lines[0]).toBe("Job 9.1 asks for (Requirements):");
    expect(lines).toContain("[0]           1  TARGET.Memory >= RequestMemory");
    expect(lines).toContain('[1]           1  TARGET.Arch == "X86_64"');
    expect(lines).toContain("      2 are rejected by the job's Requirements");
    expect(lines).toContain(
      "[0] TARGET.Memory >= RequestMemory    1                   modify RequestMemory to 2048 to match 1 more machine",
    );
  });

  it("answers JSON lines with --format json, as POST /v1/match/analyze does, under --policy", async () => {
    const policy = space.file("pool.conf", 'NEGOTIATOR_PE_STARTD_ONLY_EXPR = Arch == "ARM"\n');
    const r = await run(
      ["analyze", "--format", "json", "--policy", policy],
      `${line(job, machines)}\n${line("Requirements = true", machines)}\n`,
    );
    expect(r.code).toBe(0);
    const answers = r.out
      .trim()
      .split("\n")
      .map(
        (l) =>
          JSON.parse(l) as {
            revision: string;
            machines: Record<string, number>;
            clauses: { matches: number }[];
          },
      );
    expect(answers).toHaveLength(2);
    expect(answers[0].machines).toEqual({
      total: 2,
      discarded_by_policy: 1,
      rejected_by_job: 1,
      rejecting_job: 0,
      matching: 0,
    });
    expect(answers[0].clauses.map((c) => c.matches)).toEqual([0, 1]);
    expect(answers[1].machines.matching).toBe(1);
  });

  it("takes a line's own policy, and reports a request it cannot analyse on stderr with exit 1 while analysing the rest", async () => {
    const own = JSON.stringify({
      policy: "NEGOTIATOR_PE_JOB_EXPR = TARGET.Cpus >= 64",
      input: { job, machines },
    });
    const r = await run(["analyze"], `${own}\n{"job": 1, "machines": []}\nnot json\n`);
    expect(r.code).toBe(1);
    expect(r.out).toContain("and the pool policy adds (NEGOTIATOR_PE_JOB_EXPR):");
    expect(r.out).toContain("[2]           0  TARGET.Cpus >= 64   (NEGOTIATOR_PE_JOB_EXPR)");
    expect(r.err).toContain("arbiter analyze: request 2: invalid_request:");
    expect(r.err).toContain("arbiter analyze: request 3: invalid_json:");
  });

  it("refuses a format it does not have and stray arguments (usage, exit 2)", async () => {
    expect((await run(["analyze", "--format", "xml"], "")).code).toBe(2);
    expect((await run(["analyze", "job.json"], "")).code).toBe(2);
    const help = await run(["analyze", "--help"]);
    expect(help.code).toBe(0);
    expect(help.out).toContain("usage: arbiter analyze");
  });
});
