/**
 * The two whole-task jq scripts: the rewriter (may change the task or reject
 * it) and the prioritizer (computes a run's priority). Both run the user's
 * script after a small library of definitions, with imports hoisted first.
 */
import type { Json, JsonObject } from "../common/json.js";
import { isJsonObject } from "../common/json.js";
import { checkJsonDepth, describeJsonShape, MAX_JSON_DEPTH } from "../common/json-shape.js";
import { err, ok, type Result } from "../common/result.js";
import { REWRITER_NATIVES, storeKeyAt, withoutKeyAt } from "../../jq/index.js";
import type { JqNatives } from "./jq-backend.js";
import {
  compileJqText,
  hoistImports,
  scriptError,
  scriptText,
  unhoist,
  type CompiledJq,
  type JqSpec,
  type ScriptError,
} from "./jq-bridge.js";

const RW = "__REWRITER_PRIVATE__";
const PR = "__PRIORITIZER_PRIVATE__";

const REWRITER_LIBRARY = [
  `def classifiers: .${RW}.classifiers;`,
  `def classifiers_has($value): .${RW}.classifiers | contains([$value]);`,
  `def change($message): .${RW}.changed = true | if $message != null then .${RW}.diags += [$message | tostring] else . end;`,
  `def hint($name): .${RW}.hints[$name];`,
  `def reject($message): error("Task rejected: " + ($message | tostring));`,
].join(" ");

const PRIORITIZER_LIBRARY = [
  `def classifiers: .${PR}.classifiers;`,
  `def classifiers_has($value): .${PR}.classifiers | contains([$value]);`,
  `def default: 0;`,
  `def requested: .priority;`,
  `def note($message): if $message != null then .${PR}.diags += ["\\($message | tostring)"] else . end;`,
  `def priority: .${PR}.priority;`,
  `def set($value; $message): .${PR}.priority = $value | note("\\($message)  (Set to \\($value))");`,
  `def adjust($value; $message): .${PR}.priority += $value | note("\\($message)  (\\(if $value > 0 then "+" else "-" end)\\($value | length))");`,
].join(" ");

/**
 * Puts the library between the hoisted imports and the user's script; the
 * script is piped from `.` so that an empty script is a syntax error, as in
 * pScheduler. A compile error is placed in the script as written.
 */
function compileScript(spec: JqSpec, library: string, natives?: JqNatives): Result<CompiledJq, ScriptError> {
  const hoisted = hoistImports(scriptText(spec, true));
  const head = `${hoisted.imports}${hoisted.imports ? "\n" : ""}${library} . |\n`;
  const c = compileJqText(
    `${head}${hoisted.body}\n`,
    spec.args,
    head.length,
    (o) => unhoist(hoisted, o),
    natives,
  );
  if (c.ok) return c;
  // an offset past the script (the end of an empty one) names the script as a whole
  const offset =
    c.error.offset !== null && c.error.offset >= scriptText(spec, true).length ? null : c.error.offset;
  return err(scriptError(spec, [], { message: c.error.message, offset }));
}

/**
 * `{ ...task, [key]: priv }`, built key by key through one store site per key position
 * (`storeKeyAt`): a task of a given layout then always gets the same hidden class, which the jq
 * program's reads and copies of it find at once (a spread with a computed key, or Object.assign,
 * copies through V8's generic path); a task holding its own `__proto__` key takes the spread, which
 * defines it as a plain key where assignment would set the prototype.
 */
function withPrivate(task: JsonObject, key: string, priv: JsonObject): JsonObject {
  if (Object.hasOwn(task, "__proto__")) return { ...task, [key]: priv };
  // a task's own private key keeps its place
  if (Object.hasOwn(task, key)) return Object.assign({}, task, { [key]: priv }) as JsonObject;
  const o: JsonObject = {};
  let j = 0;
  for (const k in task) storeKeyAt(o, j++, k, task[k]);
  storeKeyAt(o, j, key, priv);
  return o;
}

/**
 * A script's result nested past the request depth limit, named; null when
 * within it. `measured` is the depth the run measured while charging the result
 * (JqFirst's `depth`; −1 when it did not), trusted when within the limit. Checked before anything reads or writes the result: a task the
 * verdict carries must be one a request could carry, and writing a deeper
 * value (the verdict's JSON, the messages' text) would recurse past the stack.
 */
function tooDeep(result: Json, measured: number, what: string): string | null {
  // the run's output charge already walked it: within the limit it needs no walk of its own
  if (measured >= 0 && measured <= MAX_JSON_DEPTH) return null;
  // as deep as a request body may nest; no item cap (its size is bounded by the work budget)
  const shape = checkJsonDepth(result, MAX_JSON_DEPTH);
  return shape === null ? null : `${what}: ${describeJsonShape(shape, "task")}`;
}

/** The result of rewriting: an error ends processing with `Error while rewriting: <message>`. */
export type RewriteResult = { error: string } | { task: JsonObject; changed: boolean; messages: string[] };

