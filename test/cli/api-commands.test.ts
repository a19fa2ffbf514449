import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cases.js";
import { startDevServer, type DevServer } from "../support/dev-server.js";
import { run, scratchSpace } from "./run-cli.js";

// The CLI's commands over the API (`arbiter history`, `rollback`, `candidate …`) against the Worker
// under `wrangler dev` on loopback, with the admin token on.

const ADMIN = "cli-admin-token";
const scratch = scratchSpace("arbiter-api-commands-");
let server: DevServer;
let env: Record<string, string>;

const placement = readFileSync(join(REPO_ROOT, "policies/placement.yaml"), "utf8");

beforeAll(async () => {
  server = await startDevServer({ timeoutMs: 180_000, vars: { ADMIN_TOKEN: ADMIN } });
  env = { ARBITER_URL: server.url, ARBITER_TOKEN: ADMIN };
}, 200_000);

afterAll(async () => {
  await server?.stop();
}, 30_000);

async function publish(tag: string): Promise<string> {
  const res = await fetch(`${server.url}/v1/policies/placement`, {
    method: "PUT",
    headers: { authorization: `Bearer ${ADMIN}`, "x-arbiter-change-note": `cli ${tag}` },
    body: `${placement}\n# ${tag}\n`,
  });
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { revision: string }).revision;
}

describe("arbiter history and rollback", () => {
  it("lists the changes newest first, as a table and as JSON", async () => {
    const a = await publish("first");
    const b = await publish("second");
    const json = await run(["history", "--format", "json", "--limit", "2"], "", false, env);
    expect(json.code, json.err).toBe(0);
    const records = JSON.parse(json.out) as { revision: string; previous: string; note?: string }[];
    expect(records.map((r) => r.revision)).toEqual([b, a]);
    expect(records[0]).toMatchObject({ previous: a, note: "cli second" });
    const text = await run(["history", "--limit", "2"], "", false, env);
    expect(text.code, text.err).toBe(0);
    const lines = text.out.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^Seq\s+Revision\s+Previous\s+Action\s+Engines\s+At\s+Role\s+Note$/);
    expect(lines[1]).toContain(b.slice(0, 12));
    expect(lines[1]).toContain("publish");
    expect(lines[1]).toContain("placement");
    expect(lines[1]).toContain("cli second");
  });

  it("rolls back to a revision given by a unique prefix, and says so", async () => {
    const a = await publish("rollback-a");
    const b = await publish("rollback-b");
    const r = await run(["rollback", a.slice(0, 12), "--if-match", b, "--note", "undo b"], "", false, env);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toBe(`active revision ${a} (was ${b})\n`);
    const policies = (await (
      await fetch(`${server.url}/v1/policies`, { headers: { authorization: `Bearer ${ADMIN}` } })
    ).json()) as { revision: string };
    expect(policies.revision).toBe(a);
    const stale = await run(["rollback", b, "--if-match", b], "", false, env);
    expect(stale.code).toBe(1);
    expect(stale.err).toContain("precondition_failed");
  });

  it("fails with the API's message without the token, and with a usage error without a revision", async () => {
    const denied = await run(["history"], "", false, { ARBITER_URL: server.url });
    expect(denied.code).toBe(1);
    expect(denied.err).toContain("unauthorized");
    expect((await run(["rollback"], "", false, env)).code).toBe(2);
  });
});

describe("arbiter candidate", () => {
  it("stages, shows, reports and drops a candidate", async () => {
    const file = scratch.file("candidate.yaml", `${placement}\n# candidate\n`);
    const staged = await run(["candidate", "stage", "placement", file, "--format", "json"], "", false, env);
    expect(staged.code, staged.err).toBe(0);
    const candidate = JSON.parse(staged.out) as { revision: string; staged: string[] };
    expect(candidate.staged).toEqual(["placement"]);
    const shown = await run(["candidate", "show"], "", false, env);
    expect(shown.out).toContain(candidate.revision.slice(0, 12));
    const report = await run(["candidate", "report"], "", false, env);
    expect(report.code, report.err).toBe(0);
    expect(report.out).toMatch(/^compared \d+, agreed \d+, differing \d+\n/);
    const dropped = await run(["candidate", "drop"], "", false, env);
    expect(dropped.out).toBe(`dropped candidate ${candidate.revision}\n`);
    const gone = await run(["candidate", "show"], "", false, env);
    expect(gone.code).toBe(1);
    expect(gone.err).toContain("not_found");
  });

  it("promotes a staged candidate", async () => {
    const file = scratch.file("promote.yaml", `${placement}\n# promoted ${Date.now()}\n`);
    expect((await run(["candidate", "stage", "placement", file], "", false, env)).code).toBe(0);
    const promoted = await run(["candidate", "promote", "--note", "ship it"], "", false, env);
    expect(promoted.code, promoted.err).toBe(0);
    const [, revision] = /^active revision (\S+) /.exec(promoted.out) ?? [];
    const history = JSON.parse(
      (await run(["history", "--format", "json", "--limit", "1"], "", false, env)).out,
    ) as { revision: string; action: string; note: string }[];
    expect(history[0]).toMatchObject({ revision, action: "promote", note: "ship it" });
  });
});
