/**
 * `modulemeta` over the modules a program is compiled with. The wants are jq 1.7.1's outputs for
 * the same module files on its search path (`jq -L dir`), as src/linker.c load_module_meta builds them.
 */
import { describe, expect, it } from "vitest";
import { compileJq, printCompact } from "../../src/jq/index.js";

const modules = {
  m: 'module {"name": "m", "v": [1,2]};\nimport "other" as o {"search": "./x"};\ninclude "inc";\nimport "data" as $d;\ndef f: 1;\ndef g($a; b): 2;\ndef f: 3;\ndef _h: 4;\n',
  plain: "def x: 1;\n",
  bad: "def x: ;\n",
};

function run(program: string): string[] {
  const c = compileJq(program, { modules });
  if (!c.ok) throw new Error(c.error[0].message);
  const r = c.value.run(null);
  return [...r.outputs.map(printCompact), ...(r.error === undefined ? [] : [`error: ${r.error}`])];
}

describe("modulemeta", () => {
  it("gives the module's metadata, then deps with each import's metadata, then unique defs", () => {
    expect(run('"m" | modulemeta')).toEqual([
      '{"name":"m","v":[1,2],"deps":[{"search":"./x","as":"o","is_data":false,"relpath":"other"},{"is_data":false,"relpath":"inc"},{"as":"d","is_data":true,"relpath":"data"}],"defs":["f/0","g/2","_h/0"]}',
    ]);
    expect(run('"plain" | modulemeta')).toEqual(['{"deps":[],"defs":["x/0"]}']);
  });
  it("is null for a module that does not parse, an error for one that does not exist", () => {
    expect(run('"bad" | modulemeta')).toEqual(["null"]);
    expect(run('"nosuch" | modulemeta')).toEqual(["error: module not found: nosuch"]);
  });
  it("still knows the built-in modules", () => {
    expect(run('"pscheduler/si" | modulemeta | .defs')).toEqual([
      '["multiplier/1","invalid/1","as_integer/1"]',
    ]);
  });
});
