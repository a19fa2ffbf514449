import { describe, expect, it } from "vitest";
import { pseudonym } from "../../src/bundle/compare/index.js";
import { findSample, parseExposition } from "../support/prometheus-text.js";
import { send, type Sent } from "./support.js";

// Issue 15, "Shadow evaluation of a candidate policy on live traffic": a candidate is staged,
// live decisions are also evaluated against it after the answer, the report counts exactly how
// they compare, and promotion follows a publish's rules. The files of this project run one at a
// time in a Worker of their own, so every decision counted here is one this file made.

const text = async (path: string) => (await send("GET", path)).body as string;
const json = <T = Record<string, unknown>>(s: Sent) => s.body as T;

/** The embedded placement policy without its last rule (everything else to root.default): such applications are rejected. */
async function placementWithoutFallback(): Promise<string> {
  const source = await text("/v1/policies/placement");
  const rule3 =
    /\n\s*# 3\. Everything that reaches this point lands in root\.default\.\n\s*- name: fixed\n\s*value: root\.default\n/;
  expect(source).toMatch(rule3);
  return source.replace(rule3, "\n");
}

/** A limits policy passing everyone, except (with `denyNet`) requesters in that network. */
function limits(denyNet?: string): string {
  const identifiers: object[] = [{ name: "everybody", description: "all", type: "always", data: {} }];
  const classifiers: object[] = [{ name: "everybody", description: "all", identifiers: ["everybody"] }];
  const applications: object[] = [{ classifier: "everybody", apply: [{ require: "all", limits: ["pass"] }] }];
  if (denyNet !== undefined) {
    identifiers.unshift({
      name: "denied",
      description: "d",
      type: "ip-cidr-list",
      data: { cidrs: [denyNet] },
    });
    classifiers.unshift({ name: "denied", description: "d", identifiers: ["denied"] });
    applications.unshift({
      classifier: "denied",
      apply: [{ require: "all", limits: ["fail"] }],
      "stop-on-failure": true,
    });
  }
  return JSON.stringify({
    schema: 1,
    identifiers,
    classifiers,
    limits: [
      { name: "pass", description: "p", type: "pass-fail", data: { pass: true } },
      { name: "fail", description: "f", type: "pass-fail", data: { pass: false } },
    ],
    applications,
  });
}

const task = { schema: 1, test: { type: "rtt", spec: { schema: 1, dest: "192.0.2.1" } } };
const bob = (name: string) => ({ user: name, groups: [name], tags: { namespace: "testapp" } });
const sarah = (name: string) => ({ user: name, groups: [name, "dev_app"], tags: { namespace: "newapp" } });

