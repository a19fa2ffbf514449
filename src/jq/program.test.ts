import { describe, expect, it } from "vitest";
import { BUDGET_MESSAGE, compileJq, firstOutputDepth, formatJson, printCompact } from "./index.js";
import type { Json } from "../engines/common/json.js";

function run(
  src: string,
  input: Json = null,
  opts: Parameters<import("./index.js").JqProgram["run"]>[1] = {},
) {
  const c = compileJq(src);
  if (!c.ok) throw new Error(c.error[0].message);
  return c.value.run(input, opts);
}

describe("compileJq / run API", () => {
  it("reports syntax errors with line:column and a jq_ code", () => {
    const c = compileJq(".a |\n  ]");
    expect(c.ok).toBe(false);
    if (!c.ok) expect(c.error[0]).toMatchObject({ code: "jq_syntax_error", at: "2:3" });
    const u = compileJq("nosuch(1)");
    if (!u.ok)
      expect(u.error[0]).toMatchObject({ code: "jq_compile_error", message: "nosuch/1 is not defined" });
  });
  it("tells how deep `first`'s output nests, measured by its output charge", () => {
    const depth = (src: string, input: Json = null): number => {
      const c = compileJq(src);
      if (!c.ok) throw new Error(c.error[0].message);
      c.value.first(input);
      return firstOutputDepth();
    };
    expect(depth("1")).toBe(0);
    expect(depth("{}")).toBe(1);
    expect(depth('{a: [1, {b: [[]]}], c: "x"}')).toBe(5);
    expect(depth(".", { a: [{}] })).toBe(3);
    expect(depth("reduce range(256) as $i (0; [.])")).toBe(256);
    expect(depth("reduce range(300) as $i (0; [.])")).toBeGreaterThan(256);
    // no output; an output made plain by the literal walk (not measured)
    expect(depth("empty")).toBe(-1);
    expect(depth("[100000000000000000001]")).toBe(-1);
  });
  it("binds compile-time args and replaces them per run with vars", () => {
    const c = compileJq("$limit * 2", { args: { limit: 3 } });
    expect(c.ok).toBe(true);
    if (!c.ok) return;
    expect(c.value.run(null).outputs).toEqual([6]);
    expect(c.value.run(null, { vars: { limit: 10 } }).outputs).toEqual([20]);
    expect(c.value.first(null)).toBe(6);
  });
  it("keeps outputs produced before an error and uses jq's messages", () => {
    expect(run(".[] | {a:1} + .", [{}, 1])).toEqual({
      outputs: [{ a: 1 }],
      error: 'object ({"a":1}) and number (1) cannot be added',
    });
    expect(run("error({a:1})").error).toBe('{"a":1} (not a string)');
  });
  it("first stops early and returns undefined without outputs", () => {
    expect(
      compileJq("range(1e12)").ok &&
        (compileJq("range(1e12)") as { value: import("./index.js").JqProgram }).value.first(null),
    ).toBe(0);
    const e = compileJq("empty");
    if (e.ok) expect(e.value.first(1)).toBeUndefined();
  });
  it("compares with null, boolean and string literals as equals does, and takes literal-key paths as before", () => {
    const input: Json = [null, "a", "b", 0, 1, true, false, { a: 1 }, ["a"]];
    expect(run('[.[] | [. == null, . != "a", "a" == ., . == true, false != .]]', input).outputs).toEqual([
      [
        [true, true, false, false, true],
        [false, false, true, false, true],
        [false, true, false, false, true],
        [false, true, false, false, true],
        [false, true, false, false, true],
        [false, true, false, true, true],
        [false, true, false, false, false],
        [false, true, false, false, true],
        [false, true, false, false, true],
      ],
    ]);
    // literal numbers keep their text: still never equal to a string or null
    expect(run('[1.000, 100000000000000000001] | map(. == "1", . == null, . != false)').outputs).toEqual([
      [false, false, true, false, false, true],
    ]);
    expect(run("[path(.a), path(.a.b), path(.[0]), path(.[1].c)]", null).outputs).toEqual([
      [["a"], ["a", "b"], [0], [1, "c"]],
    ]);
    expect(run("del(.a), del(.b)", { a: 1, b: 2, c: 3 }).outputs).toEqual([
      { b: 2, c: 3 },
      { a: 1, c: 3 },
    ]);
    expect(run("try path(.a) catch .", 5).outputs).toEqual(['Cannot index number with string "a"']);
    expect(run("try path(1 | .a) catch .", {}).outputs).toEqual([
      'Invalid path expression near attempt to access element "a" of 1',
    ]);
    expect(
      run(
        '[capture("(?<x>[a-z])(?<y>[0-9])?")], [capture("(?<x>[a-z])"; "g")], [capture(["(?<x>A)", "i"])]',
        "a1b",
      ).outputs,
    ).toEqual([[{ x: "a", y: "1" }], [{ x: "a" }, { x: "b" }], [{ x: "a" }]]);
  });
  it("ends runaway programs with the budget error", () => {
    for (const p of ["def f: f; f", "repeat(.)", "range(1e12)", "def f: [f]; f", "[limit(1e9; repeat(1))]"])
      expect(run(p, 0, { maxSteps: 100_000 }).error).toBe(BUDGET_MESSAGE);
    expect(run("try (def f: f; f) catch 1", 0, { maxSteps: 1000 }).error).toBe(BUDGET_MESSAGE);
  });
  it("passes env only when the embedder gives it", () => {
    expect(run("$ENV, env").outputs).toEqual([{}, {}]);
    expect(run("$ENV.X", null, { env: { X: "y" } }).outputs).toEqual(["y"]);
  });
  it("refuses oversized inputs and answers nested quantifiers (the matcher is linear)", () => {
    expect(run('test("a")', "a".repeat(200_000)).error).toMatch(/^Regex failure/);
    expect(run('test("(a+)+b")', "a".repeat(10_000)).outputs).toEqual([false]);
    expect(run('test("(a+)+b")', "aab").outputs).toEqual([true]);
  });
  it("refuses constructs that need backtracking, naming them and their offset", () => {
    expect(run('test("(a)\\\\1")', "aa").error).toBe(
      "back-reference \\1 in (a)\\1 (at offset 3) is not supported",
    );
    expect(run('test("(?>a)")', "a").error).toBe("atomic group (?> in (?>a) (at offset 0) is not supported");
    expect(run('test("(")', "a").error).toBe(
      "( (at offset 0) is not a valid regex: end pattern with unmatched parenthesis",
    );
  });
});

