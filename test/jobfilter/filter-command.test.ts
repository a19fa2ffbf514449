import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { runFilterCommand } from "../../src/cli/filter-command.js";
import { parseRuleBody, parseUuid } from "../../src/engines/jobfilter/index.js";

// A loopback stand-in for the service's RAPI filter resource, checking bodies with the engine's own parser.
const rules = new Map<string, Record<string, unknown>>();
const seen: { method: string; url: string; auth?: string }[] = [];
let server: Server;
let url: string;
let counter = 0;

async function bodyOf(req: IncomingMessage): Promise<unknown> {
  let text = "";
  for await (const chunk of req) text += String(chunk);
  return text === "" ? null : JSON.parse(text);
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    seen.push({ method: req.method ?? "", url: req.url ?? "", auth: req.headers.authorization });
    const reply = (status: number, value: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    const u = new URL(req.url ?? "/", "http://x");
    const m = /^\/(?:2|v1\/queues\/[^/]+)\/filters(?:\/([^/]+))?$/.exec(u.pathname);
    if (!m) return reply(404, { code: 404, message: "no route", explain: "" });
    const id = m[1];
    if (req.method === "GET" && id === undefined) {
      const list = [...rules.values()].sort((a, b) => String(a.uuid).localeCompare(String(b.uuid)));
      return reply(200, u.searchParams.get("bulk") === "1" ? list : list.map((r) => ({ uuid: r.uuid, uri: `/2/filters/${String(r.uuid)}` })));
    }
    if ((req.method === "POST" && id === undefined) || req.method === "PUT") {
      const body = parseRuleBody(await bodyOf(req));
      if (!body.ok) return reply(400, { code: 400, message: body.error, explain: "" });
      const uuid = id === undefined ? `00000000-0000-4000-8000-${String(++counter).padStart(12, "0")}` : parseUuid(id);
      if (uuid === null) return reply(400, { code: 400, message: "Unable to parse UUID", explain: "" });
      const { reason, ...rest } = body.value;
      rules.set(uuid, { uuid, watermark: 7, ...rest, reason_trail: [...reason, ["luxid", "", 1]] });
      return reply(200, uuid);
    }
    if (req.method === "DELETE" && id !== undefined) {
      if (!rules.delete(id)) return reply(404, { code: 404, message: `Filter rule with UUID ${id} does not exist`, explain: "" });
      return reply(200, null);
    }
    return reply(405, { code: 405, message: "method", explain: "" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  rules.clear();
  seen.length = 0;
  counter = 0;
});

async function run(...argv: string[]) {
  let stdout = "";
  let stderr = "";
  const code = await runFilterCommand([...argv, "--url", url], {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: { ARBITER_ADMIN_TOKEN: "tok" },
  });
  return { code, stdout, stderr };
}

describe("arbiter filter", () => {
  it("adds a rule with every option and prints its uuid", async () => {
    const r = await run("add", "--priority=2", `--predicates=[["jobid", [">", "id", "watermark"]]]`, "--action", "RATE_LIMIT", "10", "--reason=drain for maintenance");
    expect(r).toMatchObject({ code: 0, stderr: "" });
    const uuid = r.stdout.trim();
    const rule = rules.get(uuid) as Record<string, unknown>;
    expect(rule).toMatchObject({ priority: 2, action: ["RATE_LIMIT", 10], predicates: [["jobid", [">", "id", "watermark"]]] });
    const trail = rule.reason_trail as unknown[][];
    expect(trail[0].slice(0, 2)).toEqual(["gnt:user", "drain for maintenance"]);
    expect(trail[0][2] as number).toBeGreaterThan(1e18);
    expect(seen[0]).toMatchObject({ method: "POST", url: "/2/filters", auth: "Bearer tok" });
  });

  it("defaults to CONTINUE with priority 0 and addresses a named queue", async () => {
    const r = await run("add", "--queue", "batch");
    expect(r.code).toBe(0);
    expect(seen[0].url).toBe("/v1/queues/batch/filters");
    expect(rules.get(r.stdout.trim())).toMatchObject({ priority: 0, action: "CONTINUE", predicates: [] });
  });

  it("replaces, lists, shows and deletes", async () => {
    const uuid = "abcdefab-0000-4000-8000-000000000001";
    expect((await run("replace", "--action=REJECT", uuid)).stdout).toBe(`${uuid}\n`);
    await run("add", "--action=PAUSE");
    const list = await run("list", "--no-headers", "--separator=|", "-o", "uuid,priority,action");
    expect(list.stdout).toBe(`00000000-0000-4000-8000-000000000001|0|PAUSE\n${uuid}|0|REJECT\n`);
    const table = await run("list", "-o", "+uuid", uuid);
    expect(table.stdout.split("\n")[0].split(/\s+/)).toEqual(["UUID", "Watermark", "Priority", "Predicates", "Action", "ReasonTrail", "UUID"]);
    expect(table.stdout.split("\n")).toHaveLength(3);
    const info = await run("info", uuid);
    expect(info.stdout).toBe(
      `UUID: ${uuid}\n  Watermark: 7\n  Priority: 0\n  Predicates: []\n  Action: REJECT\n  Reason trail: [["luxid","",1]]\n`,
    );
    expect((await run("delete", uuid)).code).toBe(0);
    const gone = await run("delete", uuid);
    expect(gone).toEqual({ code: 1, stdout: "", stderr: `Failure: Filter rule with UUID ${uuid} does not exist\n` });
  });

  it("reports the service's refusal and usage errors", async () => {
    const bad = await run("add", `--predicates=[["jobid", ["~", "id", 1]]]`);
    expect(bad).toMatchObject({ code: 1, stderr: "Failure: Unknown filter operand '~'\n" });
    expect((await run("add", "--action=SOMETIMES")).code).toBe(2);
    expect((await run("list", "-o", "nope")).code).toBe(2);
    expect((await run("delete")).code).toBe(2);
    expect((await run("frobnicate")).code).toBe(2);
    expect((await run("list-fields", "action")).stdout).toContain("Filter action");
  });
});
