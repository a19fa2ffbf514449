/**
 * What a limits file's jq scripts compare the task (or the hints) with, for the
 * semantic diff: a syntactic search, not a proof. Each comparison of a path
 * from the input (`.test.spec.parallel`, or a variable bound from one) with a
 * literal gives that path the literal's boundary values (numbers ± 1, a
 * duration wrapper's seconds as ISO 8601 durations ± 1 s, strings, booleans);
 * `test`, `startswith`, `endswith`, `contains` and `ltrimstr` on a path give it
 * the argument and strings around it; an array of string literals gives its
 * strings to every path the script binds to a variable (`["idle", "latency"] |
 * contains([$testtype])`).
 */
import type { Json } from "../common/json.js";
import { regexWitnesses } from "../common/diff-requests.js";
import { compileLinear, compileVmTester } from "../common/regex/index.js";
import type { Node } from "../../jq/ast.js";
import { parseProgram } from "../../jq/parser.js";
import { scriptText, type JqSpec } from "./jq-bridge.js";

/** A path into the script's input, as its keys. */
export type InputPath = readonly string[];

/** The values found per path (keyed by the path's keys joined with NUL). */
export type PathValues = Map<string, { path: InputPath; values: Json[] }>;

const COMPARISONS = new Set(["==", "!=", "<", "<=", ">", ">="]);
const STRING_TESTS = new Set(["test", "startswith", "endswith", "contains", "ltrimstr", "rtrimstr", "match"]);
/** How deep the walk follows a tree (the parser bounds nesting; this bounds the harvest's own recursion). */
const MAX_DEPTH = 300;
const FRESH = "zz-fresh-9";

interface Walk {
  vars: Map<string, InputPath>;
  out: PathValues;
  /** String literals of array constructors, given to the bound paths at the end. */
  arrayStrings: string[];
}

/** Adds a value to a path's list, once. */
export function addPathValue(out: PathValues, path: InputPath, v: Json): void {
  const key = path.join("\u0000");
  let entry = out.get(key);
  if (entry === undefined) out.set(key, (entry = { path, values: [] }));
  const text = JSON.stringify(v);
  if (!entry.values.some((x) => JSON.stringify(x) === text)) entry.values.push(v);
}

/** The input path a node reads (`.a.b`, `$x` bound from one), with the wrapping call's name if any. */
function pathOf(n: Node, w: Walk): { path: InputPath; wrapper: string | null } | null {
  if (n.k === "identity") return { path: [], wrapper: null };
  if (n.k === "var") {
    const p = w.vars.get(n.name.replace(/^\$/, ""));
    return p === undefined ? null : { path: p, wrapper: null };
  }
  if (n.k === "index" && n.key.k === "literal" && typeof n.key.v === "string") {
    const t = pathOf(n.target, w);
    return t === null || t.wrapper !== null ? null : { path: [...t.path, n.key.v], wrapper: null };
  }
  if (n.k === "call" && n.args.length === 1) {
    const inner = pathOf(n.args[0], w);
    return inner === null || inner.wrapper !== null ? null : { path: inner.path, wrapper: n.name };
  }
  if (n.k === "pipe" && n.r.k === "call" && n.r.args.length === 0) {
    const inner = pathOf(n.l, w);
    return inner === null || inner.wrapper !== null ? null : { path: inner.path, wrapper: n.r.name };
  }
  return null;
}

/** A literal's value (`-3` included), or undefined when the node is not one. */
function literalOf(n: Node): Json | undefined {
  if (n.k === "literal") return n.v;
  if (n.k === "neg" && n.e.k === "literal" && typeof n.e.v === "number") return -n.e.v;
  if (n.k === "str" && n.fmt === null && n.parts.every((p) => typeof p === "string")) return n.parts.join("");
  return undefined;
}

/** ISO 8601 duration text of a number of seconds (whole or fractional), or null below zero. */
export function isoSeconds(s: number): string | null {
  if (!Number.isFinite(s) || s < 0) return null;
  return `PT${Number.isInteger(s) ? s : s.toFixed(6).replace(/0+$/, "")}S`;
}

function addCompared(w: Walk, path: InputPath, wrapper: string | null, v: Json): void {
  if (v === null) {
    addPathValue(w.out, path, null);
    return;
  }
  if (typeof v === "number") {
    for (const d of [-1, 0, 1]) {
      if (wrapper !== null && /duration|seconds/i.test(wrapper)) {
        const text = isoSeconds(v + d);
        if (text !== null) addPathValue(w.out, path, text);
      } else if (wrapper === null) addPathValue(w.out, path, v + d);
    }
    return;
  }
  if (wrapper !== null) return;
  if (typeof v === "boolean") {
    addPathValue(w.out, path, true);
    addPathValue(w.out, path, false);
    return;
  }
  if (typeof v === "string") addPathValue(w.out, path, v);
}

