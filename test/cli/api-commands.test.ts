import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
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
    // a comment added: the diff computed at staging finds no difference
    expect(report.out).toMatch(/\n {2}placement: no difference found over \d+ requests\n/);
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

describe("arbiter queue", () => {
  async function submit(queue: string, body: unknown): Promise<void> {
    const res = await fetch(`${server.url}/v1/queues/${queue}/jobs`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).toBe(200);
  }

  it("lists queues and jobs, and cancels a job", async () => {
    await submit("cli-q", { id: 11, opcodes: [{ OP_ID: "OP_RUN" }] });
    await submit("cli-q", { id: 12, opcodes: [{ OP_ID: "OP_RUN" }] });

    const queues = JSON.parse((await run(["queue", "list", "--format", "json"], "", false, env)).out) as {
      queue: string;
    }[];
    expect(queues.find((q) => q.queue === "cli-q")).toEqual({
      queue: "cli-q",
      running: 2,
      queued: 0,
      finished: 0,
      watermark: 12,
    });
    const listed = (await run(["queue", "list"], "", false, env)).out.trimEnd().split("\n");
    expect(listed[0].split(/\s+/)).toEqual(["Queue", "Running", "Queued", "Finished", "Watermark"]);
    expect(listed.find((l) => l.startsWith("cli-q "))?.split(/\s+/)).toEqual(["cli-q", "2", "0", "0", "12"]);

    const cancelled = await run(["queue", "cancel", "cli-q", "12"], "", false, env);
    expect(cancelled.out).toBe("job 12: cancelled\n");

    const jobs = (await run(["queue", "jobs", "cli-q"], "", false, env)).out.trimEnd().split("\n");
    expect(jobs[0].split(/\s+/)).toEqual([
      "ID",
      "Status",
      "Action",
      "Rule",
      "Prio",
      "Received",
      "Start",
      "LeaseExpires",
    ]);
    expect(jobs.slice(1).map((l) => l.split(/\s+/).slice(0, 2))).toEqual([
      ["12", "cancelled"],
      ["11", "running"],
    ]);
    // times as gnt-job prints them (%F %T): received and started, a lease only while running
    const stamp = "\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d";
    expect(jobs[1]).toMatch(new RegExp(`^12 cancelled ACCEPT +- +0 ${stamp} ${stamp} -$`));
    expect(jobs[2]).toMatch(new RegExp(`^11 running +ACCEPT +- +0 ${stamp} ${stamp} ${stamp}$`));
    const page = JSON.parse(
      (
        await run(
          ["queue", "jobs", "cli-q", "--state", "running", "--limit", "1", "--format", "json"],
          "",
          false,
          env,
        )
      ).out,
    );
    expect(page.jobs.map((j: { id: number }) => j.id)).toEqual([11]);
    expect(page.cursor).toBe("11");
  });

  it("shows the fields -o names, adds to the default ones with +, and prints as --no-headers/--separator say", async () => {
    await submit("cli-o", { id: 3, opcodes: [{ OP_ID: "OP_RUN" }], priority: 5 });
    await submit("cli-o", { id: 4, opcodes: [{ OP_ID: "OP_RUN" }] });
    await fetch(`${server.url}/v1/queues/cli-o/jobs/3/finish`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    const picked = await run(["queue", "jobs", "cli-o", "-o", "id,priority,status"], "", false, env);
    expect(picked.code, picked.err).toBe(0);
    // numbers aligned right as gnt-job aligns them, no padding after the last column
    expect(picked.out).toBe("ID Prio Status\n 4    0 running\n 3    5 finished\n");
    const added = (await run(["queue", "jobs", "cli-o", "-o", "+end_ts"], "", false, env)).out.split("\n");
    expect(added[0].split(/\s+/)).toEqual([
      "ID",
      "Status",
      "Action",
      "Rule",
      "Prio",
      "Received",
      "Start",
      "LeaseExpires",
      "End",
    ]);
    expect(added[1]).toMatch(/ -$/);
    expect(added[2]).toMatch(/ \d\d:\d\d:\d\d$/);
    const bare = await run(
      ["queue", "list", "-o", "name,running,finished", "--no-headers", "--separator", ":"],
      "",
      false,
      env,
    );
    expect(bare.out.split("\n")).toContain("cli-o:1:1");
    const cancelled = await run(["queue", "cancel", "cli-o", "4", "-o", "id,status"], "", false, env);
    expect(cancelled.out).toBe("ID Status\n 4 cancelled\n");
    const unknown = await run(["queue", "jobs", "cli-o", "-o", "id,received"], "", false, env);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("unknown field `received`");
    const help = (await run(["queue", "--help"], "", false, env)).out;
    for (const field of ["received_ts", "start_ts", "end_ts", "lease_expires", "watermark"])
      expect(help).toContain(`  ${field} `);
  });

  it("fails with the API's message for an unknown job or a bad state", async () => {
    const missing = await run(["queue", "cancel", "cli-q", "999"], "", false, env);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain("not_found");
    const bad = await run(["queue", "jobs", "cli-q", "--state", "done"], "", false, env);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain("`state`");
    expect((await run(["queue", "--help"], "", false, env)).out).toContain("usage: arbiter queue list");
  });
});

describe("arbiter hosts", () => {
  async function report(name: string, body: Record<string, unknown>): Promise<void> {
    const res = await fetch(`${server.url}/v1/hosts/${name}`, {
      method: "PUT",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify({ net: 31, swapFreePct: 80, idleSeconds: 3600, ...body }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
  }

  it("lists a network's hosts with availability, reason, rating, jobs, permits and last report, and removes one", async () => {
    await report("cli-h1", { address: "10.31.0.1", load: 0.1, jobs: 0 });
    await report("cli-h2", { address: "10.31.0.2", load: 9, jobs: 0 });
    const allocated = await fetch(`${server.url}/v1/hosts/allocate`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify({ client: "cli-h2", net: 31, fromAddress: "10.31.0.2", user: "alice" }),
    });
    const permit = ((await allocated.json()) as { host: string; permit: { id: number } }).permit.id;

    const json = JSON.parse(
      (await run(["hosts", "list", "--net", "31", "--format", "json"], "", false, env)).out,
    ) as {
      net: number;
      hosts: { name: string; available: boolean; reason?: string; permits: number[] }[];
    };
    expect(json.net).toBe(31);
    expect(json.hosts.map((h) => [h.name, h.available, h.reason ?? null, h.permits])).toEqual([
      ["cli-h1", true, null, [permit]],
      ["cli-h2", false, "AVAIL_LOAD", []],
    ]);
    const table = (await run(["hosts", "list", "--net", "31"], "", false, env)).out.trimEnd().split("\n");
    expect(table[0].split(/\s+/)).toEqual([
      "Host",
      "Address",
      "Avail",
      "Reason",
      "Rating",
      "Jobs",
      "Permits",
      "LastReport",
    ]);
    expect(table[1]).toMatch(
      new RegExp(
        `^cli-h1 10\\.31\\.0\\.1 Y +- +\\d+ +0 ${permit} +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d$`,
      ),
    );
    expect(table[2]).toMatch(/^cli-h2 10\.31\.0\.2 N +AVAIL_LOAD +- +0 - +\d{4}-/);
    const picked = await run(
      ["hosts", "list", "--net", "31", "-o", "name,pending,down", "--no-headers"],
      "",
      false,
      env,
    );
    expect(picked.out).toBe("cli-h1 1 N\ncli-h2 0 N\n");

    const removed = await run(["hosts", "remove", "cli-h1", "--net", "31"], "", false, env);
    expect(removed.code, removed.err).toBe(0);
    expect(removed.out).toBe(`host cli-h1 removed from network 31 (permits revoked: ${permit})\n`);
    const after = JSON.parse(
      (await run(["hosts", "list", "--net", "31", "--format", "json"], "", false, env)).out,
    ) as { hosts: { name: string }[] };
    expect(after.hosts.map((h) => h.name)).toEqual(["cli-h2"]);
  });

  it("lists every network's hosts by default, the network first, all pages or one with --limit", async () => {
    await report("cli-n32", { net: 32, address: "10.32.0.1", load: 0.1, jobs: 0 });
    await report("cli-n33", { net: 33, address: "10.33.0.1", load: 0.1, jobs: 0 });
    // the pool writes the registry after its answer
    const listed = async () =>
      JSON.parse((await run(["hosts", "list", "--format", "json"], "", false, env)).out) as {
        net?: number;
        hosts: { net: number; name: string }[];
        cursor: null;
      };
    await vi.waitFor(
      async () => expect((await listed()).hosts.filter((h) => h.name.startsWith("cli-n")).length).toBe(2),
      { timeout: 10_000, interval: 100 },
    );
    const json = await listed();
    expect(json.net).toBeUndefined();
    expect(json.cursor).toBeNull();
    expect(
      json.hosts
        .filter((h) => h.name.startsWith("cli-n"))
        .map((h) => [h.net, h.name])
        .sort(),
    ).toEqual([
      [32, "cli-n32"],
      [33, "cli-n33"],
    ]);
    const table = (await run(["hosts", "list"], "", false, env)).out.trimEnd().split("\n");
    expect(table[0].split(/\s+/)).toEqual([
      "Net",
      "Host",
      "Address",
      "Avail",
      "Reason",
      "Rating",
      "Jobs",
      "Permits",
      "LastReport",
    ]);
    expect(table.some((line) => /^ *32 +cli-n32 +10\.32\.0\.1 +Y /.test(line))).toBe(true);
    expect(table.some((line) => /^ *33 +cli-n33 +10\.33\.0\.1 +Y /.test(line))).toBe(true);
    const one = await run(
      ["hosts", "list", "--limit", "1", "--no-headers", "-o", "net,name"],
      "",
      false,
      env,
    );
    expect(one.code, one.err).toBe(0);
    const [row, more] = one.out.trimEnd().split("\n");
    expect(row).toMatch(/^ *\d+ \S+$/);
    expect(more).toMatch(/^\(more: --cursor \S+\)$/);
    const next = await run(
      [
        "hosts",
        "list",
        "--limit",
        "1",
        "--no-headers",
        "-o",
        "net,name",
        "--cursor",
        more.slice("(more: --cursor ".length, -1),
      ],
      "",
      false,
      env,
    );
    expect(next.code, next.err).toBe(0);
    expect(next.out.split("\n")[0]).not.toBe(row);
  });

  it("fails with the API's message for an unknown host or without the admin token, and prints its usage", async () => {
    const missing = await run(["hosts", "remove", "cli-nobody", "--net", "31"], "", false, env);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain("host_not_found");
    const anonymous = await run(["hosts", "remove", "cli-h2", "--net", "31"], "", false, {
      ARBITER_URL: server.url,
    });
    expect(anonymous.code).toBe(1);
    expect(anonymous.err).toContain("unauthorized");
    const help = await run(["hosts", "--help"], "", false, env);
    expect(help.out).toContain("usage: arbiter hosts list");
    for (const field of ["available", "reason", "rating", "jobs", "permits", "reported"])
      expect(help.out).toContain(`  ${field} `);
    expect((await run(["hosts", "frobnicate"], "", false, env)).code).toBe(2);
  });
});
