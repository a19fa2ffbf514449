import { SELF } from "cloudflare:test";
import { afterAll, describe, expect, it } from "vitest";
import { DIFF_ENGINES } from "../../src/bundle/diff.js";
import { send, type Sent } from "./support.js";

// Issue 29, part 3: the candidate report carries the semantic diff of each staged engine's
// source against the active one, computed when it is staged, each pair marked with whether
// live traffic has shown it. The files of this project run one at a time; this one drops its
// candidate and restores the active placement policy when it ends.

interface FindingPair {
  pair: string;
  count: number;
  example: { request: { user?: string }; old: object; new: object };
  seen: boolean;
  live_count: number;
}
interface Findings {
  result: string;
  equivalent: boolean;
  compared: number;
  differing: number;
  stale: boolean;
  active_sha256: string;
  candidate_sha256: string;
  pairs: FindingPair[];
  unseen: number;
  coverage: { generated: number; stopped: boolean };
}
interface Report {
  compared: number;
  agreed: number;
  differing: number;
  since: string;
  candidate: { revision: string; staged: string[] };
  sample: number;
  engines: Record<string, { compared: number; pairs: { pair: string; count: number }[] }>;
  diff: { engines: Record<string, Findings>; not_covered: string[] };
}

const json = <T>(s: Sent) => s.body as T;
const report = async () => json<Report>(await send("GET", "/v1/candidate/report"));

/** The active placement policy without its last rule (everything else to root.default): such applications are rejected. */
async function placementWithoutFallback(): Promise<string> {
  const source = (await send("GET", "/v1/policies/placement")).body as string;
  const rule3 =
    /\n\s*# 3\. Everything that reaches this point lands in root\.default\.\n\s*- name: fixed\n\s*value: root\.default\n/;
  expect(source).toMatch(rule3);
  return source.replace(rule3, "\n");
}

const original = { revision: "" };

afterAll(async () => {
  await send("DELETE", "/v1/candidate");
  const now = json<{ revision: string }>(await send("GET", "/v1/policies")).revision;
  if (original.revision !== "" && now !== original.revision)
    await send("POST", "/v1/policies/rollback", { revision: original.revision });
});

describe("the candidate report's diff findings", () => {
  it("lists the pairs the diff finds before any traffic, none seen yet, beside the unchanged report fields", async () => {
    original.revision = json<{ revision: string }>(await send("GET", "/v1/policies")).revision;
    const staged = await send(
      "PUT",
      "/v1/policies/placement?stage=candidate",
      await placementWithoutFallback(),
    );
    expect(staged.status, JSON.stringify(staged.body)).toBe(200);
    const r = await report();
    // the report's own fields, as before
    expect(r).toMatchObject({ compared: 0, agreed: 0, differing: 0, engines: {}, sample: 1 });
    expect(r.candidate.staged).toEqual(["placement"]);
    const d = r.diff.engines.placement;
    expect(d).toBeDefined();
    expect(r.diff.not_covered).toEqual([]);
    expect(d.stale).toBe(false);
    expect(d.differing).toBeGreaterThan(0);
    const rejected = d.pairs.find((p) => p.pair === "rejected false → true");
    expect(rejected, JSON.stringify(d.pairs.map((p) => p.pair))).toBeDefined();
    expect(rejected).toMatchObject({
      seen: false,
      live_count: 0,
      example: { old: { rejected: false, queue: "root.default" }, new: { rejected: true } },
    });
    expect(d.unseen).toBe(d.pairs.length);
  });

  it("marks a pair seen once live traffic shows it, and counts it as the live report does", async () => {
    const bob = (name: string) => ({ user: name, groups: [name], tags: { namespace: "testapp" } });
    const answers = await Promise.all(["d1", "d2", "d3"].map((u) => send("POST", "/v1/place", bob(u))));
    expect(answers.map((a) => json<{ queue: string }>(a).queue)).toEqual(Array(3).fill("root.default"));
    const r = await report();
    expect(r.engines.placement.pairs).toEqual([
      expect.objectContaining({ pair: "rejected false → true", count: 3 }),
    ]);
    const d = r.diff.engines.placement;
    expect(d.pairs.find((p) => p.pair === "rejected false → true")).toMatchObject({
      seen: true,
      live_count: 3,
    });
    expect(d.unseen).toBe(d.pairs.length - 1);
  });

  it("says when the active source moved since staging (the diff is stale)", async () => {
    const active = (await send("GET", "/v1/policies/placement")).body as string;
    const published = await send("PUT", "/v1/policies/placement", `${active}\n# candidate-diff: moved\n`);
    expect(published.status, JSON.stringify(published.body)).toBe(200);
    expect((await report()).diff.engines.placement.stale).toBe(true);
    // staging again diffs against the new active source
    expect(
      (await send("PUT", "/v1/policies/placement?stage=candidate", await placementWithoutFallback())).status,
    ).toBe(200);
    expect((await report()).diff.engines.placement.stale).toBe(false);
  });

  it("leaves out a staged engine whose source is the active one", async () => {
    const same = await (await SELF.fetch("http://arbiter.test/v1/policies/jobfilter")).text();
    expect((await send("PUT", "/v1/policies/jobfilter?stage=candidate", same)).status).toBe(200);
    const r = await report();
    expect(r.candidate.staged).toEqual(["placement", "jobfilter"]);
    expect(Object.keys(r.diff.engines)).toEqual(["placement"]);
  });

  const limitsCovered = DIFF_ENGINES.includes("limits");
  it.skipIf(limitsCovered)(
    "lists a changed engine the diff does not cover (skipped once limits is covered)",
    async () => {
      const limits = (await send("GET", "/v1/policies/limits")).body as {
        limits: { name: string; description: string }[];
      };
      limits.limits[0].description = `${limits.limits[0].description} (candidate-diff)`;
      expect((await send("PUT", "/v1/policies/limits?stage=candidate", JSON.stringify(limits))).status).toBe(
        200,
      );
      const r = await report();
      expect(r.diff.not_covered).toEqual(["limits"]);
      expect(r.diff.engines.limits).toBeUndefined();
    },
  );
});
