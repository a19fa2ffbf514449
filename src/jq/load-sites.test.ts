import { describe, expect, it } from "vitest";
import type { Json } from "../engines/common/json.js";
import { compileJq, printCompact } from "./index.js";
import { LOAD_SITES, siteOf } from "./key-order.js";

describe("literal keys' load sites", () => {
  it("gives each of the first keys a site of its own and every later key the shared one, a bounded table", () => {
    const keys = Array.from({ length: 3 * LOAD_SITES }, (_, i) => `load-sites-test-${i}`);
    const sites = keys.map(siteOf);
    expect(sites.every((s) => s >= 0 && s < LOAD_SITES)).toBe(true);
    // the same key keeps its site
    expect(keys.map(siteOf)).toEqual(sites);
    // past the table every key shares the last site, and no two keys share any other
    expect(sites.slice(-LOAD_SITES).every((s) => s === LOAD_SITES - 1)).toBe(true);
    const own = sites.filter((s) => s !== LOAD_SITES - 1);
    expect(new Set(own).size).toBe(own.length);
  });
});

describe("a literal path's copies through the spread sites", () => {
  it("keep values, key order and the input, whichever kind the store keeps or changes", () => {
    const input = JSON.parse(
      '{"__proto__": {"p": 1}, "s": "a", "t": {"u": {"v": "x", "b": false, "n": null}, "w": 1}, "z": [0]}',
    ) as Json;
    const before = JSON.stringify(input);
    const cases: [string, string][] = [
      // string over string, then the outer copies of the clones just made
      ['.t.u.v = "y"', '{"__proto__":{"p":1},"s":"a","t":{"u":{"v":"y","b":false,"n":null},"w":1},"z":[0]}'],
      // boolean over boolean, null over null, then another kind over each
      [
        ".t.u.b = true | .t.u.n = null | .t.u.v = 5 | .t.w = {}",
        '{"__proto__":{"p":1},"s":"a","t":{"u":{"v":5,"b":true,"n":null},"w":{}},"z":[0]}',
      ],
      // a new key, an object over a string, and the input kept in a variable
      ['. as $o | .t.u.new = 1 | .s = {"k": 1} | [$o.s, .s, .t.u.new]', '["a",{"k":1},1]'],
      ['.__proto__.p = 2 | .["__proto__"]', '{"p":2}'],
    ];
    for (let round = 0; round < 3; round++)
      for (const [program, want] of cases) {
        const c = compileJq(program);
        if (!c.ok) throw new Error(c.error[0].message);
        const out = c.value.first(input);
        expect(printCompact(out as Json)).toBe(want);
        if (isObj(out)) expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
        expect(JSON.stringify(input)).toBe(before);
      }
  });
});

function isObj(v: unknown): v is object {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
