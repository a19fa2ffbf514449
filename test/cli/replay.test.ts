import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { maskRequest, maskRules, maskView, pseudonym, viewOf } from "../../src/bundle/compare/index.js";
import { reportSchemas } from "../../src/http/schemas/report.js";
import { REPO_ROOT } from "../support/cases.js";
import { run, scratchSpace } from "./run-cli.js";

// Issue 15, "Replay offline": `arbiter replay` re-decides captured requests under a candidate
// folder and prints the shadow route's report; `--against` compares two folders over a request file.

const scratch = scratchSpace("arbiter-replay-");
const policy = (name: string) => readFileSync(join(REPO_ROOT, "policies", name), "utf8");
const RULE3 =
  /\n\s*# 3\. Everything that reaches this point lands in root\.default\.\n\s*- name: fixed\n\s*value: root\.default\n/;
/** The shipped placement policy, and the same without its fallback rule (those applications are rejected). */
const activeDir = scratch.folder({ "placement.yaml": policy("placement.yaml") });
const candidateDir = scratch.folder({ "placement.yaml": policy("placement.yaml").replace(RULE3, "\n") });

const bob = (user: string) => ({ user, groups: [user], tags: { namespace: "testapp" } });
const sarah = (user: string) => ({ user, groups: [user, "dev_app"], tags: { namespace: "newapp" } });
const placed = (queue: string, create = false) => ({ rejected: false, queue, create });

/** A decision log line as the Worker writes it with capture on. */
function logLine(n: number, request: object, verdict: object, extra: object = {}): string {
  return JSON.stringify({
    ts: `2026-11-22T06:00:${String(n).padStart(2, "0")}.000Z`,
    decision_id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    engine: "placement",
    revision: "r",
    outcome: "placed",
    ms: 0,
    cache: "miss",
    kind: "placement",
    request,
    verdict,
    ...extra,
  });
}