function addStringTest(w: Walk, path: InputPath, name: string, arg: string): void {
  if (name === "test" || name === "match") {
    // jq's own dialect on the linear engines: a backtracking RegExp ran a crafted pattern's
    // candidates for minutes (`(a|a)*c|aaa…ab` tried on its own long literal run)
    const test = witnessTester(arg);
    if (test !== null) for (const s of regexWitnesses(arg, test, FRESH)) addPathValue(w.out, path, s);
    return;
  }
  for (const s of [arg, `${arg}${FRESH}`, `${FRESH}${arg}`]) addPathValue(w.out, path, s);
}

function visit(n: Node | null, w: Walk, depth: number): void {
  if (n === null || depth > MAX_DEPTH) return;
  const next = (x: Node | null): void => visit(x, w, depth + 1);
  switch (n.k) {
    case "binop": {
      if (COMPARISONS.has(n.op)) {
        for (const [a, b] of [
          [n.l, n.r],
          [n.r, n.l],
        ] as const) {
          const p = pathOf(a, w);
          const v = literalOf(b);
          if (p !== null && v !== undefined) addCompared(w, p.path, p.wrapper, v);
        }
      }
      next(n.l);
      next(n.r);
      return;
    }
    case "assign": {
      const p = pathOf(n.l, w);
      const v = literalOf(n.r);
      if (p !== null && v !== undefined) addCompared(w, p.path, p.wrapper, v);
      next(n.l);
      next(n.r);
      return;
    }
    case "pipe": {
      const p = pathOf(n.l, w);
      if (
        p !== null &&
        p.wrapper === null &&
        n.r.k === "call" &&
        STRING_TESTS.has(n.r.name) &&
        n.r.args.length >= 1
      ) {
        const arg = literalOf(n.r.args[0]);
        if (typeof arg === "string") addStringTest(w, p.path, n.r.name, arg);
      }
      next(n.l);
      next(n.r);
      return;
    }
    case "bind": {
      const p = pathOf(n.src, w);
      if (p !== null && p.wrapper === null)
        for (const pat of n.pats) if (pat.k === "pvar") w.vars.set(pat.name.replace(/^\$/, ""), p.path);
      next(n.src);
      next(n.body);
      return;
    }
    case "array": {
      const strings: string[] = [];
      collectCommaStrings(n.e, strings, 0);
      w.arrayStrings.push(...strings);
      next(n.e);
      return;
    }
    default:
      for (const child of children(n)) next(child);
  }
}

/** The string literals of a comma list (`"a", "b", "c"`). */
function collectCommaStrings(n: Node | null, out: string[], depth: number): void {
  if (n === null || depth > MAX_DEPTH) return;
  if (n.k === "comma") {
    collectCommaStrings(n.l, out, depth + 1);
    collectCommaStrings(n.r, out, depth + 1);
    return;
  }
  const v = literalOf(n);
  if (typeof v === "string") out.push(v);
}

/** The child nodes of a node, for the generic part of the walk. */
function children(n: Node): (Node | null)[] {
  const out: (Node | null)[] = [];
  for (const value of Object.values(n) as unknown[]) {
    if (value !== null && typeof value === "object") {
      if (Array.isArray(value)) {
        for (const x of value) if (x !== null && typeof x === "object" && "k" in x) out.push(x as Node);
        for (const x of value)
          if (x !== null && typeof x === "object" && "value" in x && "key" in x)
            out.push((x as { value: Node }).value);
      } else if ("k" in value) out.push(value as Node);
      else if ("body" in value) out.push((value as { body: Node }).body);
    }
  }
  return out;
}

/**
 * Adds what a jq script compares its input with to `out`; answers false when
 * the script does not parse (nothing found). Paths are from the script's
 * input (the task for limits and the rewrite, the hints for identifiers).
 */
export function harvestJq(spec: JqSpec, out: PathValues): boolean {
  let body: Node | null;
  const defs: Node[] = [];
  try {
    const ast = parseProgram(scriptText(spec));
    body = ast.body;
    for (const d of ast.defs) defs.push(d.body);
  } catch {
    return false;
  }
  const w: Walk = { vars: new Map(), out, arrayStrings: [] };
  for (const d of defs) visit(d, w, 0);
  visit(body, w, 0);
  for (const path of new Set(w.vars.values())) for (const s of w.arrayStrings) addPathValue(out, path, s);
  return true;
}

/** A yes/no test of a jq pattern for its witness candidates (a Pike VM, else the linear compile), or null when it does not compile. */
function witnessTester(pattern: string): ((s: string) => boolean) | null {
  const vm = compileVmTester(pattern, "onig");
  if (vm !== null) return vm;
  const r = compileLinear(pattern, "onig");
  return r.ok ? (s) => r.value.test(s) : null;
}
