import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BASE } from "./fakes.js";

interface Detail {
  code: string;
  message: string;
  at: string;
  suggestion?: string;
}
interface ErrorAnswer {
  error: { code: string; message: string; details?: Detail[] };
}

async function send(
  method: string,
  engine: string,
  source: string,
  validate: boolean,
): Promise<{ status: number; body: ErrorAnswer }> {
  const res = await SELF.fetch(`${BASE}/v1/policies/${engine}${validate ? "/validate" : ""}`, {
    method,
    headers: { "content-type": "text/plain" },
    body: source,
  });
  return { status: res.status, body: (await res.json()) as ErrorAnswer };
}

/** Publishing and validating a policy answer the same 422, whose details say where and what. */
async function refused(engine: string, source: string): Promise<Detail> {
  const validated = await send("POST", engine, source, true);
  const published = await send("PUT", engine, source, false);
  for (const r of [validated, published]) {
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe("policy_invalid");
  }
  expect(published.body.error.details).toEqual(validated.body.error.details);
  return validated.body.error.details![0]!;
}

const LIMITS_JQ = [
  "{",
  '  "schema": 2, "identifiers": [], "classifiers": [], "applications": [],',
  '  "limits": [{"name": "throughput-default-parallel", "description": "p", "type": "jq",',
  '              "data": {"script": [".test.spec.parallel as $p |", "$p <= lenght"]}}]',
  "}",
].join("\n");

describe("policy errors in the user's own file (issue 27)", () => {
  it("places a limits jq error at the file's line:column and names the limit", async () => {
    const detail = await refused("limits", LIMITS_JQ);
    expect(detail).toEqual({
      code: "limits_invalid_limit",
      message: 'limit "throughput-default-parallel": lenght/0 is not defined',
      at: "4:73",
    });
  });

  it("says pScheduler's json_validate text for an identifier's data that is not an object", async () => {
    const source = JSON.stringify({
      schema: 1,
      identifiers: [{ name: "everybody", description: "e", type: "hint", data: 123 }],
      classifiers: [],
      limits: [],
      applications: [],
    });
    const detail = await refused("limits", source);
    expect(detail).toMatchObject({
      message: 'identifier "everybody": JSON provided must be a dictionary.',
      at: "/identifiers/0/data",
    });
  });

  it("carries the suggestion of an unknown limit, naming the application that refers to it", async () => {
    const source = JSON.stringify({
      schema: 1,
      identifiers: [{ name: "everybody", description: "e", type: "always", data: {} }],
      classifiers: [{ name: "default", description: "c", identifiers: ["everybody"] }],
      limits: [
        { name: "throughput-defualt-time", description: "t", type: "pass-fail", data: { pass: true } },
      ],
      applications: [
        {
          description: "Defaults",
          classifier: "default",
          apply: [{ require: "all", limits: ["throughput-default-time"] }],
        },
      ],
    });
    const detail = await refused("limits", source);
    expect(detail.suggestion).toBe("throughput-defualt-time");
    expect(detail.message).toContain(
      'limit "throughput-default-time" is referred to by application 0 ("Defaults")',
    );
  });

  it("lists the placement rule names and suggests the closest", async () => {
    const detail = await refused(
      "placement",
      "partitions:\n  - name: default\n    placementrules: [{name: usr}]\n    queues: [{name: root}]\n",
    );
    expect(detail).toMatchObject({ code: "placement_unknown_rule", suggestion: "user" });
    expect(detail.message).toContain(
      "(the rule names are provided, user, fixed and tag; did you mean `user`?)",
    );
  });

  it("lists the Ganeti filter actions and suggests the closest in a filters file", async () => {
    const detail = await refused(
      "jobfilter",
      JSON.stringify([{ uuid: "3b1a8b2e-8f2a-4d5e-9c47-0f6a1b2c3d4e", action: "REJCT" }]),
    );
    expect(detail).toMatchObject({ code: "jobfilter_invalid_action", at: "/0/action", suggestion: "REJECT" });
    expect(detail.message).toBe(
      'malformed FilterAction JSON: "REJCT" (the actions are ACCEPT, PAUSE, REJECT, CONTINUE and RATE_LIMIT; did you mean `REJECT`?)',
    );
  });

  it("names the engine a wrong playground engine meant", async () => {
    const res = await SELF.fetch(`${BASE}/v1/playground/placment`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ policy: "", request: {} }),
    });
    expect(res.status).toBe(404);
    const body = (await res.json()) as ErrorAnswer;
    expect(body.error.message).toBe("there is no engine `placment` (did you mean `placement`?)");
    expect(body.error.details?.[0]?.suggestion).toBe("placement");
  });
});
