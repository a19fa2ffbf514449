import { describe, expect, it } from "vitest";
import type { Json } from "../engines/common/json.js";
import { REWRITER_NATIVES } from "./natives-rewriter.js";
import { compileJq, type RunOptions } from "./program.js";

const RW = "__REWRITER_PRIVATE__";
// the rewriter library's definition (src/engines/limits/scripts.ts), which the native replaces
const LIB = `def change($message): .${RW}.changed = true | if $message != null then .${RW}.diags += [$message | tostring] else . end;`;

/** Outputs (as JSON text, so key order counts) or the error of `body` after the library, natively or in jq. */
function run(body: string, input: Json, native: boolean, options: RunOptions = {}): string {
  const c = compileJq(`${LIB} ${body}`, native ? { natives: REWRITER_NATIVES } : {});
  if (!c.ok) throw new Error(c.error[0].message);
  const r = c.value.run(input, options);
  return JSON.stringify(r.outputs) + (r.error === undefined ? "" : ` error: ${r.error}`);
}

/** Deeply frozen, so a write into the input fails the run. */
function frozen<T>(v: T): T {
  if (v !== null && typeof v === "object") {
    for (const x of Object.values(v)) frozen(x);
    Object.freeze(v);
  }
  return v;
}

const task = (priv: Json): Json => ({
  schema: 1,
  test: { type: "throughput", spec: { duration: "PT2S" } },
  [RW]: priv,
});
const PRIV = { classifiers: ["default"], changed: false, diags: [], hints: { requester: "192.0.2.9" } };

const INPUTS: [string, () => Json][] = [
  ["a task as the rewriter builds it", () => task(PRIV)],
  ["diags already holding messages", () => task({ ...PRIV, changed: true, diags: ["first"] })],
  ["no changed or diags keys", () => task({ classifiers: [] })],
  ["index-like keys in the private object", () => task({ "7": 1, hints: {}, "0": [] })],
  [
    "a __proto__ key in the task",
    () => JSON.parse(`{"__proto__": {"x": 1}, "${RW}": {"diags": []}}`) as Json,
  ],
  ["no private object", () => ({ schema: 1 })],
  ["a null task", () => null],
  ["a null private object", () => task(null)],
  ["a number as the task", () => 5],
  ["a string as the private object", () => task("private")],
  ["an array as the private object", () => task([1, 2])],
  ["diags a string", () => task({ ...PRIV, diags: "text" })],
  ["diags an object", () => task({ ...PRIV, diags: { a: 1 } })],
  ["diags null", () => task({ ...PRIV, diags: null })],
];

const CALLS = [
  'change("Bumped duration to 5-second minimum")',
  "change(null)",
  "change(42)",
  'change({a: [1, "x"]})',
  "change(.)",
  'change(1, null, "two")',
  "change(empty)",
  'change(error("boom"))',
  "[change(.schema), change(null)] | length",
  'change("a") | change("b") | change(null)',
  `change("x") | .${RW}`,
  `. as $t | change("x") | [$t, .]`,
];

describe("the rewriter's change($message) run natively", () => {
  for (const [name, input] of INPUTS)
    it(`gives the jq body's outputs and errors: ${name}`, () => {
      for (const call of CALLS)
        expect(run(call, frozen(input()), true), call).toBe(run(call, frozen(input()), false));
    });

  it("is what the program calls; a later or nested definition of the name is the program's own", () => {
    expect(run('def change($m): "shadowed"; change("x")', task(PRIV), true)).toBe('["shadowed"]');
    expect(run('. | def change($m): "nested"; change("x")', task(PRIV), true)).toBe('["nested"]');
    // the native copies the private object once: a change's second write is in place on its own copy
    const c = compileJq(`${LIB} change("x")`, { natives: REWRITER_NATIVES });
    if (!c.ok) throw new Error("compile");
    const input = frozen(task(PRIV));
    expect(c.value.run(input).outputs[0]).not.toBe(input);
  });

  it("charges the copies the jq body makes: a private object too large for the budget ends the run in both", () => {
    const big = task({
      ...Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i])),
      diags: [],
    });
    for (const native of [true, false])
      expect(run('change("x")', big, native, { maxSteps: 20_000 })).toMatch(/budget|steps/i);
    for (const native of [true, false])
      expect(run('change("x")', big, native, { maxSteps: 200_000 })).not.toMatch(/error/);
  });
});
