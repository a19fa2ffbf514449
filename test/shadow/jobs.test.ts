import { afterAll, describe, expect, it } from "vitest";
import { send } from "./support.js";

// Issue 15: job decisions are shadowed too, against the same queue snapshot and without changing
// the queue. The queue object replays its decisions against the candidate rules after each answer
// (a timer), so the report is read once it has counted what was sent, then checked to the unit.

const RULE = "5e0c1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b";
const candidate = JSON.stringify([
  {
    uuid: RULE,
    priority: 0,
    predicates: [["opcode", ["=", "OP_ID", "OP_INSTANCE_STARTUP"]]],
    action: ["RATE_LIMIT", 2],
  },
]);
const job = (id: number, op = "OP_INSTANCE_STARTUP") => ({
  id,
  opcodes: [{ OP_ID: op, instance_name: `vm${id}` }],
});

interface Report {
  compared: number;
  agreed: number;
  differing: number;
  engines: {
    jobfilter?: { pairs: { pair: string; count: number; examples: { request: { id: number } }[] }[] };
  };
}

/** The report once it has counted `n` decisions (the queue reports them a moment after its answers). */
async function reportOf(n: number): Promise<Report> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const report = (await send("GET", "/v1/candidate/report")).body as Report;
    if (report.compared >= n || Date.now() > deadline) return report;
    await new Promise((r) => setTimeout(r, 200));
  }
}

afterAll(async () => {
  await send("DELETE", "/v1/candidate");
});

describe("job decisions under a candidate's filter rules", () => {
  it("decides each job again against the running jobs it met, leaving the queue as it was", async () => {
    const staged = await send("PUT", "/v1/policies/jobfilter?stage=candidate", candidate);
    expect(staged.status, JSON.stringify(staged.body)).toBe(200);

    // the queue has no rule: all five start; the candidate would start two and rate-limit three
    const answers = [];
    for (let id = 1; id <= 5; id++) answers.push(await send("POST", "/v1/queues/shadowq/jobs", job(id)));
    expect(answers.map((a) => (a.body as { action: string }).action)).toEqual(Array(5).fill("ACCEPT"));
    // one ends: the candidate would still see four of its rule's jobs running
    expect((await send("POST", "/v1/queues/shadowq/jobs/1/finish")).status).toBe(200);
    const later = [
      await send("POST", "/v1/queues/shadowq/jobs", job(6)),
      await send("POST", "/v1/queues/shadowq/jobs", job(7, "OP_INSTANCE_SHUTDOWN")),
      await send("POST", "/v1/queues/shadowq/jobs", job(8, "OP_INSTANCE_SHUTDOWN")),
    ];
    expect(later.map((a) => (a.body as { action: string; run: boolean }).run)).toEqual([true, true, true]);

    const report = await reportOf(8);
    expect(report).toMatchObject({ compared: 8, agreed: 4, differing: 4 });
    const pairs = report.engines.jobfilter!.pairs;
    expect(pairs.map((p) => [p.pair, p.count])).toEqual([["action ACCEPT → RATE_LIMITED", 4]]);
    expect(pairs[0].examples.map((e) => e.request.id).sort()).toEqual([3, 4, 5, 6]);
    // the queue's own state never saw the candidate: its running jobs are all the real ones
    const status = await send("GET", "/v1/queues/shadowq/jobs/6");
    expect(status.body).toMatchObject({ action: "ACCEPT", state: "running" });
  });
});
