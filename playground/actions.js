// @ts-check
/**
 * From an experiment to a change: the `*.test.yaml` case a decision makes (its
 * verdict as the expectation, for `arbiter test`), and the fields two verdicts
 * differ in (the edited policy's against the active one's). Pure: Node tests
 * import it as the browser does.
 */
import { compactJson } from "./locate.js";

/** The verdict fields a case expects, per engine: the decision itself, not its ids, times or trace. */
const EXPECTED = {
  limits: ["allowed", "priority"],
  placement: ["queue", "create", "rule", "rejected", "reason"],
  match: ["best", "job", "schedd", "machines"],
  customs: ["host", "address", "reason"],
  jobfilter: ["action", "rule", "run", "state"],
};

/** Fields no comparison or expectation looks at: they differ on every call. */
const NOISE = new Set(["decision_id", "revision", "trace", "log", "permit", "lease", "cacheable"]);

/** Quotes a string for YAML (a JSON string is a YAML double-quoted scalar). @param {string} s */
const quote = (s) => JSON.stringify(s);

/**
 * One test file holding one case: this request, with the answer's verdict fields
 * as what it expects. The request is kept as typed (JSON is YAML's flow style, big
 * integers stay exact). `arbiter test` runs it beside the engine's policy file.
 * @param {{ engine: string, request: string, answer: Record<string, any>, name: string }} o
 */
export function testCaseYaml(o) {
  const fields = /** @type {Record<string, string[]>} */ (EXPECTED)[o.engine] ?? [];
  /** @type {Record<string, unknown>} */
  const expect = {};
  for (const f of fields) if (o.answer[f] !== undefined) expect[f] = o.answer[f];
  return [
    `# A case saved from the Arbiter playground: the verdict it gave is the expectation.`,
    `# Run it beside the policy with \`arbiter test <this file>\`; or paste the case into an existing ${o.engine} test file.`,
    `engine: ${o.engine}`,
    `cases:`,
    `  - name: ${quote(o.name)}`,
    `    request: ${compactJson(o.request)}`,
    `    expect: ${JSON.stringify(expect)}`,
    ``,
  ].join("\n");
}

/** Escapes one JSON pointer segment. @param {string} key */
const segment = (key) => "/" + key.replace(/~/g, "~0").replace(/\//g, "~1");

/**
 * The places where two verdicts differ, as JSON pointers with both values (ids,
 * revisions, times and the trace left out); empty when they agree.
 * @param {unknown} a @param {unknown} b @param {string} [at]
 * @returns {{ at: string, edited: unknown, active: unknown }[]}
 */
export function verdictDiff(a, b, at = "") {
  if (a === b) return [];
  const isObj = (/** @type {unknown} */ v) => v !== null && typeof v === "object";
  if (!isObj(a) || !isObj(b) || Array.isArray(a) !== Array.isArray(b))
    return [{ at: at || "/", edited: a, active: b }];
  const x = /** @type {Record<string, unknown>} */ (a);
  const y = /** @type {Record<string, unknown>} */ (b);
  const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])].filter((k) => at !== "" || !NOISE.has(k));
  return keys.flatMap((k) => verdictDiff(x[k], y[k], at + segment(k)));
}
