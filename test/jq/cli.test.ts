import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { evalJqLine } from "../../src/cli/eval-jq.js";
import { runJqCommand } from "../../src/cli/jq-command.js";

async function jq(
  argv: string[],
  stdin = "",
  cwd?: string,
  env: Record<string, string> = {},
): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runJqCommand(argv, {
    stdin,
    stdout: (s) => (out += s),
    stderr: (s) => (err += s),
    cwd,
    env,
  });
  return { code, out, err };
}

// Each expectation below is what jq 1.7.1 (built from its tag) prints for the same command line.
describe("arbiter jq as the jq 1.7.1 command", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "jqcli-"));
  writeFileSync(path.join(dir, "a.json"), "1 2\n3\n");
  writeFileSync(path.join(dir, "b.json"), "4\n5");
  writeFileSync(path.join(dir, "prog.jq"), "#!/usr/bin/env jq\n.a\n");
  writeFileSync(path.join(dir, "raw.txt"), "x\ny");
  mkdirSync(path.join(dir, "mods"));
  writeFileSync(path.join(dir, "mods", "m.jq"), 'def f: "m";\n');
  writeFileSync(path.join(dir, "mods", "data.json"), "[1,2]\n");
  const run = (argv: string[], stdin = "", env: Record<string, string> = {}) => jq(argv, stdin, dir, env);

  it("runs `.` when no program is given, and reads `-` as stdin among the files", async () => {
    expect(await run([], '{"a":1}')).toEqual({ code: 0, out: '{\n  "a": 1\n}\n', err: "" });
    expect((await run([".", "a.json", "-"], "9")).out).toBe("1\n2\n3\n9\n");
  });
  it("prints the values before invalid input, then jq's parse error, exit 5", async () => {
    expect(await run(["-c", "."], "1 2\n{")).toEqual({
      code: 5,
      out: "1\n2\n",
      err: "jq: parse error: Unfinished JSON term at EOF at line 2, column 1\n",
    });
  });
  it("counts lines per file in runtime errors", async () => {
    const r = await run([".a", "a.json", "b.json"]);
    const at = (f: string) => `jq: error (at ${f}): Cannot index number with string "a"\n`;
    expect(r).toEqual({
      code: 5,
      out: "",
      err: at("a.json:1") + at("a.json:1") + at("a.json:2") + at("b.json:1") + at("b.json:1"),
    });
  });
  it("reports a missing file when it reaches it, still runs the next value, exits 2", async () => {
    expect(await run(["-c", ".", "a.json", "nosuch", "b.json"])).toEqual({
      code: 2,
      out: "1\n2\n3\n4\n",
      err: "jq: error: Could not open file nosuch: No such file or directory\n",
    });
  });
  it("keeps the first of repeated --arg, and -e after halt exits 0", async () => {
    expect((await run(["-n", "--arg", "a", "1", "--arg", "a", "2", "$a"])).out).toBe('"1"\n');
    expect(await run(["-n", "-e", "null, halt"])).toEqual({ code: 0, out: "null\n", err: "" });
    expect((await run(["-e", "."], "null")).code).toBe(1);
  });
  it("reads raw lines with -R and the program from a file with -f", async () => {
    expect((await run(["-R", "."], "a\nb")).out).toBe('"a"\n"b"\n');
    expect((await run(["-Rs", "."], "a\nb")).out).toBe('"a\\nb"\n');
    expect((await run(["-f", "prog.jq"], '{"a":3}')).out).toBe("3\n");
  });
  it("finds modules and data modules in -L folders", async () => {
    const r = await run([
      "-n",
      "-c",
      "-L",
      "mods",
      'import "m" as m; import "data" as $d; [m::f, $d, $d::d]',
    ]);
    expect(r).toEqual({ code: 0, out: '["m",[[1,2]],[[1,2]]]\n', err: "" });
  });
  it("streams with --stream and binds --slurpfile, --rawfile, --args and --jsonargs", async () => {
    expect((await run(["-c", "--stream", "."], '{"a":[1,2]}')).out).toBe(
      '[["a",0],1]\n[["a",1],2]\n[["a",1]]\n[["a"]]\n',
    );
    expect(
      (await run(["-n", "-c", "--slurpfile", "s", "a.json", "--rawfile", "r", "raw.txt", "[$s, $r]"])).out,
    ).toBe('[[1,2,3],"x\\ny"]\n');
    expect((await run(["-n", "-c", "--args", "$ARGS", "x", "y"])).out).toBe(
      '{"positional":["x","y"],"named":{}}\n',
    );
    expect((await run(["-n", "-c", "--jsonargs", "$ARGS.positional", "1", '{"a":2}'])).out).toBe(
      '[1,{"a":2}]\n',
    );
  });
  it("prints with --raw-output0, -j, --tab, --indent, -a, -S and --seq", async () => {
    expect((await run(["-n", "--raw-output0", '"a","b"'])).out).toBe("a\u0000b\u0000");
    expect((await run(["-n", "-j", '"a",1'])).out).toBe("a1");
    expect((await run(["--tab", "."], '[1,{"a":2}]')).out).toBe('[\n\t1,\n\t{\n\t\t"a": 2\n\t}\n]\n');
    expect((await run(["--indent", "0", "."], '[1,{"a":2}]')).out).toBe('[1,{"a":2}]\n');
    expect((await run(["-n", "-a", '"é"'])).out).toBe('"\\u00e9"\n');
    expect((await run(["-S", "-c", "."], '{"b":1,"a":2}')).out).toBe('{"a":2,"b":1}\n');
    expect((await run(["-n", "--seq", "-c", '[1],"a"'])).out).toBe('\u001e[1]\n\u001e"a"\n');
  });
  it("colours with -C in jq 1.7.1's default colours, not with -M", async () => {
    const e = (c: string) => `\u001b[${c}m`;
    const want = `${e("1;39")}{${e("0")}${e("1;34")}"a"${e("0")}${e("1;39")}:${e("0")}${e("1;39")}[${e("0;39")}1${e("0")}${e("1;39")},${e("0;90")}null${e("0")}${e("1;39")}${e("1;39")}]${e("0")}${e("1;39")}${e("1;39")}}${e("0")}\n`;
    expect((await run(["-C", "-c", "."], '{"a":[1,null]}')).out).toBe(want);
    expect((await run(["-C", "-M", "-c", "."], "[1]")).out).toBe("[1]\n");
  });
  it("prints compile errors as jq does", async () => {
    expect(await run(["-n", "foo"])).toEqual({
      code: 3,
      out: "",
      err: "jq: error: foo/0 is not defined at <top-level>, line 1:\nfoo\njq: 1 compile error\n",
    });
    expect((await run(["-n", 'import "nosuch" as x; 1'])).err).toBe(
      "jq: error: module not found: nosuch\n\njq: 1 compile error\n",
    );
  });
});

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
    const r = await jq(["-nc", "--arg", "a", "x", "--argjson", "b", '{"c":1}', "[$a, $b, $ARGS.named.a]"]);
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
    expect((await jq(["-c", "., .[0] + 0"], "[1.000, 100000000000000000001]")).out).toBe(
      "[1.000,100000000000000000001]\n1\n",
    );
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
    expect(evalJqLine({ program: ".[] * 2", input: [1, 1.5] })).toEqual({
      outputs: [2, 3],
      printed: ["2", "3"],
    });
    expect(evalJqLine({ program: "$x + 1", input: null, args: { x: 1e15 } })).toEqual({
      outputs: [1000000000000001],
      printed: ["1000000000000001"],
    });
    expect(evalJqLine({ program: "1e15 * 10, 1 / 100000, 0.1 + 0.2", input: null })).toEqual({
      outputs: [1e16, 1e-5, 0.30000000000000004],
      printed: ["1e+16", "1e-05", "0.30000000000000004"],
    });
    expect(evalJqLine({ program: "1e1000 + 0", input: null })).toEqual({
      outputs: [Infinity],
      printed: ["1.7976931348623157e+308"],
    });
    expect(evalJqLine({ program: "1.000, 1e1000", input: null })).toEqual({
      outputs: [1, Infinity],
      printed: ["1.000", "1E+1000"],
    });
  });
  it("keeps outputs produced before an error", () => {
    expect(evalJqLine({ program: ".[] | {a:1} + .", input: [{ b: 2 }, 1] })).toEqual({
      outputs: [{ a: 1, b: 2 }],
      printed: ['{"a":1,"b":2}'],
      error: 'object ({"a":1}) and number (1) cannot be added',
    });
  });
  it("reports compile errors and malformed lines", () => {
    expect(evalJqLine({ program: "nosuchfn", input: null })).toEqual({
      compile_error: expect.stringContaining("nosuchfn/0 is not defined"),
    });
    expect(evalJqLine({ input: 1 })).toHaveProperty("compile_error");
  });
});

describe("arbiter eval jq and arbiter jq agree", () => {
  it("on all/any (number literals kept in both run modes)", async () => {
    const programs = [
      'any(1.0, error("x"); . == 1)',
      'all(0, error("x"); . == 1)',
      "[1.0, 100000000000000000001] | any(. == 1), all(. > 0)",
      "any(range(1e9); . == 1)",
    ];
    for (const program of programs) {
      const line = evalJqLine({ program, input: null }) as { printed: string[] };
      const cli = await jq(["-n", "-c", program]);
      expect(cli.out, program).toBe(line.printed.map((p) => p + "\n").join(""));
    }
  });
});