describe("a candidate policy on live traffic", () => {
  it("has no candidate to show, report, drop or promote before one is staged", async () => {
    for (const [method, path] of [
      ["GET", "/v1/candidate"],
      ["GET", "/v1/candidate/report"],
      ["DELETE", "/v1/candidate"],
      ["POST", "/v1/candidate/promote"],
    ]) {
      const s = await send(method, path);
      expect(s.status, `${method} ${path}`).toBe(404);
      expect(json<{ error: { code: string } }>(s).error.code).toBe("not_found");
    }
  });

  it("stages without activating, compares every decision after the answer, and counts exactly", async () => {
    /** The placement comparisons of a scrape: agreed and differing. */
    const comparisons = async (scope: string) => {
      const scrape = parseExposition(await text(`/metrics?scope=${scope}`));
      return ["agreed", "differing"].map(
        (result) =>
          findSample(scrape, "arbiter_shadow_comparisons_total", { engine: "placement", result }) ?? NaN,
      );
    };
    const [isolateBefore, deploymentBefore] = [await comparisons("isolate"), await comparisons("deployment")];
    const active = await send("GET", "/v1/policies");
    const activeRevision = json<{ revision: string }>(active).revision;
    const staged = await send(
      "PUT",
      "/v1/policies/placement?stage=candidate",
      await placementWithoutFallback(),
    );
    expect(staged.status, JSON.stringify(staged.body)).toBe(200);
    const info = json<{ revision: string; staged: string[]; based_on: string; stage: string }>(staged);
    expect(info).toMatchObject({ stage: "candidate", staged: ["placement"], based_on: activeRevision });
    expect(info.revision).not.toBe(activeRevision);
    // the active policy did not move
    expect(json<{ revision: string }>(await send("GET", "/v1/policies")).revision).toBe(activeRevision);
    expect(json(await send("GET", "/v1/candidate"))).toEqual(info);

    // 7 applications the fallback rule placed (the candidate rejects them), 5 that rule 1 places alike
    const answers = await Promise.all([
      ...["b1", "b2", "b3", "b4", "b5", "b6", "b7"].map((u) => send("POST", "/v1/place", bob(u))),
      ...["s1", "s2", "s3", "s4", "s5"].map((u) => send("POST", "/v1/place", sarah(u))),
    ]);
    // the answers are the active policy's
    expect(answers.slice(0, 7).map((a) => json<{ queue: string }>(a).queue)).toEqual(
      Array(7).fill("root.default"),
    );
    expect(answers.slice(7).map((a) => json<{ queue: string }>(a).queue)).toEqual(
      ["s1", "s2", "s3", "s4", "s5"].map((u) => `root.newapp.${u}`),
    );

    const report = json<{
      compared: number;
      agreed: number;
      differing: number;
      since: string;
      candidate: { revision: string };
      engines: Record<
        string,
        {
          compared: number;
          agreed: number;
          differing: number;
          pairs: {
            pair: string;
            count: number;
            examples: { request: { user: string }; active: object; candidate: object }[];
          }[];
        }
      >;
    }>(await send("GET", "/v1/candidate/report"));
    expect(report).toMatchObject({
      compared: 12,
      agreed: 5,
      differing: 7,
      candidate: { revision: info.revision },
    });
    expect(report.engines.placement).toMatchObject({ compared: 12, agreed: 5, differing: 7 });
    expect(report.engines.placement.pairs.map((p) => [p.pair, p.count, p.examples.length])).toEqual([
      ["rejected false → true", 7, 7],
    ]);
    // examples are masked as decision logs mask them
    const example = report.engines.placement.pairs[0].examples.find(
      (e) => e.request.user === undefined || e.request.user.startsWith("m_"),
    );
    expect(example).toBeDefined();
    const users = await Promise.all(["b1", "b2", "b3", "b4", "b5", "b6", "b7"].map(pseudonym));
    expect(report.engines.placement.pairs[0].examples.map((e) => e.request.user).sort()).toEqual(
      users.sort(),
    );
    expect(report.engines.placement.pairs[0].examples[0]).toMatchObject({
      active: { rejected: false, queue: "root.default" },
      candidate: { rejected: true, queue: null },
    });
    expect(Date.parse(report.since)).not.toBeNaN();

    // The same comparisons in /metrics: exactly in this isolate's counters, and (other files' isolates
    // may have flushed comparisons of their own) at least as many in the deployment's.
    const [isolateAfter, deploymentAfter] = [await comparisons("isolate"), await comparisons("deployment")];
    expect(isolateAfter.map((n, i) => n - isolateBefore[i])).toEqual([5, 7]);
    expect(deploymentAfter[0] - deploymentBefore[0]).toBeGreaterThanOrEqual(5);
    expect(deploymentAfter[1] - deploymentBefore[1]).toBeGreaterThanOrEqual(7);
  });

  it("never changes an answer nor what the verdict cache holds", async () => {
    const first = await send("POST", "/v1/place", bob("cache1"));
    const second = await send("POST", "/v1/place", bob("cache1"));
    expect(second.res.headers.get("x-arbiter-cache")).toBe("hit");
    for (const s of [first, second])
      expect(json(s)).toMatchObject({ queue: "root.default", rejected: false });
    const report = json<{ engines: { placement: { compared: number } } }>(
      await send("GET", "/v1/candidate/report"),
    );
    // cache hits are decisions too, and compared like the others
    expect(report.engines.placement.compared).toBe(14);
  });

  it("compares only the staged engines, and only the sampled share", async () => {
    const before = json<{ compared: number }>(await send("GET", "/v1/candidate/report")).compared;
    await send("POST", "/v1/limits/decide", { requester: "198.51.100.1", task });
    await send("POST", "/v1/place", bob("unsampled"), { SHADOW_SAMPLE: "0" });
    expect(json<{ compared: number }>(await send("GET", "/v1/candidate/report")).compared).toBe(before);
  });

  it("keeps the staged candidate when an invalid one is sent", async () => {
    const before = json(await send("GET", "/v1/candidate"));
    const bad = await send("PUT", "/v1/policies/placement?stage=candidate", "partitions: 7");
    expect(bad.status).toBe(422);
    expect(json<{ error: { code: string } }>(bad).error.code).toBe("policy_invalid");
    expect(json(await send("GET", "/v1/candidate"))).toEqual(before);
    const wrongStage = await send("PUT", "/v1/policies/placement?stage=later", "partitions: []");
    expect(wrongStage.status).toBe(400);
  });

  it("stages a second engine on top, starting the report afresh, and compares limits verdicts", async () => {
    expect((await send("PUT", "/v1/policies/limits", limits())).status).toBe(200);
    const staged = await send("PUT", "/v1/policies/limits?stage=candidate", limits("198.51.100.0/24"));
    expect(json(staged)).toMatchObject({ staged: ["limits", "placement"] });
    const answers = await Promise.all([
      ...["198.51.100.7", "198.51.100.8", "198.51.100.9", "198.51.100.10"].map((r) =>
        send("POST", "/v1/limits/decide", { requester: r, task }),
      ),
      ...["203.0.113.1", "203.0.113.2", "203.0.113.3"].map((r) =>
        send("POST", "/v1/limits/decide", { requester: r, task }),
      ),
      send("POST", "/v1/place", bob("b8")),
    ]);
    expect(answers.map((a) => json<{ allowed?: boolean }>(a).allowed ?? "placed")).toEqual([
      true,
      true,
      true,
      true,
      true,
      true,
      true,
      "placed",
    ]);
    const report = json<{
      compared: number;
      agreed: number;
      differing: number;
      engines: Record<
        string,
        {
          compared: number;
          pairs: { pair: string; count: number; examples: { request: { requester: string } }[] }[];
        }
      >;
    }>(await send("GET", "/v1/candidate/report"));
    expect(report).toMatchObject({ compared: 8, agreed: 3, differing: 5 });
    expect(report.engines.limits.pairs.map((p) => [p.pair, p.count])).toEqual([["allowed true → false", 4]]);
    expect(new Set(report.engines.limits.pairs[0].examples.map((e) => e.request.requester))).toEqual(
      new Set(["198.51.100.0"]),
    );
    expect(report.engines.placement.pairs.map((p) => [p.pair, p.count])).toEqual([
      ["rejected false → true", 1],
    ]);
  });

  it("promotes with a publish's rules: If-Match against the active revision, then both engines active", async () => {
    const activeRevision = json<{ revision: string }>(await send("GET", "/v1/policies")).revision;
    const stale = await send(
      "POST",
      "/v1/candidate/promote",
      undefined,
      {},
      { "if-match": '"not-the-active-revision"' },
    );
    expect(stale.status).toBe(412);
    expect(stale.res.headers.get("etag")).toBe(`"${activeRevision}"`);
    expect((await send("GET", "/v1/candidate")).status).toBe(200);
    // If-Match compares strongly (RFC 9110): a weak tag never matches, even naming the active revision.
    const weak = await send(
      "POST",
      "/v1/candidate/promote",
      undefined,
      {},
      { "if-match": `W/"${activeRevision}"` },
    );
    expect(weak.status).toBe(412);
    expect((await send("GET", "/v1/candidate")).status).toBe(200);

    const promoted = await send(
      "POST",
      "/v1/candidate/promote",
      undefined,
      {},
      { "if-match": `"${activeRevision}"` },
    );
    expect(promoted.status, JSON.stringify(promoted.body)).toBe(200);
    const body = json<{ revision: string; previous: string; promoted: { staged: string[] } }>(promoted);
    expect(body).toMatchObject({ previous: activeRevision, promoted: { staged: ["limits", "placement"] } });
    expect(json<{ revision: string }>(await send("GET", "/v1/policies")).revision).toBe(body.revision);
    expect((await send("GET", "/v1/candidate")).status).toBe(404);
    expect((await send("GET", "/v1/candidate/report")).status).toBe(404);
    // the promoted policies decide now
    expect(json(await send("POST", "/v1/place", bob("after-promote")))).toMatchObject({
      rejected: true,
      queue: null,
    });
    expect(json(await send("POST", "/v1/limits/decide", { requester: "198.51.100.99", task }))).toMatchObject(
      { allowed: false },
    );
  });

  it("drops a candidate and its report", async () => {
    const source = await text("/v1/policies/placement");
    expect((await send("PUT", "/v1/policies/placement?stage=candidate", source)).status).toBe(200);
    const dropped = await send("DELETE", "/v1/candidate");
    expect(dropped.status).toBe(200);
    expect(json(dropped)).toMatchObject({ dropped: true, staged: ["placement"] });
    expect((await send("GET", "/v1/candidate")).status).toBe(404);
    expect((await send("DELETE", "/v1/candidate")).status).toBe(404);
  });
});
