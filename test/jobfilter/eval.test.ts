import { describe, expect, it } from "vitest";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { evalCommand } from "../../src/cli/eval-command.js";

async function evalLines(lines: unknown[], argv: string[] = []): Promise<Record<string, unknown>[]> {
  let out = "";
  const code = await evalCommand(["jobfilter", ...argv], {
    stdout: (t) => (out += t),
    stderr: () => {},
    // A string is a line's own JSON text (integers past 2^53 that JSON.stringify cannot write).
    readStdin: async () => lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n"),
    isTty: false,
    stdinIsTty: false,
    env: {},
  });
  expect(code).toBe(0);
  return out
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

const LIMIT = { uuid: "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", action: ["RATE_LIMIT", 1] };

describe("arbiter eval jobfilter", () => {
  it("decides lines with their own filters, or the shipped policy", async () => {
    const [limited, plain, spec] = await evalLines([
      {
        filters: [LIMIT],
        job: { id: 3, opcodes: [{ OP_ID: "OP_A" }] },
        queue: { running: [{ id: 1, opcodes: [] }] },
      },
      { job: { id: 3, opcodes: [] } },
      { filters: [LIMIT], job: { id: 3, opcodes: [] }, queuedAhead: [{ id: 2, opcodes: [] }] },
    ]);
    expect(limited).toMatchObject({ cacheable: false, action: "RATE_LIMITED", rule: LIMIT.uuid });
    expect(typeof limited.decision_id).toBe("string");
    expect(plain).toMatchObject({ action: "ACCEPT", rule: null });
    expect(spec).toMatchObject({ action: "RATE_LIMITED", rule: LIMIT.uuid });
  });

  it("orders a line's own rules by priorities that differ only past 2^53", async () => {
    const filters =
      '[{"uuid": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", "priority": 9007199254740993, "action": "REJECT"},' +
      ' {"uuid": "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb", "priority": 9007199254740992, "action": "PAUSE"}]';
    const [own, wrapped] = await evalLines([
      `{"filters": ${filters}, "job": {"id": 1, "opcodes": []}}`,
      `{"policy": ${filters}, "input": {"job": {"id": 1, "opcodes": []}}}`,
    ]);
    expect(own).toMatchObject({ action: "PAUSE", rule: "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb" });
    expect(wrapped).toMatchObject({ action: "PAUSE", rule: "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb" });
  });

  it("reads --policy with exact integers: a predicate value of 2^53+1 does not match 2^53", async () => {
    const dir = mkdtempSync(join(tmpdir(), "arbiter-eval-jobfilter-"));
    try {
      const file = join(dir, "filters.json");
      writeFileSync(
        file,
        '[{"uuid": "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", "priority": 9007199254740993, "predicates": [["opcode", ["==", "size", 9007199254740993]]], "action": "REJECT"},' +
          ' {"uuid": "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb", "priority": 9007199254740992, "predicates": [["opcode", ["==", "size", 9007199254740992]]], "action": "PAUSE"}]',
      );
      const [small, big] = await evalLines(
        [
          '{"job": {"id": 1, "opcodes": [{"OP_ID": "OP_X", "size": 9007199254740992}]}}',
          '{"job": {"id": 2, "opcodes": [{"OP_ID": "OP_X", "size": 9007199254740993}]}}',
        ],
        ["--policy", file],
      );
      expect(small).toMatchObject({ action: "PAUSE", rule: "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb" });
      expect(big).toMatchObject({ action: "REJECT", rule: "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("answers an invalid line's filters with an error naming the field", async () => {
    const [bad] = await evalLines([{ filters: [{ action: "NOPE" }], job: { id: 1, opcodes: [] } }]);
    expect(bad).toMatchObject({ error: { code: "invalid_request", details: [{ at: "/filters/0/action" }] } });
    expect(String((bad.error as { message: string }).message)).toContain("malformed FilterAction JSON");
  });
});
