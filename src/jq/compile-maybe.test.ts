/**
 * The at-most-one-value tier (compile-maybe.ts) against the general evaluator it replaces: the same
 * outputs (key order included), the same errors and exactly the same budget (the smallest
 * `maxSteps` a run completes under), with the tier on and off; and which forms it builds.
 */
import { describe, expect, it } from "vitest";
import type { Json } from "../engines/common/json.js";
import type { Node } from "./ast.js";
import { Compiler, NATIVES } from "./compile.js";
import { MAYBE_TIER, maybeOf } from "./compile-maybe.js";
import { BUILTIN_MODULES } from "./modules.js";
import { parseProgram } from "./parser.js";
import { compileJq } from "./program.js";
import { Scope } from "./scope.js";
import { BUDGET_MESSAGE } from "./values.js";

/** Outputs (through `tojson`), the error, and the smallest step budget the run completes under. */
function observe(
  src: string,
  input: Json,
  tier: boolean,
): { outputs: Json[]; error?: string; steps: number } {
  MAYBE_TIER.on = tier;
  try {
    // imports stay in front of the program
    const m = /^(import [^;]*;\s*)(.*)$/s.exec(src);
    const c = compileJq(m === null ? `(${src}) | tojson` : `${m[1]}(${m[2]}) | tojson`, {
      modules: BUILTIN_MODULES,
    });
    if (!c.ok) throw new Error(`${src}: ${c.error[0].message}`);
    const p = c.value;
    const full = p.run(input, { maxSteps: 1_000_000 });
    let lo = 0;
    let hi = 1_000_000;
    while (lo + 1 < hi) {
      const mid = (lo + hi) >> 1;
      if (p.run(input, { maxSteps: mid }).error === BUDGET_MESSAGE) lo = mid;
      else hi = mid;
    }
    return { outputs: full.outputs, ...(full.error === undefined ? {} : { error: full.error }), steps: hi };
  } finally {
    MAYBE_TIER.on = true;
  }
}

const DURATION = '"^(?:P(?:(?<weeks>[0-9]+)W)?(?:(?<days>[0-9]+)D)?(?:T(?<s>[0-9.]+)S)?|(?<invalid>.*))$"';

const FORMS = [
  "empty",
  "error",
  'error("x: \\(.)")',
  "select(. == 1)",
  "select(.a?)",
  ".a?",
  '.["a"]?.b?',
  "try error(.) catch [.]",
  "try .a",
  "-(.a?)",
  "(.a?) + 1",
  "1 + (.a?)",
  "(.a?) and (.b?)",
  "(.a?) or true",
  "(.a?) // 7",
  "select(false) // .",
  "(.a? | length)",
  "if .a? then 1 else empty end",
  'if (select(. != null) | type) == "object" then .a else 0 end',
  ".a? as $x | [$x, $x]",
  "{x: .a?, y: 1}",
  '"<\\(.a?)|\\(select(. != 2))>"',
  "[.a?]",
  "[select(. == 1)]",
  ".a.b = (.c?)",
  ".a += (.c?)",
  ".a //= (select(. != 1) | 2)",
  "def f(g): g | select(. != null); f(.a?)",
  'def f($v): $v | select(type == "number"); f(.a?)',
  "def inner(v): v | tostring; def outer(v): inner(v); . as $x | outer($x)",
  // a fresh capture object changed in place (del, map_values), and the same with the object shared
  `ascii_upcase? | capture(${DURATION}) | if .invalid != null then error("bad") else . end | del(.invalid) | map_values(if . == null then 0 else tonumber end)`,
  `capture(${DURATION}) as $c | $c | del(.invalid) | map_values(. // "-") | [., $c]`,
  `capture(${DURATION}) | del(.weeks) | del(.s) | map_values(length)`,
  `capture(${DURATION}; "x") | if .days then del(.days) else map_values(type) end`,
  `capture(${DURATION}) | if debug then del(.invalid) else . end`,
  // a capture object is a copy of its pattern's template: changing one in place leaves the next whole
  `(capture(${DURATION}) | del(.days) | map_values(1)) as $a | capture(${DURATION}) | del(.nothing) | [$a, .]`,
  // names repeated, a `__proto__` group: no template, the store loop (last group of a name wins)
  'capture("^(?<a>P)?(?<b>[0-9]*)(?<a>[A-Z])?") | del(.b) | map_values(. // "-")',
  'capture("(?<__proto__>[0-9]+)|(?<x>.)") | del(.x) | map_values(type)',
  'import "pscheduler/iso8601" as iso; iso::duration_as_seconds(.)',
  'import "pscheduler/iso8601" as iso; . as $d | iso::duration_as_seconds($d)',
  'import "pscheduler/iso8601" as iso; iso::timestamp_parsed(.)',
  'import "pscheduler/si" as si; si::as_integer(.)',
];

const INPUTS: Json[] = [
  null,
  1,
  2,
  "PT5S",
  "p1w2dt3.5s",
  "P2D",
  "x",
  [1, 2],
  { a: 1, b: { c: 2 } },
  { a: null, c: 3 },
  "2026-11-28T05:00:00Z",
  "",
];

describe("the at-most-one tier agrees with the general evaluator", () => {
  for (const src of FORMS)
    it(src, () => {
      for (const input of INPUTS)
        expect([src, input, observe(src, input, true)]).toEqual([src, input, observe(src, input, false)]);
    });
});

/** Whether the tier builds a direct evaluator for the body of `program` (parsed as `ast` when given). */
function built(program: string, ast = parseProgram(program)): boolean {
  const c = new Compiler(true);
  let sc = new Scope("root", "", null, 0);
  for (const d of ast.defs) sc = c.define(d, sc);
  let body = ast.body as Node;
  while (body.k === "funcdef") {
    sc = c.define(body.def, sc);
    body = body.rest;
  }
  return maybeOf(c, body, sc, NATIVES) !== null;
}

describe("which forms the tier builds", () => {
  it("builds forms of at most one value, and no others", () => {
    // the forms above that need no prelude function (this scope has none)
    const own = [
      ...FORMS.slice(0, 30),
      `ascii_upcase? | capture(${DURATION}) | if .invalid != null then error("bad") else . end`,
    ];
    for (const src of own) expect([src, built(src)]).toEqual([src, true]);
    for (const src of [
      ".[]",
      "1, 2",
      "range(3)",
      "if . then .[] else 1 end",
      "[.[]] | .[]",
      'capture("a"; "g")',
      "label $f | 1",
    ])
      expect([src, built(src)]).toEqual([src, false]);
  });

  it("keeps both tiers' results for a node under one property", () => {
    // a property added to a parsed node costs every compilation a hidden-class change and a property-store growth
    const src = 'select(.a) | (.b | tostring) as $x | if .c then error("e") else {x: $x} end';
    const ast = parseProgram(src);
    const nodes: Array<{ n: object; keys: string[] }> = [];
    const walk = (o: unknown): void => {
      if (o === null || typeof o !== "object") return;
      if (Array.isArray(o)) return o.forEach(walk);
      const r = o as Record<string, unknown>;
      if (typeof r.k === "string" && r.k !== "pvar") nodes.push({ n: r, keys: Object.keys(r) });
      if (r.k !== "literal") for (const v of Object.values(r)) walk(v);
    };
    walk(ast.body);
    expect(built(src, ast)).toBe(true);
    const added = nodes.map(({ n, keys }) => Object.keys(n).filter((k) => !keys.includes(k)));
    expect(added.filter((a) => a.length > 0).length).toBeGreaterThan(5);
    for (const a of added) expect(a.length).toBeLessThanOrEqual(1);
  });
});
