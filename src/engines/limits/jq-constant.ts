/**
 * Whether a jq program's output can depend on its input: a syntactic proof
 * that it cannot (no `.` reaches the program's input, no variable bound from
 * it, no clock, environment or `input` read, no function of the program's
 * own whose body is not followed). "Maybe" is the answer whenever the proof
 * does not go through, so a `true` from {@link isConstantJq} is always right.
 */
import { builtinNames } from "../../jq/index.js";
import type { Node, Pattern } from "../../jq/ast.js";
import { parseProgram } from "../../jq/parser.js";

/** Builtins whose answer depends on something besides their input and arguments. */
const IMPURE = new Set([
  "now/0",
  "input/0",
  "inputs/0",
  "input_filename/0",
  "env/0",
  "input_line_number/0",
  "get_search_list/0",
  "get_prog_origin/0",
  "get_jq_origin/0",
]);

/** Builtins that never read their input (their arguments may). */
const INPUT_FREE = new Set([
  "empty/0",
  "error/1",
  "range/1",
  "range/2",
  "range/3",
  "nan/0",
  "infinite/0",
  "null/0",
  "true/0",
  "false/0",
  "builtins/0",
]);

let builtins: Set<string> | null = null;

/** How deep the proof follows a tree before it gives up (answers "maybe"). */
const MAX_DEPTH = 400;

type Env = ReadonlyMap<string, boolean>;

function patternVars(p: Pattern, out: string[]): string[] {
  if (p.k === "pvar") out.push(p.name);
  else if (p.k === "parray") for (const e of p.elems) patternVars(e, out);
  else
    for (const e of p.entries) {
      if (e.keyVar !== null) out.push(e.keyVar);
      if (e.val !== null) patternVars(e.val, out);
    }
  return out;
}

function bindAll(env: Env, p: Pattern, dependent: boolean): Env {
  const next = new Map(env);
  for (const v of patternVars(p, [])) next.set(v.startsWith("$") ? v.slice(1) : v, dependent);
  return next;
}

/**
 * Whether `e`'s outputs may depend on the program's input (or on the clock,
 * the environment or other inputs), when its own input depends on it
 * (`inputDep`) or not; `env` says which variables may.
 */
function dep(e: Node | null, inputDep: boolean, env: Env, depth: number): boolean {
  if (e === null) return false;
  if (depth > MAX_DEPTH) return true;
  const d = (x: Node | null, input = inputDep, scope = env) => dep(x, input, scope, depth + 1);
  switch (e.k) {
    case "identity":
    case "recurse":
    case "format":
      return inputDep;
    case "literal":
    case "loc":
    case "break":
      return false;
    case "var": {
      const name = e.name.startsWith("$") ? e.name.slice(1) : e.name;
      if (name === "__loc__") return false;
      return env.get(name) ?? true;
    }
    case "str":
      return e.parts.some((p) => typeof p !== "string" && d(p));
    case "index":
      return d(e.target) || d(e.key);
    case "slice":
      return d(e.target) || d(e.from) || d(e.to);
    case "iterate":
    case "neg":
      return d(e.k === "iterate" ? e.target : e.e);
    case "pipe":
      // how many times the right side runs follows the left side's outputs: both must be constant
      return d(e.l) || d(e.r, false);
    case "comma":
    case "binop":
    case "and":
    case "or":
    case "alt":
    case "assign":
      return d(e.l) || d(e.r);
    case "array":
      return d(e.e);
    case "object":
      return e.entries.some((x) => d(x.key) || d(x.value) || (x.fromKey === true && inputDep));
    case "try": {
      const body = d(e.body);
      return body || d(e.handler, body);
    }
    case "if":
      return d(e.cond) || d(e.then) || (e.else === null ? inputDep : d(e.else));
    case "reduce":
    case "foreach": {
      const src = d(e.src);
      const init = d(e.init);
      const scope = bindAll(env, e.pat, src);
      const update = d(e.update, src || init, scope);
      const extract = e.k === "foreach" ? d(e.extract, src || init || update, scope) : false;
      return src || init || update || extract;
    }
    case "bind": {
      const src = d(e.src);
      let scope = env;
      for (const p of e.pats) scope = bindAll(scope, p, src);
      return src || d(e.body, inputDep, scope);
    }
    case "label":
      return d(e.body);
    case "funcdef":
      // the program's own functions are not followed: calls to them answer "maybe"
      return d(e.rest, inputDep, new Map([...env, [`def:${e.def.name}/${e.def.params.length}`, true]]));
    case "call": {
      const key = `${e.name}/${e.args.length}`;
      builtins ??= new Set(builtinNames());
      if (env.has(`def:${key}`) || !builtins.has(key) || IMPURE.has(key)) return true;
      return (!INPUT_FREE.has(key) && inputDep) || e.args.some((a) => d(a));
    }
  }
}

/**
 * True when the jq program's output cannot depend on its input, the clock or
 * the environment (`args`: the variables bound from the limit's own `args`,
 * which are constants). Programs with definitions of their own, module
 * imports used in the body, or that do not parse answer false.
 */
export function isConstantJq(text: string, args: readonly string[]): boolean {
  let body: Node | null;
  try {
    const ast = parseProgram(text);
    if (ast.defs.length > 0) return false;
    body = ast.body;
  } catch {
    return false;
  }
  if (body === null) return false;
  return !dep(body, true, new Map(args.map((a) => [a, false])), 0);
}
