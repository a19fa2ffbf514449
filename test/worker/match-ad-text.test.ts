/**
 * Issue 28, ClassAds as text: `POST /v1/match` (and the playground's match) take the
 * machine ads as one text the way `condor_status -l` prints them (ads separated by a
 * blank line) or as its `-json` output, and the job as `condor_q -l` or `-json` prints
 * it; each form gives the verdict the same ads give as a list of ClassAd strings.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";

const BASE = "http://arbiter.test";

const JOB_LONG = [
  'MyType = "Job"',
  'Owner = "alice"',
  "ClusterId = 7",
  "ProcId = 0",
  "RequestMemory = 1024",
  "Requirements = TARGET.Memory >= MY.RequestMemory",
  "Rank = TARGET.Memory",
  "",
].join("\n");
const MACHINES_LONG = [
  [
    'MyType = "Machine"',
    'Name = "slot1@big"',
    "Memory = 4096",
    "Cpus = 8",
    'Requirements = TARGET.Owner =!= "bob"',
  ].join("\n"),
  ['MyType = "Machine"', 'Name = "slot1@small"', "Memory = 768", "Cpus = 2", "Requirements = true"].join(
    "\n",
  ),
  ['MyType = "Machine"', 'Name = "slot1@tiny"', "Memory = 256", "Cpus = 1", "Requirements = true"].join("\n"),
].join("\n\n");
const AS_LIST = {
  job: '[ MyType = "Job"; Owner = "alice"; ClusterId = 7; ProcId = 0; RequestMemory = 1024; Requirements = TARGET.Memory >= MY.RequestMemory; Rank = TARGET.Memory ]',
  machines: [
    '[ MyType = "Machine"; Name = "slot1@big"; Memory = 4096; Cpus = 8; Requirements = TARGET.Owner =!= "bob" ]',
    '[ MyType = "Machine"; Name = "slot1@small"; Memory = 768; Cpus = 2; Requirements = true ]',
    '[ MyType = "Machine"; Name = "slot1@tiny"; Memory = 256; Cpus = 1; Requirements = true ]',
  ],
};

async function match(body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await SELF.fetch(`${BASE}/v1/match?explain=true`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const strip = (v: Record<string, unknown>) => {
  const { decision_id: _d, log: _l, ...rest } = v;
  return rest;
};

describe("POST /v1/match with ClassAds as text", () => {
  it("takes condor_status -l output (ads separated by blank lines) and condor_q -l output, with the verdict of the same ads as a list", async () => {
    const want = await match(AS_LIST);
    expect(want.status).toBe(200);
    expect(want.body.best).toBe("slot1@big");
    const got = await match({ job: JOB_LONG, machines: MACHINES_LONG + "\n\n" });
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(strip(got.body)).toEqual(strip(want.body));
    expect((got.body.machines as unknown[]).length).toBe(3);
  });

  it("takes condor_status -json and condor_q -json output", async () => {
    const machines = JSON.stringify(
      [
        {
          MyType: "Machine",
          Name: "slot1@big",
          Memory: 4096,
          Cpus: 8,
          Requirements: '/Expr(TARGET.Owner =!= "bob")/',
        },
        { MyType: "Machine", Name: "slot1@small", Memory: 768, Cpus: 2, Requirements: true },
        { MyType: "Machine", Name: "slot1@tiny", Memory: 256, Cpus: 1, Requirements: true },
      ],
      null,
      2,
    ).replace(/"\/Expr\((.*?)\)\/"/g, '"\\/Expr($1)\\/"');
    const job = JSON.stringify(
      [
        {
          MyType: "Job",
          Owner: "alice",
          ClusterId: 7,
          ProcId: 0,
          RequestMemory: 1024,
          Requirements: "/Expr(TARGET.Memory >= MY.RequestMemory)/",
          Rank: "/Expr(TARGET.Memory)/",
        },
      ],
      null,
      2,
    )
      // HTCondor writes the `/` of an expression escaped (`"\/Expr(…)\/"`), as JSON.stringify does not.
      .replace(/"\/Expr\((.*?)\)\/"/g, '"\\/Expr($1)\\/"');
    const got = await match({ job, machines });
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(strip(got.body)).toEqual(strip((await match(AS_LIST)).body));
  });

  it("names the ad that does not parse by its place in the text, and refuses a -json job that is not one ad", async () => {
    const bad = await match({ job: JOB_LONG, machines: MACHINES_LONG + "\n\nName = \n" });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("/machines/3");
    const two = await match({ job: "[{}, {}]", machines: [] });
    expect(two.status).toBe(400);
    expect(JSON.stringify(two.body)).toContain("expected one ad, found 2");
    const notAds = await match({ job: JOB_LONG, machines: "[1, 2]" });
    expect(notAds.status).toBe(400);
  });
});
