import { describe, expect, it } from "vitest";
import { pseudonym } from "../../src/bundle/compare/index.js";
import { decisionLines, send } from "./support.js";

// Issue 15, "Replay offline": decision logs capture the request when DECISION_LOG_REQUESTS asks,
// masked by the rules of docs/operations.md, with the verdict's compared fields beside it.

const task = { schema: 1, test: { type: "rtt", spec: { schema: 1, dest: "192.0.2.1" } } };
let n = 0;
/** A placement request no other test sends (the verdict cache is keyed by the body). */
const placeFor = (user: string) => ({
  user,
  groups: [user, "dev_app"],
  tags: { namespace: "newapp" },
  applicationId: `capture-${++n}`,
});

describe("request capture in decision logs", () => {
  it("is off by default: the line carries no request", async () => {
    const sent = await send("POST", "/v1/place", placeFor("sarah"));
    expect(sent.status).toBe(200);
    const [line] = decisionLines(sent);
    expect(line).toMatchObject({ engine: "placement", outcome: "placed" });
    expect(line).not.toHaveProperty("request");
    expect(line).not.toHaveProperty("kind");
  });

  it("masked: the placement user becomes a pseudonym, in the request and in the queue the verdict names", async () => {
    const request = placeFor("sarah");
    const sent = await send("POST", "/v1/place", request, { DECISION_LOG_REQUESTS: "masked" });
    expect((sent.body as { queue: string }).queue).toBe("root.newapp.sarah");
    const [line] = decisionLines(sent);
    const alias = await pseudonym("sarah");
    expect(line).toMatchObject({
      kind: "placement",
      request: { ...request, user: alias, groups: [alias, "dev_app"] },
    });
    expect(line.verdict).toEqual({ rejected: false, queue: `root.newapp.${alias}`, create: true });
    expect(JSON.stringify(line)).not.toContain("sarah");
  });

  it("full: the request exactly as sent (whitespace aside), number spelling included", async () => {
    const text = `{"user": "bob",  "groups": ["bob"], "tags": {"namespace": "testapp"}, "applicationId": "full-${++n}", "partition": "default"}`;
    const sent = await send(
      "POST",
      "/v1/place",
      text,
      { DECISION_LOG_REQUESTS: "full" },
      { "content-type": "application/json" },
    );
    expect(sent.status).toBe(200);
    const [line] = decisionLines(sent);
    expect(line.request).toEqual(JSON.parse(text));
    expect(line.verdict).toEqual({ rejected: false, queue: "root.default", create: false });
  });

  it("limits: the requester the decision used, cut to its /24, the connecting address when the body has none", async () => {
    const given = await send(
      "POST",
      "/v1/limits/decide",
      { requester: "203.0.113.77", task },
      { DECISION_LOG_REQUESTS: "masked" },
    );
    const [a] = decisionLines(given);
    expect(a.request).toEqual({ requester: "203.0.113.0", task });
    expect(a.verdict).toMatchObject({ allowed: (given.body as { allowed: boolean }).allowed });
    const connecting = await send(
      "POST",
      "/v1/limits/decide",
      { task },
      { DECISION_LOG_REQUESTS: "masked" },
      { "cf-connecting-ip": "2001:db8:aa:bb::7" },
    );
    const [b] = decisionLines(connecting);
    expect(b.request).toEqual({ task, requester: "2001:db8:aa::" });
  });

  it("captures answers from the verdict cache too", async () => {
    const request = placeFor("carol");
    await send("POST", "/v1/place", request);
    const again = await send("POST", "/v1/place", request, { DECISION_LOG_REQUESTS: "masked" });
    const [line] = decisionLines(again);
    expect(line.cache).toBe("hit");
    expect(line.request).toMatchObject({ user: await pseudonym("carol") });
    expect(line.verdict).toMatchObject({ rejected: false });
  });

  it("masks ClassAd attributes of a match request, and tells ad checks apart", async () => {
    const body = {
      job: '[ Owner = "alice"; Requirements = TARGET.Memory >= 1024 ]',
      machines: ['[ Name = "slot1"; Memory = 2048; Requirements = true ]'],
    };
    const [line] = decisionLines(await send("POST", "/v1/match", body, { DECISION_LOG_REQUESTS: "masked" }));
    expect(line.kind).toBe("match");
    expect(JSON.stringify(line.request)).not.toContain("alice");
    expect(line.verdict).toEqual({ job_discarded: false, schedd_discarded: null, best: "slot1", matched: 1 });
    const check = await send(
      "POST",
      "/v1/ads/check",
      { kind: "startd", ad: { Name: "slot1", RemoteUser: "bob" } },
      { DECISION_LOG_REQUESTS: "masked" },
    );
    const [c] = decisionLines(check);
    expect(c).toMatchObject({
      kind: "ads-check",
      request: { kind: "startd", ad: { Name: "slot1", RemoteUser: await pseudonym("bob") } },
      verdict: { discarded: false },
    });
  });

  it("captures job submissions with their integers exact", async () => {
    const text = `{"id": ${9_100_000 + ++n}, "opcodes": [{"OP_ID": "OP_INSTANCE_STARTUP", "instance_name": "web1", "comment": "for alice", "reason": [["gnt:user", "x", 1795482117065516288]]}]}`;
    const sent = await send(
      "POST",
      "/v1/queues/capture/jobs",
      text,
      { DECISION_LOG_REQUESTS: "full" },
      { "content-type": "application/json" },
    );
    expect(sent.status).toBe(200);
    const [line] = decisionLines(sent);
    expect(line.kind).toBe("jobfilter");
    expect(sent.raw.find((l) => l.includes(String(line.decision_id)))).toContain(
      '["gnt:user","x",1795482117065516288]',
    );
    expect(line.verdict).toEqual({ action: "ACCEPT" });
    const masked = await send(
      "POST",
      "/v1/queues/capture/jobs",
      { id: 9_200_000 + n, opcodes: [{ OP_ID: "OP_INSTANCE_STARTUP", comment: "for alice" }] },
      { DECISION_LOG_REQUESTS: "masked" },
    );
    expect(JSON.stringify(decisionLines(masked)[0])).not.toContain("alice");
  });

  it("logs a request too large to keep as its size", async () => {
    const machines = Array.from(
      { length: 400 },
      (_, i) => `[ Name = "slot${i}"; Memory = ${i}; Requirements = true; Pad = "${"x".repeat(200)}" ]`,
    );
    const [line] = decisionLines(
      await send(
        "POST",
        "/v1/match",
        { job: "[ Requirements = true ]", machines },
        { DECISION_LOG_REQUESTS: "full" },
      ),
    );
    expect(line).not.toHaveProperty("request");
    expect(line.request_omitted).toMatch(/^\d+ characters$/);
  });
});
