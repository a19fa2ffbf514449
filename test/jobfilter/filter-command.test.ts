import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { EXIT_UNKNOWN_FIELD, runFilterCommand } from "../../src/cli/filter-command.js";
import { parseRuleBody, parseUuid } from "../../src/engines/jobfilter/index.js";
import { parseExactJson, stringifyExactJson } from "../../src/engines/common/exact-json.js";

// A loopback stand-in for the service's RAPI filter resource, checking bodies with the engine's own parser
// and reading them with exact integers, as the service does.
// Nanosecond timestamps travel as literal digits, as the service sends them: the fake keeps
// them as "ns:<digits>" strings and writes the digits bare.
const rules = new Map<string, Record<string, unknown>>();
const seen: { method: string; url: string; auth?: string }[] = [];
let server: Server;
let url: string;
let counter = 0;

async function bodyOf(req: IncomingMessage): Promise<unknown> {
  let text = "";
  for await (const chunk of req) text += String(chunk);
  return text === "" ? null : parseExactJson(text);
}

beforeAll(async () => {
  server = createServer(async (req, res) => {
    seen.push({ method: req.method ?? "", url: req.url ?? "", auth: req.headers.authorization });
    const reply = (status: number, value: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(stringifyExactJson(value).replace(/"ns:(\d+)"/g, "$1"));
    };
    const u = new URL(req.url ?? "/", "http://x");
    const m = /^\/(?:2|v1\/queues\/[^/]+)\/filters(?:\/([^/]+))?$/.exec(u.pathname);
    if (!m) return reply(404, { code: 404, message: "no route", explain: "" });
    const id = m[1];
    if (req.method === "GET" && id === undefined) {
      const list = [...rules.values()].sort((a, b) => String(a.uuid).localeCompare(String(b.uuid)));
      return reply(
        200,
        u.searchParams.get("bulk") === "1"
          ? list
          : list.map((r) => ({ uuid: r.uuid, uri: `/2/filters/${String(r.uuid)}` })),
      );
    }
    if ((req.method === "POST" && id === undefined) || req.method === "PUT") {
      const body = parseRuleBody(await bodyOf(req));
      if (!body.ok) return reply(400, { code: 400, message: body.error, explain: "" });
      const uuid =
        id === undefined ? `00000000-0000-4000-8000-${String(++counter).padStart(12, "0")}` : parseUuid(id);
      if (uuid === null) return reply(400, { code: 400, message: "Unable to parse UUID", explain: "" });
      const { reason, ...rest } = body.value;
      rules.set(uuid, { uuid, watermark: 7, ...rest, reason_trail: [...reason, ["luxid", "", 1]] });
      return reply(200, uuid);
    }
    if (req.method === "DELETE" && id !== undefined) {
      if (!rules.delete(id))
        return reply(404, { code: 404, message: `Filter rule with UUID ${id} does not exist`, explain: "" });
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
  // --url goes right after the subcommand, so an option missing its value at the end stays missing.
  const [command, ...rest] = argv;
  const code = await runFilterCommand(command === undefined ? [] : [command, "--url", url, ...rest], {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: { ARBITER_ADMIN_TOKEN: "tok" },
  });
  return { code, stdout, stderr };
}

const A = "0a000000-0000-4000-8000-000000000000";
const B = "9b000000-0000-4000-8000-000000000000";
const C = "10c00000-0000-4000-8000-000000000000";

/** Three rules whose UUIDs sort differently as text (10c… < 9b…) and as Ganeti's niceSort (9 < 10). */
async function threeRules() {
  await run("replace", "--priority=10", "--action=PAUSE", A);
  await run(
    "replace",
    `--predicates=[["jobid", [">", "id", "watermark"]]]`,
    "--action",
    "RATE_LIMIT",
    "10",
    B,
  );
  await run("replace", "--action=REJECT", "--reason=drain", C);
}

describe("arbiter filter", () => {
  it("adds a rule with every option and prints its uuid", async () => {
    const r = await run(
      "add",
      "--priority=2",
      `--predicates=[["jobid", [">", "id", "watermark"]]]`,
      "--action",
      "RATE_LIMIT",
      "10",
      "--reason=drain for maintenance",
    );
    expect(r).toMatchObject({ code: 0, stderr: "" });
    const uuid = r.stdout.trim();
    const rule = rules.get(uuid) as Record<string, unknown>;
    expect(rule).toMatchObject({
      priority: 2,
      action: ["RATE_LIMIT", 10],
      predicates: [["jobid", [">", "id", "watermark"]]],
    });
    const trail = rule.reason_trail as unknown[][];
    expect(trail[0].slice(0, 2)).toEqual(["gnt:user", "drain for maintenance"]);
    // Milliseconds times 10^6 exactly: a double past 2^53 would round away the trailing zeros.
    expect(typeof trail[0][2]).toBe("bigint");
    expect((trail[0][2] as bigint) % 1_000_000n).toBe(0n);
    expect(trail[0][2] as bigint).toBeGreaterThan(10n ** 18n);
    expect(seen[0]).toMatchObject({ method: "POST", url: "/2/filters", auth: "Bearer tok" });
  });

  it("sends a priority and a predicate value past 2^53 digit for digit, and lists them so", async () => {
    const r = await run(
      "add",
      "--priority=9007199254740993",
      `--predicates=[["opcode", ["==", "size", 9007199254740993]]]`,
      "--action=REJECT",
    );
    expect(r).toMatchObject({ code: 0, stderr: "" });
    const rule = rules.get(r.stdout.trim()) as Record<string, unknown>;
    expect(rule.priority).toBe(9007199254740993n);
    expect(rule.predicates).toEqual([["opcode", ["==", "size", 9007199254740993n]]]);
    const list = await run("list", "--no-headers", "-o", "priority,predicates");
    expect(list.stdout).toBe("9007199254740993 [['opcode', ['==', 'size', 9007199254740993]]]\n");
  });

  it("passes the largest priority on and leaves one past it for the service to refuse", async () => {
    const top = await run("add", "--priority=9223372036854775807");
    expect(rules.get(top.stdout.trim())).toMatchObject({ priority: 9223372036854775807n });
    const over = await run("add", "--priority=9223372036854775808");
    expect(over).toMatchObject({
      code: 1,
      stderr:
        "Failure: priority must be at most 9223372036854775807 (a 64-bit integer, as Ganeti stores it)\n",
    });
  });

  it("defaults to CONTINUE with priority 0 and addresses a named queue", async () => {
    const r = await run("add", "--queue", "batch");
    expect(r.code).toBe(0);
    expect(seen[0].url).toBe("/v1/queues/batch/filters");
    expect(rules.get(r.stdout.trim())).toMatchObject({ priority: 0, action: "CONTINUE", predicates: [] });
  });

  it("lists as gnt-filter: columns left-aligned and padded, the last unpadded, in niceSort order of the UUIDs", async () => {
    await threeRules();
    const r = await run("list", "-o", "uuid,priority,action");
    expect(r).toEqual({
      code: 0,
      stderr: "",
      stdout: `UUID${" ".repeat(32)} Priority Action\n${A} 10       PAUSE\n${B} 0        ['RATE_LIMIT', 10]\n${C} 0        REJECT\n`,
    });
  });

  it("lists the UUIDs given in the order given", async () => {
    await threeRules();
    const r = await run("list", "--no-headers", "-o", "uuid", C, A, B, A);
    expect(r.stdout).toBe(`${C}\n${A}\n${B}\n${A}\n`);
    const info = await run("info", B, A);
    expect(info.stdout.split("\n").filter((l) => l.startsWith("UUID: "))).toEqual([
      `UUID: ${B}`,
      `UUID: ${A}`,
    ]);
  });

  it("takes -o attached, --output, a unique prefix of a long option, and +FIELD appended to the defaults", async () => {
    await threeRules();
    const want = `${A}|PAUSE\n${B}|['RATE_LIMIT', 10]\n${C}|REJECT\n`;
    expect((await run("list", "--no-headers", "--separator=|", "-ouuid,action")).stdout).toBe(want);
    expect((await run("list", "--no-headers", "--separator", "|", "--output=uuid,action")).stdout).toBe(want);
    expect((await run("list", "--no-h", "--sep=|", "--out", "uuid,action")).stdout).toBe(want);
    const plus = await run("list", "--separator=,", "-o", "+uuid", A);
    expect(plus.stdout.split("\n")[0]).toBe("UUID,Watermark,Priority,Predicates,Action,ReasonTrail,UUID");
    expect(plus.stdout.split("\n")[1]).toBe(`${A},7,10,[],PAUSE,[['luxid', '', 1]],${A}`);
  });

  it("shows an unknown field as ?? (or (unknown) with -v), warns, and exits 14", async () => {
    await threeRules();
    const r = await run("list", "--separator=|", "-o", "uuid,nope,bogus", A);
    expect(r).toEqual({
      code: EXIT_UNKNOWN_FIELD,
      stdout: `UUID|nope|bogus\n${A}|??|??\n`,
      stderr: "Warning: Queried for unknown fields nope, bogus\n",
    });
    expect(EXIT_UNKNOWN_FIELD).toBe(14);
    expect((await run("list", "--no-headers", "-v", "-o", "nope", A)).stdout).toBe("(unknown)\n");
    rules.clear();
    expect(await run("list", "-o", "nope")).toEqual({
      code: 14,
      stdout: "nope\n",
      stderr: "Warning: Queried for unknown fields nope\n",
    });
  });

  it("lists fields in gnt-filter's order, with --separator and --no-headers, unknown ones as Unknown (exit 14)", async () => {
    const all = await run("list-fields", "--separator=|");
    expect(all).toEqual({
      code: 0,
      stderr: "",
      stdout:
        "Name|Type|Title|Description\n" +
        "action|Custom|Action|Filter action\n" +
        "predicates|Custom|Predicates|List of filter predicates\n" +
        "priority|Custom|Priority|Filter priority\n" +
        "reason_trail|Custom|ReasonTrail|Reason why this filter was added\n" +
        "uuid|Custom|UUID|Filter ID\n" +
        "watermark|Custom|Watermark|Highest job ID used at the time when the filter was added\n",
    });
    expect(seen).toEqual([]);
    const some = await run("list-fields", "--no-headers", "uuid", "nope");
    expect(some).toEqual({
      code: 14,
      stdout: "uuid Custom  UUID Filter ID\nnope Unknown nope Unknown field 'nope'\n",
      stderr: "Warning: Queried for unknown fields nope\n",
    });
  });

  it("prints values as Python's str() of what Ganeti decodes, keeping nanosecond timestamps exact", async () => {
    rules.set(A, {
      uuid: A,
      watermark: 12,
      priority: 1,
      predicates: [["reason", ["=~", "reason", 'it\'s "pink"']]],
      action: ["RATE_LIMIT", 3],
      reason_trail: [
        ["gnt:user", "drain", "ns:1795482117065516288"],
        ["gnt:opcode:x", "", "ns:1795482117065516289"],
      ],
    });
    const r = await run("info", A);
    expect(r.stdout).toBe(
      `UUID: ${A}\n  Watermark: 12\n  Priority: 1\n` +
        `  Predicates: [['reason', ['=~', 'reason', 'it\\'s "pink"']]]\n` +
        `  Action: ['RATE_LIMIT', 3]\n` +
        `  Reason trail: [['gnt:user', 'drain', 1795482117065516288], ['gnt:opcode:x', '', 1795482117065516289]]\n`,
    );
  });

  it("replaces, shows and deletes; a UUID that is not there is Ganeti's unknown_entity failure", async () => {
    const uuid = "abcdefab-0000-4000-8000-000000000001";
    expect((await run("replace", "--action=REJECT", uuid)).stdout).toBe(`${uuid}\n`);
    const info = await run("info", uuid);
    expect(info.stdout).toBe(
      `UUID: ${uuid}\n  Watermark: 7\n  Priority: 0\n  Predicates: []\n  Action: REJECT\n  Reason trail: [['luxid', '', 1]]\n`,
    );
    expect((await run("delete", uuid)).code).toBe(0);
    const gone = await run("delete", uuid);
    expect(gone).toEqual({
      code: 1,
      stdout: "",
      stderr: `Failure: Filter rule with UUID ${uuid} does not exist\n`,
    });
    const missing = `Failure: prerequisites not met for this operation:\nerror type: unknown_entity, error details:\nFilter uuid ${uuid} not found\n`;
    expect(await run("list", uuid)).toEqual({ code: 1, stdout: "", stderr: missing });
    expect(await run("info", uuid)).toEqual({ code: 1, stdout: "", stderr: missing });
  });

  it("exits as gnt-filter: 1 for the service's refusal, argument counts and unknown commands; 2 for options that do not parse", async () => {
    const bad = await run("add", `--predicates=[["jobid", ["~", "id", 1]]]`);
    expect(bad).toMatchObject({ code: 1, stderr: "Failure: Unknown filter operand '~'\n" });
    const action = await run("add", "--action=SOMETIMES");
    expect(action.code).toBe(1);
    expect(action.stderr).toMatch(/^Failure: /);
    expect(await run("delete")).toEqual({
      code: 1,
      stdout: "",
      stderr: "Error: Command delete expects 1 argument(s)\n",
    });
    expect(await run("add", "x")).toEqual({
      code: 1,
      stdout: "",
      stderr: "Error: Command add expects no arguments\n",
    });
    const unknownCommand = await run("frobnicate");
    expect(unknownCommand.code).toBe(1);
    expect(unknownCommand.stdout).toContain("usage: arbiter filter");
    const option = await run("list", "--bogus");
    expect(option.code).toBe(2);
    expect(option.stderr).toContain("arbiter filter: error: no such option: --bogus\n");
    expect((await run("list", "-o")).code).toBe(2);
    expect((await run("add", "--priority=high")).stderr).toContain(
      "option --priority: invalid integer value: 'high'",
    );
    expect((await run("list", "--no-headers=1")).stderr).toContain(
      "--no-headers option does not take a value",
    );
    expect((await run("add", "--pr=1")).stderr).toContain(
      "ambiguous option: --pr (--priority, --predicates?)",
    );
    expect(seen.filter((s) => s.method !== "POST")).toEqual([]);
  });

  it("prints each command's own usage for --help", async () => {
    const r = await run("list", "--help");
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: arbiter filter list \[options\] \[<filter-uuid>\.\.\.\]/);
    expect(r.stdout).toContain("-o, --output=VALUE");
  });
});