describe("regex cache and match paths", () => {
  it("keeps patterns compiled per flags apart when calls alternate", () => {
    expect(run('[test("a"), test("a"; "i"), test("a"), test("a"; "ix")]', "A").outputs).toEqual([
      [false, true, false, true],
    ]);
    expect(run('[capture("(?<x>a)"), capture("(?<x>a)"; "gi")]', "aA").outputs).toEqual([
      [{ x: "a" }, { x: "a" }, { x: "A" }],
    ]);
  });
  it("keeps a group named __proto__ as a key, as jq 1.7.1 does", () => {
    expect(run('capture("(?<x>a)(?<__proto__>b)") | [keys, .__proto__, tojson]', "ab").outputs).toEqual([
      [["__proto__", "x"], "b", '{"x":"a","__proto__":"b"}'],
    ]);
    expect(run('[capture("(?<__proto__>.)"; "g") | .__proto__]', "ab").outputs).toEqual([["a", "b"]]);
    expect(run('sub("(?<__proto__>a)"; "<\\(.__proto__)>")', "xa").outputs).toEqual(["x<a>"]);
  });
  it("gives code-point offsets with and without groups", () => {
    expect(run('[match("b"; "g") | [.offset, .length]]', "\u{1F600}b\u{1F600}b").outputs).toEqual([
      [
        [1, 1],
        [3, 1],
      ],
    ]);
    expect(run('match("(b)") | .captures[0].offset', "\u{1F600}b").outputs).toEqual([1]);
  });
  it("changes only ASCII letters in ascii_upcase / ascii_downcase", () => {
    expect(run("ascii_upcase", "straße µ abc").outputs).toEqual(["STRAßE µ ABC"]);
    expect(run("ascii_downcase", "ÀB İ").outputs).toEqual(["Àb İ"]);
  });
});