/** A compiled rewriter. */
export interface Rewriter {
  run(task: JsonObject, classifiers: readonly string[], hints: JsonObject, now: number): RewriteResult;
  /**
   * The last run's input, result and rewritten task, kept until the next run (tests read them).
   * The objects a run builds key by key (`withPrivate`'s input, jq's result through `storeAt`,
   * `withoutKeyAt`'s task) have hidden classes V8 reaches only through weak transitions from the
   * empty object's: with none of them alive at a full collection between requests, V8 collects
   * those classes and throws away every optimized function that embedded them (`storeAt`,
   * `loadSite`, `field`, `withPrivate`, `withoutKeyAt`, the program's `run`), which the route then
   * recompiles while it answers the backlog the collection left (docs/performance.md, wt/stall4;
   * src/engines/common/shapes.ts for classes). Held by the rewriter, so they go with its policy:
   * one task's worth of objects (a task is at most a request's size).
   */
  lastRun(): readonly [JsonObject | undefined, Json | undefined, JsonObject | undefined];
}

/** Compiles the configuration's `rewrite` script. */
export function compileRewriter(spec: JsonObject): Result<Rewriter, ScriptError> {
  // `change` runs natively (the same answers, one copy of the task where its jq body makes two)
  const c = compileScript(spec as unknown as JqSpec, REWRITER_LIBRARY, REWRITER_NATIVES);
  if (!c.ok) return c;
  const program: CompiledJq = c.value;
  // the last run's input, result and rewritten task, kept until the next run: see `lastRun`
  let lastInput: JsonObject | undefined;
  let lastResult: Json | undefined;
  let lastOut: JsonObject | undefined;
  return ok({
    lastRun: () => [lastInput, lastResult, lastOut] as const,
    run(task, classifiers, hints, now) {
      const input = withPrivate(task, RW, {
        classifiers: classifiers.slice(),
        changed: false,
        diags: [],
        hints,
      });
      const r = program.first(input, now);
      if (r.kind === "error") return { error: r.message };
      if (r.kind === "none") return { error: "list index out of range" };
      const result = r.value;
      lastInput = input;
      lastResult = result;
      lastOut = undefined;
      const deep = tooDeep(result, r.depth, "the rewritten task");
      if (deep !== null) return { error: deep };
      const test = isJsonObject(result) ? result.test : undefined;
      const originalType = isJsonObject(task.test) ? task.test.type : undefined;
      if (
        !isJsonObject(result) ||
        !isJsonObject(test) ||
        typeof test.type !== "string" ||
        !("spec" in test) ||
        test.type !== originalType
      ) {
        return { error: `Invalid rewriter result:\n${JSON.stringify(result)}` };
      }
      const priv = Object.hasOwn(result, RW) ? result[RW] : undefined;
      if (priv === undefined) return { error: `'${RW}'` };
      // The program gave back its input itself (jq never changes a value in place): the input
      // without its private key is the task, key for key and value for value, when the private
      // key was added after the task's own keys (not in place of a task's own key of that name).
      // No copy then; a copy is only made of a result the program built.
      const out =
        result === input && !Object.hasOwn(task, RW)
          ? task
          : (withoutKeyAt(result, Object.keys(result), RW) as JsonObject);
      lastOut = out;
      const changed = isJsonObject(priv) && priv.changed === true;
      const diags = isJsonObject(priv) && Array.isArray(priv.diags) ? priv.diags : [];
      return {
        task: out,
        changed,
        messages: diags.map((d) => (typeof d === "string" ? d : JSON.stringify(d))),
      };
    },
  });
}

/** The prioritizer's outcome; errors and null results deny with their own whole-diagnostic texts. */
export type PriorityResult = { error: string } | { noResult: true } | { priority: number; notes: string[] };

/** A compiled prioritizer. */
export interface Prioritizer {
  run(task: JsonObject, classifiers: readonly string[], now: number): PriorityResult;
}

/** Compiles the configuration's `priority` script. */
export function compilePrioritizer(spec: JsonObject): Result<Prioritizer, ScriptError> {
  const c = compileScript(spec as unknown as JqSpec, PRIORITIZER_LIBRARY);
  if (!c.ok) return c;
  const program: CompiledJq = c.value;
  return ok({
    run(task, classifiers, now) {
      const input = withPrivate(task, PR, { classifiers: classifiers.slice(), priority: 0, diags: [] });
      const r = program.first(input, now);
      if (r.kind === "error") return { error: r.message };
      if (r.kind === "none") return { error: "list index out of range" };
      const deep = tooDeep(r.value, r.depth, "the prioritizer's result");
      if (deep !== null) return { error: deep };
      const priv: Json | undefined = isJsonObject(r.value) ? r.value[PR] : undefined;
      if (!isJsonObject(priv) || !("priority" in priv) || !("diags" in priv))
        return { error: "Prioritizer destroyed private data" };
      const p = priv.priority;
      if (p === null) return { noResult: true };
      if (typeof p !== "number")
        return {
          error: `%d format: a real number is required, not ${typeof p === "string" ? "str" : "dict"}`,
        };
      const notes = Array.isArray(priv.diags)
        ? priv.diags.map((d) => (typeof d === "string" ? d : JSON.stringify(d)))
        : [];
      return { priority: p, notes };
    },
  });
}
