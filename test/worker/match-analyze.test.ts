import { createExecutionContext, env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { app } from "../../src/http/app.js";
import type { Env } from "../../src/env.js";

const BASE = "http://arbiter.test";

function post(path: string, body: unknown): Promise<Response> {
  return SELF.fetch(BASE + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** A job of alice's wanting 4 GB, against the shipped pool.conf: a slot too small to negotiate, a draining one, the GPU partition, one too small for the job, one that refuses alice, one that fits. */
const request = {
  job: 'Owner = "alice"\nClusterId = 40\nProcId = 2\nRequestMemory = 4096\nRequirements = (TARGET.Memory >= RequestMemory) && (TARGET.Cpus >= 2)',
  machines: [
    '[ Name = "tiny"; Memory = 256; Cpus = 1; Requirements = true ]',
    '[ Name = "drain"; Memory = 8192; Cpus = 8; Draining = true; Requirements = true ]',
    '[ Name = "gpu"; Memory = 16384; Cpus = 8; Partition = "gpu"; Requirements = true ]',
    '[ Name = "small"; Memory = 2048; Cpus = 4; Requirements = true ]',
    '[ Name = "picky"; Memory = 8192; Cpus = 4; Requirements = TARGET.Owner != "alice" ]',
    '[ Name = "fits"; Memory = 4096; Cpus = 2; Requirements = true ]',
  ],
};

interface Analysis {
  decision_id: string;
  revision: string;
  cacheable: boolean;
  job: { id: string; discarded: boolean };
  machines: Record<string, number>;
  clauses: { origin: string; expr: string; matches: number }[];
  machine_side: { origin: string; expr: string; machines: number; names: string[] }[];
  suggestions: { kind: string; message: string }[];
}

describe("POST /v1/match/analyze", () => {
  it("analyses the request under the active pool policy (the shipped pool.conf), in the decision envelope", async () => {
    const res = await post("/v1/match/analyze", request);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    const a = (await res.json()) as Analysis;
    expect(a.decision_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.revision).toMatch(/^[0-9a-f]{64}$/);
    expect(a.cacheable).toBe(true);
    expect(a.job).toEqual({ id: "40.2", discarded: false });
    // tiny (Memory < 512) and drain are discarded; small fails the memory conjunct; picky and gpu turn the job away
    expect(a.machines).toEqual({
      total: 6,
      discarded_by_policy: 2,
      rejected_by_job: 1,
      rejecting_job: 2,
      matching: 1,
    });
    expect(a.clauses.map((c) => [c.origin, c.expr, c.matches])).toEqual([
      ["Requirements", "TARGET.Memory >= RequestMemory", 3],
      ["Requirements", "TARGET.Cpus >= 2", 4],
      [
        "NEGOTIATOR_PE_JOB_EXPR",
        'isUndefined(MY.AllowedPartitions) || stringListIMember(TARGET.Partition ?: "default",MY.AllowedPartitions)',
        4,
      ],
    ]);
    expect(a.machine_side.map((g) => [g.origin, g.machines, g.names])).toEqual([
      ["NEGOTIATOR_PE_RESOURCE_EXPR", 1, ["gpu"]],
      ["Requirements", 1, ["picky"]],
    ]);
    expect(a.suggestions.map((s) => s.message)).toEqual([
      "modify RequestMemory to 2048 to match 1 more machine",
    ]);
  });

  it("answers the report as text with ?format=text", async () => {
    const res = await post("/v1/match/analyze?format=text", request);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    const lines = (await res.text()).split("\n");
    expect(lines[0]).toBe("Job 40.2 asks for (Requirements):");
    expect(lines).toContain("[0]           3  TARGET.Memory >= RequestMemory");
    expect(lines).toContain("      2 are discarded by the pool policy (NEGOTIATOR_PE_STARTD_ONLY_EXPR)");
    expect(lines).toContain(
      "[0] TARGET.Memory >= RequestMemory    3                   modify RequestMemory to 2048 to match 1 more machine",
    );
  });

  it("refuses a format it does not have, an ad that does not parse and more than 2,000 machines, naming what is wrong", async () => {
    const format = await post("/v1/match/analyze?format=xml", request);
    expect(format.status).toBe(400);
    const f = (await format.json()) as { error: { code: string; details: { code: string; at: string }[] } };
    expect(f.error.code).toBe("invalid_request");
    expect(f.error.details[0]).toMatchObject({ code: "invalid_format", at: "?format" });

    const bad = await post("/v1/match/analyze", {
      job: "[ Requirements = true ]",
      machines: ['[ Name = "a" ]', "[ broken = ; ]"],
    });
    expect(bad.status).toBe(400);
    const b = (await bad.json()) as { error: { code: string; details: { at: string }[] } };
    expect(b.error.code).toBe("invalid_request");
    expect(b.error.details[0].at).toBe("/machines/1");

    const many = await post("/v1/match/analyze", {
      job: "[ Requirements = true ]",
      machines: Array.from({ length: 2001 }, () => "[ Requirements = true ]"),
    });
    expect(many.status).toBe(400);

    const extra = await post("/v1/match/analyze", { ...request, machine: [] });
    expect(extra.status).toBe(400);
  });

  it("is bounded by DECISION_BUDGET: past it, the 422 budget_exceeded and no partial answer", async () => {
    const req = new Request(`${BASE}/v1/match/analyze`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(request),
    });
    const res = await app.fetch(
      req,
      { ...(env as unknown as Env), DECISION_BUDGET: "50" },
      createExecutionContext(),
    );
    expect(res.status).toBe(422);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("budget_exceeded");
  });

  it("shows the analysis in the playground's match trace, under the posted policy", async () => {
    const res = await post("/v1/playground/match", {
      policy: "NEGOTIATOR_PE_STARTD_ONLY_EXPR = Memory < 3000",
      request,
    });
    expect(res.status).toBe(200);
    const v = (await res.json()) as { trace: { analysis: Analysis } };
    // this policy keeps drain, gpu, picky and fits (Memory >= 3000): no JOB_EXPR, no RESOURCE_EXPR
    expect(v.trace.analysis.machines).toEqual({
      total: 6,
      discarded_by_policy: 2,
      rejected_by_job: 0,
      rejecting_job: 1,
      matching: 3,
    });
    expect(v.trace.analysis.clauses.map((c) => c.matches)).toEqual([4, 4]);
  });
});