describe("pscheduler modules", () => {
  const iso = (arg: string, input: Json = null) =>
    run(`import "pscheduler/iso8601" as iso; iso::duration_as_seconds(${arg})`, input);
  it("iso::duration_as_seconds", () => {
    expect(iso('"PT1M5S"').outputs).toEqual([65]);
    expect(iso('"P1W2D"').outputs).toEqual([604800 + 2 * 86400]);
    expect(iso('"pt1.5s"').outputs).toEqual([1.5]);
    expect(iso('"P"').outputs).toEqual([0]);
    expect(iso('"PT5S\\n"').outputs).toEqual([5]);
    expect(iso('"P\\nT5S"').outputs).toEqual([]);
    expect(iso('"P1W"').error).toBe("Invalid ISO 8601 duration 'P1W'");
    expect(iso("5").error).toBe("Invalid ISO 8601 duration '5'");
    expect(iso(".", "x").error).toBe(
      `Invalid ISO 8601 duration '{"weeks":null,"days":null,"hours":null,"minutes":null,"seconds":null,"invalid":"X"}'`,
    );
  });
  it("iso::timestamp_parsed", () => {
    const r = run('import "pscheduler/iso8601" as iso; iso::timestamp_parsed(.)', "2015-03-05T10:00:00.5Z");
    expect(r.outputs).toEqual([{ year: 2015, month: 3, day: 5, hour: 10, minute: 0, second: 0 }]);
    const z = run('import "pscheduler/iso8601" as iso; iso::timestamp_parsed(.)', "2015-3-5T10:00Z");
    expect(z.outputs).toEqual([
      { year: 2015, month: 3, day: 5, hour: 10, minute: 0, offset_hr: 0, offset_min: 0 },
    ]);
    expect(run('import "pscheduler/iso8601" as iso; iso::timestamp_parsed(.)', "nope").error).toBe(
      "Invalid timestamp 'nope'",
    );
  });
  it("si::as_integer", () => {
    const si = (arg: string, input: Json = null) =>
      run(`import "pscheduler/si" as si; si::as_integer(${arg})`, input);
    expect(si('"10Mi"').outputs).toEqual([10 * 1048576]);
    expect(si('"1.5k"').outputs).toEqual([1500]);
    expect(si("42").outputs).toEqual([42]);
    expect(si('"50Mb"').error).toBe("Invalid SI Number '50Mb'");
    expect(si(".", "50Mb").error).toBe("Invalid SI Number '50mb'");
    expect(si(".b", "50Mb").error).toBe('Cannot index string with string "b"');
    expect(run('include "pscheduler/si"; as_integer("2G")').outputs).toEqual([2e9]);
  });
  it("extra modules passed at compile time can be imported", () => {
    const c = compileJq('import "mine" as m; m::twice', { modules: { mine: "def twice: . * 2;" } });
    expect(c.ok && c.value.run(4).outputs).toEqual([8]);
  });
});

describe("printing", () => {
  it("prints numbers as jq 1.7.1", () => {
    expect(
      [1e1000, -0, 1e16, 1.5e17, 1e-5, 0.0001, 123456789012345680, 5e-324, NaN].map((n) => printCompact(n)),
    ).toEqual([
      "1.7976931348623157e+308",
      "-0",
      "1e+16",
      "1.5e+17",
      "1e-05",
      "0.0001",
      "123456789012345680",
      "5e-324",
      "null",
    ]);
  });
  it("pretty-prints with indent, tab and sorted keys", () => {
    expect(formatJson({ b: [1, {}], a: [] }, { sortKeys: true })).toBe(
      '{\n  "a": [],\n  "b": [\n    1,\n    {}\n  ]\n}',
    );
    expect(formatJson({ a: 1 }, { tab: true })).toBe('{\n\t"a": 1\n}');
  });
});

describe("number literals", () => {
  it("keeps program literals while unchanged, but gives the API plain numbers", () => {
    expect(run("13911860366432393 == 13911860366432392").outputs).toEqual([false]);
    expect(run("[1.000, 100e-2] | tojson").outputs).toEqual(["[1.000,1.00]"]);
    expect(run("1.000, -1.10, 1.5 + 0").outputs).toEqual([1, -1.1, 1.5]);
    expect(run("1.000", null, { keepLiterals: true }).outputs.map(printCompact)).toEqual(["1.000"]);
    expect(run('"[1.000, 2]" | fromjson | tojson, ("1.50" | tonumber | tostring)').outputs).toEqual([
      "[1.000,2]",
      "1.50",
    ]);
    expect(run('"{\\"a\\":1.0}" | fromjson').outputs).toEqual([{ a: 1 }]);
  });
});

describe("path expressions", () => {
  it("treats a reduce state as a path only while it is the input", () => {
    expect(run('path(reduce ("a","b") as $x (.; .[$x]))', { a: { b: 1 } }).error).toBe(
      'Invalid path expression near attempt to access element "b" of {"b":1}',
    );
    expect(run("[path(foreach (0,1) as $i (.; .; .[$i]))]", [5, 6]).outputs).toEqual([[[0], [1]]]);
    expect(run("try path(1) catch .").outputs).toEqual(["Invalid path expression with result 1"]);
    expect(run("[paths]", { a: [1] }).outputs).toEqual([[["a"], ["a", 0]]]);
  });
});

