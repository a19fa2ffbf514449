// pool.conf macro expansion in slices (issue 24, "/healthz answers within 100 ms"): the
// expansion finds each `$(`'s close paren from one pass over the text, so macro defaults
// nested in defaults no longer rescan the rest of a megabyte line at every level (32
// passes, each read in one piece); the answers must stay those of a rescan per level,
// in one go and in slices alike.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { COMPILE_ROWS } from "../../../test/hostile/compile-rows.js";
import { finish, finishInSlices, Pace, SLICE_UNITS } from "../common/slices.js";
import { compileMatchPolicy, compileMatchPolicySteps } from "./policy.js";
import {
  expand,
  expandSteps,
  MacroError,
  MAX_MACRO_CHARS,
  MAX_MACRO_DEPTH,
  readConfig,
  type ConfigTable,
} from "./pool-config.js";

/**
 * The model: expansion as HTCondor's reader describes it, each default cut out
 * as a string of its own and rescanned for its close parens.
 */
function model(
  value: string,
  table: ConfigTable,
  active: string[],
  done: Map<string, string>,
  defaults: number,
): string | MacroError {
  let out = "";
  let i = 0;
  while (i < value.length) {
    const d = value.indexOf("$", i);
    if (d < 0) return out + value.slice(i);
    out += value.slice(i, d);
    const rest = value.slice(d);
    if (rest.startsWith("$$("))
      return new MacroError("match_macro_unsupported", "policy: `$$(...)` macros are not supported");
    const other = /^\$([A-Za-z_][A-Za-z0-9_]*)\(/.exec(rest);
    if (other !== null)
      return new MacroError(
        "match_macro_unsupported",
        `policy: \`$${other[1]}(...)\` macros are not supported`,
      );
    if (!rest.startsWith("$(")) {
      out += "$";
      i = d + 1;
      continue;
    }
    let depth = 0;
    let j = d + 1;
    while (j < value.length && !(value[j] === ")" && depth === 1)) {
      if (value[j] === "(") depth++;
      else if (value[j] === ")") depth--;
      j++;
    }
    if (j >= value.length) return new MacroError("match_config_syntax", "policy: unterminated `$(`");
    const inner = value.slice(d + 2, j);
    const colon = inner.indexOf(":");
    const name = (colon >= 0 ? inner.slice(0, colon) : inner).trim();
    const key = name.toUpperCase();
    if (active.includes(key)) return new MacroError("match_macro_cycle", `policy: macro cycle at $(${name})`);
    if (active.length + defaults >= MAX_MACRO_DEPTH)
      return new MacroError(
        "match_macro_too_deep",
        `policy: $(${name}) is nested more than ${MAX_MACRO_DEPTH} macros deep`,
      );
    const entry = table.get(key);
    let sub = "";
    if (entry !== undefined) {
      const e = done.get(key) ?? model(entry.value, table, [...active, key], done, defaults);
      if (e instanceof MacroError) return e;
      done.set(key, e);
      sub = e;
    }
    if (colon >= 0 && sub === "") {
      const e = model(inner.slice(colon + 1), table, active, done, defaults + 1);
      if (e instanceof MacroError) return e;
      sub = e;
    }
    if (out.length + sub.length > MAX_MACRO_CHARS) {
      const where = active.length > 0 ? `$(${active[active.length - 1]})` : "the value";
      return new MacroError(
        "match_macro_too_large",
        `policy: expanding ${where} gives more than ${MAX_MACRO_CHARS} characters (at $(${name}))`,
      );
    }
    out += sub;
    i = j + 1;
  }
  return out;
}

/** A pace that also adds up the units charged and keeps the largest single charge. */
class CountingPace extends Pace {
  total = 0;
  largest = 0;

  override spend(units = 1): boolean {
    this.total += units;
    this.largest = Math.max(this.largest, units);
    return super.spend(units);
  }
}

/** Pieces of macro text: parens and colons in every place, names set and unset, unsupported forms. */
const piece = fc.constantFrom(
  "$(",
  "$(A",
  "$(B",
  "$(u",
  "$(C:",
  ":",
  "(",
  ")",
  "))",
  "x",
  " ",
  "$",
  "$$(",
  "$E(",
  "$(A:$(B:",
);
const text = fc.array(piece, { maxLength: 24 }).map((p) => p.join(""));

describe("pool.conf macro expansion", () => {
  it("expands as a rescan of each default would, in one go and in slices of 3 units", async () => {
    await fc.assert(
      fc.asyncProperty(text, text, text, async (value, a, b) => {
        const { table } = readConfig(`A = ${a}\nB = ${b}\nC = c\n`);
        const want = model(value, table, [], new Map(), 0);
        expect(expand(value, table)).toStrictEqual(want);
        const sliced = await finishInSlices(
          expandSteps(value, table, [], new Map(), 0, new Pace(3)),
          async () => {},
        );
        expect(sliced).toStrictEqual(want);
      }),
      { numRuns: 2_000 },
    );
  });

  it("reads macro defaults nested to the end of a 200 KB line once, charging it in small pieces, with the one-go answer", async () => {
    const row = COMPILE_ROWS.find((r) => r.name.startsWith("pool.conf: `$(U:$(U:…))`"))!;
    const source = row.source(200_000);
    const entry = readConfig(source).table.get("NEGOTIATOR_PE_JOB_EXPR")!;
    const pace = new CountingPace();
    const expanded = finish(expandSteps(entry.value, readConfig(source).table, [], new Map(), 0, pace));
    expect(expanded).toStrictEqual(model(entry.value, readConfig(source).table, [], new Map(), 0));
    expect((expanded as MacroError).code).toBe("match_macro_too_deep");
    // the line is read, and its parens matched, once: about twice its length in units, never
    // more than a slice at once; a rescan per level read it 32 times, each rescan in one charge
    expect(pace.total).toBeLessThan(3 * entry.value.length);
    expect(pace.largest).toBeLessThanOrEqual(SLICE_UNITS);
    let pauses = 0;
    const sliced = await finishInSlices(compileMatchPolicySteps(source), async () => {
      pauses++;
    });
    expect(sliced).toStrictEqual(compileMatchPolicy(source));
    expect(pauses).toBeGreaterThan(source.length / SLICE_UNITS);
  });

  it("finds the same answer for 30-deep defaults repeated along a line, in one go and in slices", async () => {
    const row = COMPILE_ROWS.find((r) => r.name.startsWith("pool.conf: 30-deep macro defaults"))!;
    const source = row.source(100_000);
    let pauses = 0;
    const sliced = await finishInSlices(compileMatchPolicySteps(source), async () => {
      pauses++;
    });
    expect(sliced).toStrictEqual(finish(compileMatchPolicySteps(source)));
    expect(sliced.ok ? null : sliced.error[0].code).toBe("match_expr_syntax");
    expect(pauses).toBeGreaterThan(1);
  });
});
