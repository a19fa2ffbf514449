/**
 * The semantic diff of two pool policies (pool.conf, the negotiator's
 * NEGOTIATOR_PE_* expressions): known differences are found with an example
 * job/machine pair that shows them, including one only a numeric edge, a
 * case variant or a regex witness reaches; identical pairs are only ever
 * `no difference found over N requests` (ClassAd expressions are searched).
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { diffPolicies, type DiffReport } from "../../src/bundle/diff.js";
import { REPO_ROOT } from "../support/cases.js";

const pool = readFileSync(join(REPO_ROOT, "policies", "pool.conf"), "utf8");

function diff(a: string, b: string): DiffReport {
  const r = diffPolicies("match", a, b);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

/** The example request of a pair, as the ads' texts. */
function example(r: DiffReport, pair: string): { job: string; machines: string[]; schedd?: string } {
  const p = r.pairs.find((x) => x.pair === pair);
  if (p === undefined) throw new Error(`no pair ${pair} in ${r.pairs.map((x) => x.pair).join(", ")}`);
  return p.example.request as { job: string; machines: string[]; schedd?: string };
}

const jobOnly = (expr: string): string => `NEGOTIATOR_PE_JOB_ONLY_EXPR = ${expr}\n`;

// the shipped pool.conf's diffs decide about a thousand requests twice: room for a loaded CI machine
describe("match diff", { timeout: 30_000 }, () => {
  it("a raised slot memory floor drops the slots between the two floors, with an example slot", () => {
    const r = diff(pool, pool.replace("MIN_SLOT_MEMORY = 512", "MIN_SLOT_MEMORY = 1024"));
    expect(r.differing).toBeGreaterThan(0);
    expect(r.pairs.map((p) => p.pair)).toEqual(["best slot1 → null"]);
    const memory = Number(/Memory = (\d+)/.exec(example(r, "best slot1 → null").machines[0])?.[1]);
    expect(memory).toBeGreaterThanOrEqual(512);
    expect(memory).toBeLessThan(1024);
    expect(r.equivalent).toBe(false);
  });

  it("a threshold that only moves from > to >= differs exactly at the literal", () => {
    const r = diff(jobOnly("NumJobStarts > 10"), jobOnly("NumJobStarts >= 10"));
    // 10 and 10.0: the literal as an integer and as a real
    expect(r.differing).toBe(2);
    expect(r.pairs.map((p) => p.pair)).toEqual(["job_discarded false → true"]);
    expect(example(r, "job_discarded false → true").job).toContain("NumJobStarts = 10");
  });

  it("a threshold moved by one differs only at the new literal", () => {
    const r = diff(jobOnly("NumJobStarts > 10"), jobOnly("NumJobStarts > 11"));
    expect(r.differing).toBe(2);
    expect(example(r, "job_discarded true → false").job).toContain("NumJobStarts = 11");
  });

  it("== (across numeric types) against =?= (same type only) differs for the literal as a real", () => {
    const startd = (expr: string): string => `NEGOTIATOR_PE_STARTD_ONLY_EXPR = ${expr}\n`;
    const r = diff(startd("Cpus =?= 0"), startd("Cpus == 0"));
    expect(r.differing).toBe(1);
    expect(example(r, "best slot1 → null").machines[0]).toContain("Cpus = 0.0");
  });

  it("a regexp() pattern narrowed to a longer prefix differs only for its witness", () => {
    const r = diff(jobOnly('regexp("^dev", Owner)'), jobOnly('regexp("^devops", Owner)'));
    expect(r.differing).toBeGreaterThan(0);
    const owner = /Owner = "([^"]*)"/.exec(example(r, "job_discarded true → false").job)?.[1] ?? "";
    expect(owner.startsWith("dev") && !owner.startsWith("devops")).toBe(true);
    expect(r.coverage.boundaries["regex witness"]).toBeGreaterThan(0);
  });

  it("== (case-insensitive on strings) against =?= (case-sensitive) differs for a case variant", () => {
    const r = diff(jobOnly('Owner == "alice"'), jobOnly('Owner =?= "alice"'));
    expect(r.pairs.map((p) => p.pair)).toEqual(["job_discarded true → false"]);
    expect(example(r, "job_discarded true → false").job).toContain('Owner = "ALICE"');
  });

  it("a pair expression change shows on the job/machine pair", () => {
    const a = 'NEGOTIATOR_PE_RESOURCE_EXPR = TARGET.RequestGpus >= 1 || MY.Partition =!= "gpu"\n';
    const b = 'NEGOTIATOR_PE_RESOURCE_EXPR = TARGET.RequestGpus >= 2 || MY.Partition =!= "gpu"\n';
    const r = diff(a, b);
    expect(r.pairs.map((p) => p.pair)).toEqual(["best slot1 → null"]);
    const request = example(r, "best slot1 → null");
    expect(request.job).toContain("RequestGpus = 1");
    expect(request.machines[0]).toContain('Partition = "gpu"');
  });

  it("a wrong type reaches the ERROR path and absence the UNDEFINED path", () => {
    // ERROR || x is ERROR: the test of the error goes first
    const error = diff(
      jobOnly("NumJobStarts > 10"),
      jobOnly("isError(NumJobStarts > 10) || NumJobStarts > 10"),
    );
    expect(error.differing).toBe(1);
    expect(example(error, "job_discarded false → true").job).toContain('NumJobStarts = "zz-fresh-9"');
    const undef = diff(jobOnly('Owner == "bob"'), jobOnly('Owner == "bob" || isUndefined(Owner)'));
    expect(undef.differing).toBe(1);
    expect(example(undef, "job_discarded false → true").job).toBe("[Requirements = true]");
  });

  it("an identical pair is searched, never called equivalent", () => {
    const r = diff(jobOnly("NumJobStarts > 10"), jobOnly("NumJobStarts > 10"));
    expect(r.result).toBe(`no difference found over ${r.compared} requests`);
    expect(r.equivalent).toBe(false);
    expect(r.coverage.why.join(" ")).toMatch(/searched, not proven/);
  });

  it("the shipped pool policy against itself: the structured search, no difference", () => {
    const r = diff(pool, pool);
    expect(r.differing).toBe(0);
    expect(r.result).toMatch(/^no difference found over \d+ requests$/);
    expect(r.coverage.why.join(" ")).toMatch(
      /combinations of all values exceed \d+.*: each expression's attributes are combined in full/,
    );
    expect(r.coverage.why.join(" ")).not.toMatch(/no base ads/);
    expect(r.coverage.boundaries.attribute).toBeGreaterThanOrEqual(9);
  });

  it("costly expressions over many attributes get fewer requests, so the diff's work stays bounded, and the coverage says so", () => {
    const expr = Array.from({ length: 60 }, (_, i) => `A${i} > ${i}`).join(" || ");
    const costly = `${jobOnly(expr)}NEGOTIATOR_PE_RESOURCE_EXPR = ${expr.replaceAll("A", "TARGET.B")}\n`;
    const r = diff(costly, costly);
    const bound = /at most (\d+) requests: each costs \d+ work units/.exec(r.coverage.why.join(" "));
    expect(Number(bound?.[1])).toBeLessThan(20_000);
    expect(r.compared).toBeLessThanOrEqual(Number(bound?.[1]));
  });

  it("a policy that does not parse is named by side", () => {
    const r = diffPolicies("match", pool, "NEGOTIATOR_PE_JOB_ONLY_EXPR = (Owner ==\n");
    expect(!r.ok && r.error.side).toBe("new");
  });
});
