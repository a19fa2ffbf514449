import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { evalJqLine } from "../../src/cli/eval-jq.js";
import { runJqCommand } from "../../src/cli/jq-command.js";

async function jq(argv: string[], stdin = ""): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runJqCommand(argv, { stdin, stdout: (s) => (out += s), stderr: (s) => (err += s) });
  return { code, out, err };
}

describe("arbiter jq", () => {
  it("pretty-prints each output of each input value", async () => {
    const r = await jq([".a"], '{"a":{"b":[1,2]}} {"a":3}');
    expect(r).toEqual({ code: 0, out: '{\n  "b": [\n    1,\n    2\n  ]\n}\n3\n', err: "" });
  });
  it("supports -c, -r, -j, -n, -s and combined short flags", async () => {
    expect((await jq(["-c", "."], '{"a":[1, 2]}')).out).toBe('{"a":[1,2]}\n');
    expect((await jq(["-r", ".[]"], '["x", 1]')).out).toBe("x\n1\n");
    expect((await jq(["-j", ".[]"], '["x", 1]')).out).toBe("x1");
    expect((await jq(["-n", "1+1"])).out).toBe("2\n");
    expect((await jq(["-sc", "."], "1 2 3")).out).toBe("[1,2,3]\n");
    expect((await jq(["--tab", "."], "[1]")).out).toBe("[\n\t1\n]\n");
    expect((await jq(["--indent", "1", "."], "[1]")).out).toBe("[\n 1\n]\n");
  });
  it("binds --arg and --argjson", async () => {
    const r = await jq(["-nc", "--arg", "a", "x", "--argjson", "b", "{\"c\":1}", "[$a, $b, $ARGS.named.a]"]);
    expect(r.out).toBe('["x",{"c":1},"x"]\n');
  });
  it("shares one input stream between the main loop and input/inputs", async () => {
    expect((await jq(["-nc", "[inputs]"], "1 2 3")).out).toBe("[1,2,3]\n");
    expect((await jq(["-c", "[., input]"], "1 2 3 4")).out).toBe("[1,2]\n[3,4]\n");
    expect((await jq(["-n", "input"], "")).code).toBe(5);
  });
  it("keeps every top-level null of its input", async () => {
    expect((await jq(["-c", "."], "null 1 null")).out).toBe("null\n1\nnull\n");
    expect((await jq(["-c", "."], "[null] null\nnull")).out).toBe("[null]\nnull\nnull\n");
  });
  it("keeps number literals of its input", async () => {
    expect((await jq(["-c", "., .[0] + 0"], "[1.000, 100000000000000000001]")).out).toBe("[1.000,100000000000000000001]\n1\n");
  });
  it("reads files", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "jqcli-"));
    const f = path.join(dir, "in.json");
    writeFileSync(f, '{"v": 7}');
    expect((await jq([".v", f])).out).toBe("7\n");
  });
  it("exits 3 on a compile error, 5 on a runtime error, 2 on usage errors", async () => {
    const c = await jq(["-n", "1 +"]);
    expect(c.code).toBe(3);
    expect(c.err).toContain("compile error");
    const r = await jq([".[] | (1 / .)"], "[1, 0]");
    expect(r.code).toBe(5);
    expect(r.out).toBe("1\n");
    expect(r.err).toContain("number (1) and number (0) cannot be divided because the divisor is zero");
    expect((await jq([])).code).toBe(2);
    expect((await jq(["--bogus", "."])).code).toBe(2);
  });
  it("applies the -e exit status rules", async () => {
    expect((await jq(["-e", "."], "true")).code).toBe(0);
    expect((await jq(["-e", "."], "null")).code).toBe(1);
    expect((await jq(["-e", "."], "false")).code).toBe(1);
    expect((await jq(["-e", "empty"], "1")).code).toBe(4);
  });
  it("halt_error exits with its code and prints the message", async () => {
    const r = await jq(["-n", '"bye\\n" | halt_error(3)']);
    expect(r).toEqual({ code: 3, out: "", err: "bye\n" });
  });
});

describe("arbiter eval jq", () => {
  it("answers outputs and their compact printing", () => {
    expect(evalJqLine({ program: ".[] * 2", input: [1, 1.5] })).toEqual({ outputs: [2, 3], printed: ["2", "3"] });
    expect(evalJqLine({ program: "$x + 1", input: null, args: { x: 1e15 } })).toEqual({ outputs: [1000000000000001], printed: ["1000000000000001"] });
    expect(evalJqLine({ program: "1e15 * 10, 1 / 100000, 0.1 + 0.2", input: null })).toEqual({ outputs: [1e16, 1e-5, 0.30000000000000004], printed: ["1e+16", "1e-05", "0.30000000000000004"] });
    expect(evalJqLine({ program: "1e1000 + 0", input: null })).toEqual({ outputs: [Infinity], printed: ["1.7976931348623157e+308"] });
    expect(evalJqLine({ program: "1.000, 1e1000", input: null })).toEqual({ outputs: [1, Infinity], printed: ["1.000", "1E+1000"] });
  });
  it("keeps outputs produced before an error", () => {
    expect(evalJqLine({ program: ".[] | {a:1} + .", input: [{ b: 2 }, 1] })).toEqual({
      outputs: [{ a: 1, b: 2 }],
      printed: ['{"a":1,"b":2}'],
      error: 'object ({"a":1}) and number (1) cannot be added',
    });
  });
  it("reports compile errors and malformed lines", () => {
    expect(evalJqLine({ program: "nosuchfn", input: null })).toEqual({ compile_error: expect.stringContaining("nosuchfn/0 is not defined") });
    expect(evalJqLine({ input: 1 })).toHaveProperty("compile_error");
  });
});
