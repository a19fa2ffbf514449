/**
 * Issue 28: the playground's jq pane runs what `arbiter jq` runs. For each case the
 * route's runner (src/http/playground/jq.ts, the pure part of `POST /v1/playground/jq`)
 * is fed a body, and `arbiter jq` (src/cli/jq-command.ts) the command line that body
 * stands for with the input on standard input: both must print the same on standard
 * output and error and exit with the same status.
 */
import { describe, expect, it } from "vitest";
import { runJqCommand } from "../../src/cli/jq-command.js";
import { Budget } from "../../src/engines/common/budget.js";
import { jqArgv, runPlaygroundJq, JQ_OUTPUT_LIMIT } from "../../src/http/playground/jq.js";
import { jqPlaygroundSchemas } from "../../src/http/schemas/playground-jq.js";

async function viaCli(argv: string[], stdin: string) {
  let stdout = "";
  let stderr = "";
  const exit_status = await runJqCommand(argv, {
    stdin,
    stdout: (s) => (stdout += s),
    stderr: (s) => (stderr += s),
    env: {},
    stdinIsTty: false,
    stdoutIsTty: false,
  });
  return { stdout, stderr, exit_status };
}

const CASES: Array<[string, Record<string, unknown>]> = [
  ["adds one", { program: ".a + 1", input: '{"a": 1}' }],
  ["pretty-prints objects", { program: "{x: .a, y: [1, 2]}", input: '{"a": "b"}' }],
  ["-c", { program: ".", input: '{"a": [1, 2, {"b": null}]}', compact: true }],
  ["-r", { program: ".[]", input: '["x", "y\\nz", 1]', raw_output: true }],
  ["-s", { program: "add", input: "1 2 3", slurp: true }],
  ["-n with input", { program: "[inputs] | length", input: "1 2 3", null_input: true }],
  ["-n alone", { program: "1, 2", input: "", null_input: true }],
  [
    "--arg and --argjson",
    {
      program: "[$x, $y, $ARGS.named]",
      input: "null",
      compact: true,
      args: [
        { name: "x", value: "text" },
        { name: "y", value: '{"n": 1.000}', json: true },
      ],
    },
  ],
  ["invalid --argjson", { program: "$y", input: "null", args: [{ name: "y", value: "{", json: true }] }],
  ["a compile error", { program: ".a | ", input: "1" }],
  ["two compile errors", { program: "foo(1) | bar", input: "1" }],
  ["a runtime error after outputs", { program: ".[] | .a", input: '[{"a": 1}, 2, {"a": 3}]' }],
  ["a parse error in the input", { program: ".", input: "1 {" }],
  ["error with an object", { program: 'error({"x": 1})', input: "null" }],
  ["halt_error", { program: '"bye\\n" | halt_error(3)', input: "null" }],
  ["a program starting with a dash", { program: "-1", input: "null" }],
  ["number literals kept", { program: ".", input: "100000000000000000001 1.10" }],
];

describe("POST /v1/playground/jq prints what arbiter jq prints", () => {
  for (const [name, raw] of CASES) {
    it(name, async () => {
      const body = jqPlaygroundSchemas().JqPlaygroundBody.parse(raw);
      const want = await viaCli(jqArgv(body), body.input);
      const got = runPlaygroundJq(body, new Budget(400_000));
      expect({ stdout: got.stdout, stderr: got.stderr, exit_status: got.exit_status }).toEqual(want);
      expect(got.truncated).toBe(false);
    });
  }

  it("stands for the command line: toggles, named arguments, then -- and the program", () => {
    const body = jqPlaygroundSchemas().JqPlaygroundBody.parse({
      program: "-.a",
      compact: true,
      raw_output: true,
      slurp: true,
      null_input: true,
      args: [
        { name: "a", value: "1" },
        { name: "b", value: "2", json: true },
      ],
    });
    expect(jqArgv(body)).toEqual([
      "-c",
      "-r",
      "-s",
      "-n",
      "--arg",
      "a",
      "1",
      "--argjson",
      "b",
      "2",
      "--",
      "-.a",
    ]);
  });

  it("cuts the output at 1 MiB and says so", () => {
    const got = runPlaygroundJq(
      jqPlaygroundSchemas().JqPlaygroundBody.parse({
        program: 'range(300000) | "xxxxxxxxxx"',
        null_input: true,
        raw_output: true,
      }),
      new Budget(10_000_000),
    );
    expect(got.truncated).toBe(true);
    expect(got.stdout.length).toBe(JQ_OUTPUT_LIMIT);
  });
});
