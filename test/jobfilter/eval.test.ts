import { describe, expect, it } from "vitest";
import { evalCommand } from "../../src/cli/eval-command.js";

async function evalLines(lines: unknown[]): Promise<Record<string, unknown>[]> {
  let out = "";
  const code = await evalCommand(["jobfilter"], {
    stdout: (t) => (out += t),
    stderr: () => {},
    readStdin: async () => lines.map((l) => JSON.stringify(l)).join("\n"),
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
      { filters: [LIMIT], job: { id: 3, opcodes: [{ OP_ID: "OP_A" }] }, queue: { running: [{ id: 1, opcodes: [] }] } },
      { job: { id: 3, opcodes: [] } },
      { filters: [LIMIT], job: { id: 3, opcodes: [] }, queuedAhead: [{ id: 2, opcodes: [] }] },
    ]);
    expect(limited).toMatchObject({ cacheable: false, action: "RATE_LIMITED", rule: LIMIT.uuid });
    expect(typeof limited.decision_id).toBe("string");
    expect(plain).toMatchObject({ action: "ACCEPT", rule: null });
    expect(spec).toMatchObject({ action: "RATE_LIMITED", rule: LIMIT.uuid });
  });

  it("answers an invalid line's filters with an error naming the field", async () => {
    const [bad] = await evalLines([{ filters: [{ action: "NOPE" }], job: { id: 1, opcodes: [] } }]);
    expect(bad).toMatchObject({ error: { code: "invalid_request", details: [{ at: "/filters/0/action" }] } });
    expect(String((bad.error as { message: string }).message)).toContain("malformed FilterAction JSON");
  });
});
