import { describe, expect, it } from "vitest";
import type { Json } from "../engines/common/json.js";
import type { Node } from "./ast.js";
import { Compiler } from "./compile.js";
import { envFree, inlineSite } from "./compile-inline.js";
import { compileJq } from "./program.js";
import { parseProgram } from "./parser.js";
import { Scope } from "./scope.js";

function run(program: string, input: Json = null): Json[] | string {
  const c = compileJq(program);
  if (!c.ok) return c.error[0].message;
  const r = c.value.run(input);
  return r.error === undefined ? r.outputs : `error: ${r.error}`;
}

/** The first call in the body of a one-definition program, and whether it would be inlined. */
function decision(program: string): boolean {
  const ast = parseProgram(program);
  const c = new Compiler(true);
  let sc = new Scope("root", "", null, 0).push("var", "outer");
  for (const d of ast.defs) sc = c.define(d, sc);
  let body = ast.body as Node;
  while (body.k === "funcdef") {
    sc = c.define(body.def, sc);
    body = body.rest;
  }
  const call = body as Extract<Node, { k: "call" }>;
  const found = sc.lookupCallable(call.name, call.args.length);
  if (found === null || !("fi" in found)) throw new Error("no function");
  return inlineSite(c, { spent: 0, stack: [] }, found.fi, call, sc) !== null;
}

describe("inlining jq-defined functions at compile time", () => {
  it("inlines small calls whose filter arguments read no environment, and no others", () => {
    expect(decision("def f(x): x + 1; f(.a.b)")).toBe(true);
    expect(decision('def f($v): . + $v; f("k")')).toBe(true);
    // a variable argument is read once at the call; other arguments that read variables are not inlined
    expect(decision("def f(x): x + 1; f($outer)")).toBe(true);
    expect(decision("def f(x): x + 1; f($outer + 1)")).toBe(false);
    // a `$` parameter's argument may read the environment when the body never calls it as a filter
    expect(decision("def f($v): . + $v; f($outer)")).toBe(true);
    expect(decision("def f($v): v; f($outer + 1)")).toBe(false);
    const big = Array.from({ length: 60 }, (_, i) => `.k${i}`).join(" + ");
    expect(decision(`def f: ${big}; f`)).toBe(false);
  });

  it("tells environment-free arguments from others", () => {
    const sc = new Scope("root", "", null, 0).push("var", "x");
    const free = (src: string) => envFree(parseProgram(src).body as never, sc);
    expect(free('.a.b, "s", (.c | length), [.[] | tostring]')).toBe(true);
    expect(free("$x")).toBe(false);
    expect(free(". as $y | $y")).toBe(false);
    expect(free("$ENV")).toBe(true);
  });

  it("keeps jq 1.7.1's results: outputs, order, errors, paths, recursion and shadowing", () => {
    expect(run("def f(x): x + 1; [f(.[])]", [1, 2])).toEqual([[2, 3]]);
    expect(run("def f($a; $b): [$a, $b]; [f(1,2; 3,4)]")).toEqual([
      [
        [1, 3],
        [1, 4],
        [2, 3],
        [2, 4],
      ],
    ]);
    expect(run("def f($a): $a + 1; [f(.[])]", [5, 6])).toEqual([[6, 7]]);
    expect(run('def f(x): x | error; try f("boom") catch .')).toEqual(["boom"]);
    expect(run("def f: .a; [path(f)], del(f)", { a: 1, b: 2 })).toEqual([[["a"]], { b: 2 }]);
    expect(run("def f(p): p |= . + 1; f(.a)", { a: 1 })).toEqual([{ a: 2 }]);
    expect(run("def f(x): def x: 3; x; f(1)")).toEqual([3]);
    expect(run("def g: 10; def f(x): x + g; def g: 20; f(1)")).toEqual([11]);
    expect(run("def fac: if . <= 1 then 1 else . * (. - 1 | fac) end; [.[] | fac]", [1, 5])).toEqual([
      [1, 120],
    ]);
    expect(run("def f(x): label $out | x | ., break $out; [f(1, 2)]")).toEqual([[1]]);
    expect(run("def f(x): [x, x]; f(empty)")).toEqual([[]]);
    expect(run('def f($v): $v; 1 as $v | f("k"), $v')).toEqual(["k", 1]);
    expect(run("def f(x): [x, path(x)?]; 3 as $v | f($v)")).toEqual([[3]]);
    expect(run("def f(x): x as $y | [$y, x]; 3 as $v | [f($v)]")).toEqual([[[3, 3]]]);
    expect(run("def g(w): w + 1; def f(x): g(x); 3 as $v | f($v)")).toEqual([4]);
    expect(run("def f(x): . as $v | [x, $v]; 1 as $v | 2 | f($v)")).toEqual([[1, 2]]);
    expect(run("map_values(if . == null then 0 else tonumber end)", { a: null, b: "2" })).toEqual([
      { a: 0, b: 2 },
    ]);
    expect(run("map_values(. + 1)", [1, 2])).toEqual([[2, 3]]);
    expect(run("map_values(tonumber)", { a: "x" })).toMatch(/^error: .*'x'/);
  });

  it("compiles the body of a function without filter parameters once per definition, not per call site", () => {
    const body = Array.from({ length: 10 }, (_, i) => `.k${i}`).join(" + ");
    const calls = Array.from({ length: 100 }, (_, i) => `f(${i})`).join(", ");
    const ast = parseProgram(`def f($v): ${body} + $v; [${calls}]`);
    const c = new Compiler(true);
    const def = ast.body as Extract<Node, { k: "funcdef" }>;
    const sc = c.define(def.def, new Scope("root", "", null, 0));
    c.gen(def.rest, sc);
    const fi = (sc.lookupCallable("f", 1) as { fi: { size?: number; valueBody?: unknown } }).fi;
    expect(typeof fi.valueBody).toBe("function");
    // one body's nodes charged to the inlining budget, not one per call site
    expect(c.inlining.spent).toBe(fi.size);
  });

  it("keeps jq 1.7.1's results for inlined functions without filter parameters", () => {
    expect(run("def f($a; $b): [$b, $a]; f(1; 2)")).toEqual([[2, 1]]);
    expect(run("def f($v): [$v, v]; f(3)")).toEqual([[3, 3]]);
    expect(run(". as $x | def f($v): $v + $x; [f(1), f(2)]", 10)).toEqual([[11, 12]]);
    expect(run("def outer: 5 as $y | def f($v): $v + $y; [f(1), f(.)]; outer", 2)).toEqual([[6, 7]]);
    expect(run("def f($n): if $n <= 0 then 0 else f($n - 1) + 1 end; f(5)")).toEqual([5]);
    expect(run('def f($v): $v | error; try f("boom") catch .')).toEqual(["boom"]);
    expect(run("def f($v): .a + $v; f(.b)", { a: 1, b: "x" })).toMatch(
      /^error: number \(1\) and string \("x"\) cannot be added/,
    );
    // prelude functions keep their compiled bodies across programs
    expect(run("[nth(1), nth(0)]", [7, 8])).toEqual([[8, 7]]);
    expect(run("[.[] | [nth(2), first, last]]", [[1, 2, 3], [4]])).toEqual([
      [
        [3, 1, 3],
        [null, 4, 4],
      ],
    ]);
  });

  it("charges a budget step per inlined call, as per ordinary call", () => {
    const c = compileJq("def f: . + 1; [range(1000) | f | f]");
    if (!c.ok) throw new Error("compile");
    expect(c.value.run(null, { maxSteps: 2_000 }).error).toMatch(/budget|steps/i);
  });
});