describe("arbiter replay LOG", () => {
  const log = [
    logLine(1, bob("b1"), placed("root.default")),
    logLine(2, bob("b2"), placed("root.default")),
    logLine(3, sarah("s1"), placed("root.newapp.s1", true)),
    logLine(4, bob("b3"), placed("root.default")),
    JSON.stringify({
      ts: "2026-11-22T06:00:05.000Z",
      event: "policy_published",
      engine: "placement",
      revision: "r",
    }),
    JSON.stringify({
      ts: "2026-11-22T06:00:06.000Z",
      decision_id: "x",
      engine: "placement",
      revision: "r",
      outcome: "placed",
      ms: 0,
    }),
    JSON.stringify({
      ts: "2026-11-22T06:00:07.000Z",
      decision_id: "y",
      engine: "customs",
      revision: "r",
      outcome: "allocated",
      ms: 0,
      kind: "customs",
      request: {},
    }),
    logLine(8, { id: 3, opcodes: [] }, { action: "ACCEPT" }, { engine: "jobfilter", kind: "jobfilter" }),
    "not json",
  ].join("\n");
  const logFile = scratch.file("decisions.jsonl", log + "\n");

  it("counts agreed and differing decisions per outcome pair, with examples, and says what it skipped", async () => {
    const r = await run(["replay", "--policy", candidateDir, logFile]);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    expect(r.out).toContain("4 decisions compared since 2026-11-22T06:00:01.000Z: 1 agreed, 3 differing");
    expect(r.out).toContain("placement: 4 compared, 1 agreed, 3 differing");
    expect(r.out).toMatch(/ 3 {2}rejected false → true\n +request: {3}\{"user":"b1"/);
    expect(r.out).toContain("5 of 9 lines skipped:");
    for (const why of [
      "not a decision line",
      "no captured request (DECISION_LOG_REQUESTS was off)",
      "customs allocations depend on the host pool's state",
      "job decisions depend on the queue's running jobs, which a log does not hold",
      "not JSON",
    ]) {
      expect(r.out).toContain(`  1  ${why}\n`);
    }
  });

  it("prints the report in the shadow route's JSON shape", async () => {
    const r = await run(["replay", "--policy", candidateDir, "--format", "json", logFile]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    expect(reportSchemas().ReportBody.safeParse(report).success).toBe(true);
    expect(report).toMatchObject({ since: "2026-11-22T06:00:01.000Z", compared: 4, agreed: 1, differing: 3 });
    expect(report.engines.placement.pairs).toEqual([
      {
        pair: "rejected false → true",
        count: 3,
        examples: ["b1", "b2", "b3"].map((u, i) => ({
          at: `2026-11-22T06:00:0${[1, 2, 4][i]}.000Z`,
          request: bob(u),
          active: placed("root.default"),
          candidate: { rejected: true, queue: null, create: false },
        })),
      },
    ]);
    expect(report.replay).toMatchObject({ policy: candidateDir, log: logFile, lines: 9 });
  });

  it("replays the active folder itself without a difference", async () => {
    const r = await run(["replay", "--policy", activeDir, "--format", "json", logFile]);
    expect(JSON.parse(r.out)).toMatchObject({
      compared: 4,
      agreed: 4,
      differing: 0,
      engines: { placement: { pairs: [] } },
    });
  });

  it("replays a masked log consistently: pseudonymous users get their pseudonymous queues", async () => {
    const rules = maskRules(undefined);
    const lines = await Promise.all(
      [sarah("sarah"), sarah("sarah.k"), bob("bob")].map(async (request, i) => {
        const verdict =
          i < 2 ? placed(`root.newapp.${request.user.replace(".", "_dot_")}`, true) : placed("root.default");
        return logLine(
          i + 1,
          (await maskRequest("placement", request, rules)) as object,
          await maskView("placement", request, viewOf("placement", verdict)),
        );
      }),
    );
    expect(lines.join("\n")).not.toContain("sarah");
    const r = await run([
      "replay",
      "--policy",
      candidateDir,
      "--format",
      "json",
      scratch.file("masked.jsonl", lines.join("\n")),
    ]);
    const report = JSON.parse(r.out);
    expect(report).toMatchObject({ compared: 3, agreed: 2, differing: 1 });
    expect(report.engines.placement.pairs[0].examples[0].request.user).toBe(await pseudonym("bob"));
  });

  it("reads the log from stdin, and shows progress on a terminal", async () => {
    const r = await run(["replay", "--policy", candidateDir, "-"], log, true);
    expect(r.code).toBe(0);
    expect(r.out).toContain("4 decisions compared");
    expect(r.err).toContain("replay [");
    expect(r.err).toContain("9/9");
    expect(r.err.endsWith("\r\x1b[K")).toBe(true);
    expect((await run(["replay", "--policy", candidateDir, "-"], log, false)).err).toBe("");
  });
});

describe("arbiter replay --against", () => {
  it("decides a request file under both folders: bare bodies with --engine", async () => {
    const file = scratch.file(
      "requests.jsonl",
      [bob("a"), sarah("b"), bob("c"), { user: 7 }].map((r) => JSON.stringify(r)).join("\n"),
    );
    const r = await run([
      "replay",
      "--policy",
      candidateDir,
      "--against",
      activeDir,
      "--engine",
      "placement",
      "--format",
      "json",
      file,
    ]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out);
    expect(report).toMatchObject({ since: null, compared: 3, agreed: 1, differing: 2 });
    expect(report.engines.placement.pairs[0]).toMatchObject({ pair: "rejected false → true", count: 2 });
    expect(report.replay.skipped).toEqual({
      "the request is not a placement request: `user`: Invalid input: expected string, received number": 1,
    });
  });

  it("takes lines naming their kind, jobs with their queue included", async () => {
    const limitsDir = scratch.folder({ "filters.json": "[]" });
    const rateLimited = scratch.folder({
      "filters.json": JSON.stringify([
        { predicates: [["opcode", ["=", "OP_ID", "OP_INSTANCE_STARTUP"]]], action: ["RATE_LIMIT", 1] },
      ]),
    });
    const startup = (id: number) => ({ id, opcodes: [{ OP_ID: "OP_INSTANCE_STARTUP" }] });
    const lines = [
      { kind: "jobfilter", request: { job: startup(2), queue: { running: [startup(1)] } } },
      { kind: "jobfilter", request: { job: startup(3) } },
      { kind: "placement", request: bob("x") },
    ].map((l) => JSON.stringify(l));
    const r = await run([
      "replay",
      "--policy",
      rateLimited,
      "--against",
      limitsDir,
      "--format",
      "json",
      scratch.file("jobs.jsonl", lines.join("\n")),
    ]);
    const report = JSON.parse(r.out);
    expect(report).toMatchObject({ compared: 2, agreed: 1, differing: 1 });
    expect(
      report.engines.jobfilter.pairs.map((p: { pair: string; count: number }) => [p.pair, p.count]),
    ).toEqual([["action ACCEPT → RATE_LIMITED", 1]]);
    expect(report.replay.skipped).toEqual({ "no placement policy in the folder": 1 });
  });
});

describe("arbiter replay errors", () => {
  it("exits 2 on usage errors", async () => {
    for (const argv of [
      ["replay"],
      ["replay", "x.jsonl"],
      ["replay", "--policy", "p", "--format", "xml", "x"],
      ["replay", "--policy", "p", "--engine", "placement", "x"],
      ["replay", "--policy", "p", "--bogus", "x"],
    ]) {
      const r = await run(argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.err).toContain("usage: arbiter replay");
    }
    expect((await run(["replay", "--help"])).out).toContain("--against DIR");
  });

  it("exits 1 when a folder does not compile, naming the file and place", async () => {
    const bad = scratch.folder({ "placement.yaml": "partitions: [\n" });
    const r = await run(["replay", "--policy", bad, scratch.file("empty.jsonl", "")]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(new RegExp(`${join(bad, "placement.yaml")}:\\d+:\\d+: `));
    expect(r.err).toContain("do not compile");
  });

  it("exits 1 when the file cannot be read", async () => {
    const r = await run(["replay", "--policy", activeDir, join(scratch.root, "missing.jsonl")]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("cannot read");
  });
});