describe("jq 1.7.1 evaluation order and error rules (checked against a jq 1.7 build)", () => {
  it("lets errors on the left of // propagate", () => {
    expect(run(".a // 2", 1).error).toBe('Cannot index number with string "a"');
    expect(run("(.a)? // 2", 1).outputs).toEqual([2]);
    expect(run("[(false, null, 1) // 42]").outputs).toEqual([[1]]);
  });
  it("varies the first argument of C builtins fastest, of jq-defined ones slowest", () => {
    expect(run("[pow(1,2; 3,4)]").outputs).toEqual([[1, 8, 1, 16]]);
    expect(run("[range(0,1; 3,4)]").outputs).toEqual([[0, 1, 2, 0, 1, 2, 3, 1, 2, 1, 2, 3]]);
  });
});

describe("loops", () => {
  it("until and while iterate without using stack per step", () => {
    expect(run("0 | until(. >= 200000; . + 1)").outputs).toEqual([200000]);
    expect(run("[1 | until(. > 3; . + 1, . + 2)]").outputs).toEqual([[4, 5, 4, 4, 5]]);
    expect(run("[1 | while(. < 4; . + 1, . + 2)]").outputs).toEqual([[1, 2, 3, 3]]);
    expect(run("[limit(3; repeat(1))]").outputs).toEqual([[1, 1, 1]]);
  });
});

describe("reduce accumulation", () => {
  it("builds large arrays and objects in linear time without changing the input", () => {
    expect(run("reduce range(30000) as $i ([]; .[$i] = $i) | length").outputs).toEqual([30000]);
    expect(
      run("reduce .[] as $x ({}; .[$x.k] += [$x.v])", [
        { k: "a", v: 1 },
        { k: "b", v: 2 },
        { k: "a", v: 3 },
      ]).outputs,
    ).toEqual([{ a: [1, 3], b: [2] }]);
    const input = { a: { b: 1 } };
    expect(run('. as $o | reduce (1, 2) as $i (.; .a["x\\($i)"] = $i) | [., $o]', input).outputs).toEqual([
      [{ a: { b: 1, x1: 1, x2: 2 } }, { a: { b: 1 } }],
    ]);
    expect(input).toEqual({ a: { b: 1 } });
    expect(run("reduce (0, -1) as $i ([1, 2]; .[$i] = 9)").outputs).toEqual([[9, 9]]);
    expect(run("reduce 1 as $i (5; .[$i] = 9)").error).toBe("Cannot index number with number");
  });
});

describe("dates (UTC)", () => {
  it("follows glibc strptime's wday/yday rules and jq's sentinels", () => {
    expect(run('"2015" | strptime("%Y")').outputs).toEqual([[2015, 0, 0, 0, 0, 0, 3, -1]]);
    expect(run('"3" | strptime("%m")').outputs).toEqual([[1900, 2, 0, 0, 0, 0, 3, 58]]);
    expect(run('"10:15" | strptime("%H:%M")').outputs).toEqual([[1900, 0, 0, 10, 15, 0, 8, 367]]);
    expect(run('"x" | strptime("%Y")').error).toBe('date "x" does not match format "%Y"');
  });
  it("gmtime keeps the fraction and todate/fromdate round-trip", () => {
    expect(run("1425599621.9 | gmtime").outputs).toEqual([[2015, 2, 5, 23, 53, 41.90000009536743, 4, 63]]);
    expect(run("1425599621 | todate | fromdate").outputs).toEqual([1425599621]);
    expect(run("now", null, { now: 12.5 }).outputs).toEqual([12.5]);
    expect(run('0 | strftime("%Z %z %j %a")').outputs).toEqual(["UTC +0000 001 Thu"]);
  });
});

describe("size-proportional work", () => {
  it("charges padding and string repetition to the step budget", () => {
    expect(run(".[5000000] = 1").error).toBe(BUDGET_MESSAGE);
    expect(run('"ab" * 5000000').error).toBe(BUDGET_MESSAGE);
    expect(run(".[3] = 1").outputs).toEqual([[null, null, null, 1]]);
  });
  it("tonumber reads digit strings as jq 1.7.1 does, short ones without keeping a literal", () => {
    expect(run("map(tonumber)", ["007", "0", "2", "123456789012345", " 12 ", "+5", "1.50"]).outputs).toEqual([
      [7, 0, 2, 123456789012345, 12, 5, 1.5],
    ]);
    // past 15 digits the literal is kept as jq 1.7.1 keeps it
    expect(
      run("map(tonumber | tojson)", ["1234567890123456789", "9007199254740993", "1.50"]).outputs,
    ).toEqual([["1234567890123456789", "9007199254740993", "1.50"]]);
    expect(run('"12a" | tonumber').error).toMatch(/Invalid numeric literal/);
  });
});
