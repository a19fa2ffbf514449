/**
 * Fuzz targets: one per parser and engine. Each draws hostile-looking input
 * (token soup over the language's own vocabulary, deep nesting, bombs) and
 * runs the parser or engine the way the Worker does, under a decision's work
 * budget. A target fails by throwing: engines must answer a value or a typed
 * error, never crash. `test/fuzz/fuzz.test.ts` runs every target with a fixed
 * seed and a modest run count; `npm run fuzz` (scripts/fuzz.ts) runs them long,
 * with a time cap per input, and saves failures as reproducers in
 * `test/fuzz/cases/`.
 */
import fc from "fast-check";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Budget, DEFAULT_DECISION_BUDGET } from "../../src/engines/common/budget.js";
import { checkJsonShape } from "../../src/engines/common/json-shape.js";
import type { Json } from "../../src/engines/common/json.js";
import {
  decideAdCheck,
  decideMatch,
  matchEngine,
  type MatchPolicy,
} from "../../src/engines/classad/index.js";
import { compileCustomsPolicy } from "../../src/engines/customs/index.js";
import {
  compileFilters,
  decideJobfilter,
  loadFilters,
  parseRuleBody,
} from "../../src/engines/jobfilter/index.js";
import { decideLimits, limitsEngine } from "../../src/engines/limits/index.js";
import { decidePlacement, placementEngine } from "../../src/engines/placement/index.js";
import { compileJq } from "../../src/jq/index.js";
import { validate } from "../../src/http/body.js";
import { ApiError } from "../../src/http/errors.js";
import { jobSchemas } from "../../src/http/schemas/jobs.js";
import { LimitsRequest } from "../../src/http/schemas/limits.js";
import { AdCheckRequest, MatchRequest } from "../../src/http/schemas/match.js";
import { PlaceRequest } from "../../src/http/schemas/placement.js";
import { REPO_ROOT } from "../support/cases.js";

/** One fuzz target: what it draws and how it runs one input (throwing on failure). */
export interface FuzzTarget {
  name: string;
  arbitrary: fc.Arbitrary<unknown>;
  run(input: unknown): void | Promise<void>;
}

/** Throws when a parser's answer is not a Result. */
function expectResult(r: unknown, what: string): void {
  if (typeof r !== "object" || r === null || typeof (r as { ok?: unknown }).ok !== "boolean")
    throw new Error(`${what} did not return a Result`);
}

/** Runs `fn` under a fresh decision budget, as a decision route does. */
function withinBudget<T>(fn: () => T): T {
  return new Budget(DEFAULT_DECISION_BUDGET).run(fn);
}

/** Text made of `tokens`, joined by what `seps` offers, up to `max` tokens. */
function soup(tokens: readonly string[], seps: readonly string[], max = 40): fc.Arbitrary<string> {
  return fc
    .array(fc.tuple(fc.constantFrom(...tokens), fc.constantFrom(...seps)), { maxLength: max })
    .map((parts) => parts.map(([t, s]) => t + s).join(""));
}

/** `open` repeated `n` times around `core`, then `close` repeated: deep nesting of any bracket kind. */
function nest(open: string, core: string, close: string): fc.Arbitrary<string> {
  return fc.integer({ min: 1, max: 3000 }).map((n) => open.repeat(n) + core + close.repeat(n));
}

const jsonValue: fc.Arbitrary<Json> = fc.letrec<{ v: Json }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -3, max: 1e6 }),
    fc.double(),
    fc.string({ maxLength: 12 }),
    fc.array(tie("v"), { maxLength: 5 }),
    fc.dictionary(
      fc.constantFrom("a", "b", "test", "spec", "type", "schema", "name", "data", "__proto__"),
      tie("v"),
      { maxKeys: 4 },
    ),
  ),
})).v;

// ---- jq ----

const JQ_TOKENS = [
  ".",
  "..",
  ".a",
  ".[]",
  ".[0]",
  "[",
  "]",
  "(",
  ")",
  "{",
  "}",
  "{a:",
  "|",
  ",",
  "+",
  "-",
  "*",
  "/",
  "%",
  "==",
  "//",
  "=",
  "|=",
  "as $x |",
  "$x",
  "reduce range(40) as $i ([1]; .+.)",
  "range(1e6)",
  "range(1e400)",
  "repeat(.)",
  "recurse",
  "tostring",
  "tojson",
  "fromjson",
  "keys",
  "to_entries",
  "from_entries",
  "add",
  "sort",
  "group_by(.)",
  "unique",
  'join(",")',
  'split("a")',
  "explode",
  "implode",
  'ltrimstr("a")',
  "paths",
  'getpath(["a"])',
  'setpath(["a"]; 1)',
  "delpaths([[0]])",
  "limit(3; .[])",
  "first",
  "until(. > 1e9; . + 1)",
  "def f: [f]; f",
  "def f: f; f",
  "if . then 1 else 2 end",
  "try error catch .",
  "label $l | break $l",
  '"\\(.)"',
  '"x" * 1e6',
  "@base64",
  "@csv",
  "length",
  "not",
  "null",
  "1e308",
  '"s"',
  "empty",
  'error("e")',
  "input",
  "$__loc__",
  "foreach range(9) as $i (0; .+$i)",
  "with_entries(.)",
  "indices(1)",
  'splits("a")',
  "ascii",
  "tojson|fromjson",
];

const jqProgram = fc.oneof(
  soup(JQ_TOKENS, [" ", "", " | ", ", "]),
  nest("(", ".", ")"),
  nest("[", "1", "]"),
  nest('"\\(', "1", ')"'),
  fc.string({ maxLength: 80 }),
);

// ---- ClassAd ----

const CLASSAD_TOKENS = [
  "a",
  "b",
  "c",
  "MY.a",
  "TARGET.b",
  "a0",
  "a1",
  "(",
  ")",
  "{",
  "}",
  "[",
  "]",
  ";",
  "=",
  "+",
  "-",
  "*",
  "/",
  "&&",
  "||",
  "==",
  "=?=",
  "<",
  "?",
  ":",
  "?:",
  ",",
  "1",
  "2.5",
  '"s"',
  "true",
  "undefined",
  "error",
  "strcat(a, a)",
  "size(a)",
  "member(1, {1,2})",
  'regexp("a", "aaa")',
  'split("a,b")',
  'join(",", {a, a})',
  'stringListMember("a", "a,b")',
  "ifThenElse(a, b, c)",
  'eval("a")',
  "unparse(a)",
  'substr("abc", 1)',
  "toUpper(a)",
  "random()",
  "time()",
  "[ a = a ]",
  "{a, b, c}",
];

const classadAd = fc.oneof(
  fc
    .array(
      fc.tuple(
        fc.constantFrom("a", "b", "c", "a0", "a1", "Requirements", "Rank"),
        soup(CLASSAD_TOKENS, [" ", ""], 12),
      ),
      { maxLength: 8 },
    )
    .map((attrs) => `[ ${attrs.map(([k, v]) => `${k} = ${v}`).join("; ")} ]`),
  fc.string({ maxLength: 120 }).map((s) => `[ a = ${s} ]`),
  nest("(", "1", ")").map((e) => `[ Requirements = ${e} ]`),
  nest("[ a = ", "1", " ]"),
  nest("{", "1", "}").map((e) => `[ a = ${e} ]`),
  jsonValue.map((v) => JSON.stringify({ Requirements: true, x: v })),
  fc
    .integer({ min: 2, max: 60 })
    .map(
      (n) =>
        `[ Requirements = a0 > 0; ${Array.from({ length: n }, (_, i) => `a${i} = a${i + 1} + a${i + 1}`).join("; ")}; a${n} = 1 ]`,
    ),
);

// ---- pool.conf ----

const poolConf = fc.oneof(
  fc
    .array(
      fc.tuple(
        fc.constantFrom("M", "N", "X", "NEGOTIATOR_PE_JOB_EXPR", "NEGOTIATOR_PE_STARTD_ONLY_EXPR", "#", "  "),
        soup(
          ["$(M)", "$(N)", "$(X:d)", "$$(Y)", "$ENV(H)", "$(", ")", "true", "a", "\\", "=", " "],
          [" ", ""],
          8,
        ),
      ),
      { maxLength: 12 },
    )
    .map((lines) => lines.map(([k, v]) => `${k} = ${v}`).join("\n") + "\n"),
  fc
    .integer({ min: 1, max: 40 })
    .map((n) =>
      [
        "M0 = x",
        ...Array.from({ length: n }, (_, i) => `M${i + 1} = $(M${i})$(M${i})`),
        `NEGOTIATOR_PE_JOB_EXPR = size("$(M${n})") > 0`,
      ].join("\n"),
    ),
  fc
    .integer({ min: 1, max: 100 })
    .map((n) =>
      [
        "C0 = true",
        ...Array.from({ length: n }, (_, i) => `C${i + 1} = $(C${i})`),
        `NEGOTIATOR_PE_JOB_EXPR = $(C${n})`,
      ].join("\n"),
    ),
  nest("(", "true", ")").map((e) => `NEGOTIATOR_PE_JOB_EXPR = ${e}\n`),
);

// ---- YuniKorn YAML ----

const YAML_TOKENS = [
  "partitions:",
  "- name: default",
  "queues:",
  "- name: root",
  "placementrules:",
  "- name: user",
  "create: true",
  "? ",
  "- ",
  ": ",
  "[",
  "]",
  "{",
  "}",
  "&a ",
  "*a",
  "x",
  "\n",
  "\n  ",
  "\n    ",
  "filter: {type: allow, users: [a]}",
  "'(a+)+$'",
  "!!map ",
  "---\n",
  "# c\n",
  "parent: {name: fixed, value: x}",
];

const yunikornYaml = fc.oneof(
  soup(YAML_TOKENS, ["", " ", "\n", "\n  "], 50),
  fc.integer({ min: 1, max: 40 }).map((n) => "partitions:\n" + "? ".repeat(n) + "x"),
  nest("[", "", "]").map((e) => "partitions: " + e),
  // a quoted scalar folded over many lines, each ending in blanks (quadratic in the reader before 0fdf16e)
  fc
    .tuple(fc.integer({ min: 1, max: 80_000 }), fc.constantFrom("'", '"'), fc.constantFrom(" ", "\t", "  "))
    .map(([n, q, blank]) => `partitions:\n  - name: ${q}a` + `${blank}\n      a`.repeat(n) + `${q}\n`),
  fc.integer({ min: 1, max: 20_000 }).map((n) => "partitions:\n" + "- ".repeat(n) + "x"),
  fc
    .integer({ min: 1, max: 8 })
    .map(
      (n) =>
        "partitions:\n  - name: default\n    queues: [{name: root, properties: {l0: &l0 [x, x, x, x, x, x, x, x, x, x]" +
        Array.from(
          { length: n },
          (_, i) =>
            `, l${i + 1}: &l${i + 1} [*l${i}, *l${i}, *l${i}, *l${i}, *l${i}, *l${i}, *l${i}, *l${i}, *l${i}, *l${i}]`,
        ).join("") +
        `}}]\n    placementrules: [{name: user, filter: {type: allow, users: *l${n}}}]\n`,
    ),
);

// ---- limits.json ----

const toolkit = readFileSync(join(REPO_ROOT, "policies/limits.json"), "utf8");

/** Replaces one value somewhere in `value` (chosen by `path` bits) with `x`. */
function mutate(value: Json, path: number[], x: Json): Json {
  if (path.length === 0 || value === null || typeof value !== "object") return x;
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    if (value.length === 0) return [x];
    const i = head % value.length;
    return value.map((v, j) => (j === i ? mutate(v, rest, x) : v));
  }
  const keys = Object.keys(value);
  if (keys.length === 0) return { a: x };
  const k = keys[head % keys.length];
  return { ...value, [k]: mutate(value[k], rest, x) };
}

const jqLimitScript = soup(JQ_TOKENS, [" ", " | "], 10);
const limitsSource = fc.oneof(
  fc
    .tuple(fc.array(fc.nat(50), { maxLength: 6 }), jsonValue)
    .map(([path, x]) => JSON.stringify(mutate(JSON.parse(toolkit) as Json, path, x))),
  jqLimitScript.map((script) =>
    JSON.stringify({
      schema: 2,
      identifiers: [{ name: "a", description: "a", type: "always", data: {} }],
      classifiers: [{ name: "c", description: "c", identifiers: ["a"] }],
      rewrite: { script: ". | " + script.split("|")[0] },
      limits: [{ name: "j", description: "j", type: "jq", data: { script } }],
      applications: [{ apply: [{ require: "all", limits: ["j"] }] }],
    }),
  ),
  nest("[", "1", "]").map((e) => toolkit.replace('"schema": 3', `"schema": 3, "x": ${e}`)),
);

// ---- filters.json and RAPI bodies ----

const predicateExpr: fc.Arbitrary<Json> = fc.letrec<{ e: Json }>((tie) => ({
  e: fc.oneof(
    { depthSize: "small" },
    fc
      .tuple(
        fc.constantFrom("==", "!=", "<", "=~", "=[]", "~~"),
        fc.constantFrom("OP_ID", "reason", "id", 1),
        fc.oneof(fc.string({ maxLength: 6 }), fc.integer(), fc.constant("(a+)+$")),
      )
      .map(([op, f, v]) => [op, f, v] as Json),
    fc
      .tuple(fc.constantFrom("&", "|"), fc.array(tie("e"), { maxLength: 3 }))
      .map(([op, xs]) => [op, ...xs] as Json),
    tie("e").map((x) => ["!", x] as Json),
    fc.constantFrom<Json>(null, ["?", "OP_ID"], "x", [], [1]),
  ),
})).e;

/** filters.json text: random rules, or one predicate nested n levels deep (text, since JSON.stringify itself recurses). */
const filterRules = fc.oneof(
  fc
    .array(
      fc.record(
        {
          predicates: fc.array(
            fc
              .tuple(fc.constantFrom("jobid", "opcode", "reason", "bogus"), predicateExpr)
              .map(([k, e]) => [k, e] as Json),
            { maxLength: 3 },
          ),
          action: fc.constantFrom<Json>(
            "ACCEPT",
            "PAUSE",
            "REJECT",
            "CONTINUE",
            ["RATE_LIMIT", 2],
            ["RATE_LIMIT", 0],
            "NOPE",
          ),
          priority: fc.integer({ min: -1, max: 5 }),
        },
        { requiredKeys: [] },
      ),
      { maxLength: 4 },
    )
    .map((rules) => JSON.stringify(rules)),
  fc
    .integer({ min: 1, max: 20_000 })
    .map((n) => `[{"predicates": [["opcode", ${'["!", '.repeat(n)}["==", "OP_ID", "x"]${"]".repeat(n)}]]}]`),
);

// ---- customs.json ----

const customsSource = fc.oneof(
  jsonValue.map((v) => JSON.stringify({ defaults: v })),
  jsonValue.map((v) => JSON.stringify({ networks: { "1": v } })),
  fc.string({ maxLength: 60 }),
  nest("[", "1", "]").map((e) => `{"networks": {"1": {"maxLoad": ${e}}}}`),
);

// ---- request bodies ----

const requestBody = fc.oneof(
  jsonValue.map((v) => JSON.stringify(v)),
  nest("[", "", "]"),
  nest('{"a":', "1", "}"),
  fc.integer({ min: 0, max: 30_000 }).map((n) => `[${Array(n).fill("0").join(",")}]`),
);

const ROUTE_SCHEMAS = [
  LimitsRequest,
  MatchRequest,
  AdCheckRequest,
  PlaceRequest,
  jobSchemas().JobSubmission,
  jobSchemas().ScheduleRequest,
  jobSchemas().JobfilterDecisionRequest,
];

const MACHINES = [
  '[ Name = "m0"; Requirements = true; Memory = 2048 ]',
  '[ Name = "m1"; Requirements = TARGET.a =?= 1 ]',
];
let poolPolicy: MatchPolicy | null = null;
function embeddedPool(): MatchPolicy {
  if (poolPolicy === null) {
    const c = matchEngine.compile(readFileSync(join(REPO_ROOT, "policies/pool.conf"), "utf8"));
    if (!c.ok) throw new Error("the embedded pool.conf does not compile");
    poolPolicy = matchEngine.load(c.value);
  }
  return poolPolicy;
}

export const FUZZ_TARGETS: FuzzTarget[] = [
  {
    name: "jq",
    arbitrary: fc.tuple(jqProgram, jsonValue),
    run(input) {
      const [src, value] = input as [string, Json];
      const c = compileJq(src);
      expectResult(c, "compileJq");
      if (!c.ok) return;
      const r = withinBudget(() => c.value.run(value));
      if (!Array.isArray(r.outputs)) throw new Error("run gave no outputs array");
    },
  },
  {
    name: "classad",
    arbitrary: classadAd,
    run(input) {
      withinBudget(() => {
        try {
          decideMatch(
            embeddedPool(),
            { job: input as string, machines: MACHINES },
            { now: 0, random: () => 0.5 },
          );
          decideAdCheck(embeddedPool(), { kind: "job", ad: input as string }, { now: 0, random: () => 0.5 });
        } catch (e) {
          // a bad ad is the request error the route answers as 400, an ad too costly to read its 422
          // budget_exceeded; anything else is a crash
          const code = (e as { code?: string }).code;
          if (code !== "invalid_request" && code !== "budget_exceeded") throw e;
        }
      });
    },
  },
  {
    name: "pool-conf",
    arbitrary: poolConf,
    run(input) {
      const c = matchEngine.compile(input as string);
      expectResult(c, "compileMatchPolicy");
      if (c.ok)
        withinBudget(() =>
          decideMatch(
            matchEngine.load(c.value),
            { job: "[ Requirements = true ]", machines: MACHINES },
            { now: 0, random: () => 0.5 },
          ),
        );
    },
  },
  {
    name: "yunikorn-yaml",
    arbitrary: yunikornYaml,
    run(input) {
      const c = placementEngine.compile(input as string);
      expectResult(c, "compilePlacement");
      if (c.ok)
        withinBudget(() =>
          decidePlacement(
            placementEngine.load(c.value),
            { user: "a".repeat(30) + "!", groups: ["dev"] },
            { explain: false },
          ),
        );
    },
  },
  {
    name: "limits-json",
    arbitrary: fc.tuple(limitsSource, jsonValue),
    async run(input) {
      const [src, spec] = input as [string, Json];
      const c = limitsEngine.compile(src);
      expectResult(c, "limits compile");
      if (!c.ok) return;
      const policy = limitsEngine.load(c.value);
      const budget = new Budget(DEFAULT_DECISION_BUDGET);
      await budget.run(() =>
        decideLimits(
          policy,
          { requester: "192.0.2.1", task: { test: { type: "rtt", spec: { x: spec } } } },
          { now: 0, explain: false, cidrList: () => undefined, localAddresses: [], budget },
        ),
      );
    },
  },
  {
    name: "jobfilter",
    arbitrary: fc.tuple(filterRules, fc.string({ maxLength: 40 })),
    run(input) {
      const [text, reason] = input as [string, string];
      // the text may not be JSON (amplified inputs cut it anywhere): then only the compiler sees it
      let rules: unknown = null;
      try {
        rules = JSON.parse(text);
      } catch {
        rules = null;
      }
      // as the RAPI route does, the body's shape is checked before a rule is parsed
      if (checkJsonShape(rules) === null)
        for (const r of Array.isArray(rules) ? rules : []) expectResult(parseRuleBody(r), "parseRuleBody");
      const c = compileFilters(text);
      expectResult(c, "compileFilters");
      if (!c.ok) return;
      const job = { id: 7, opcodes: [{ OP_ID: "OP_TEST", reason: [["user", reason, 1]] }] };
      withinBudget(() =>
        decideJobfilter(loadFilters(c.value), { job, queue: { running: [], queued: [] } } as never, {
          explain: false,
        }),
      );
    },
  },
  {
    name: "customs-json",
    arbitrary: customsSource,
    run(input) {
      expectResult(compileCustomsPolicy(input as string), "compileCustomsPolicy");
    },
  },
  {
    name: "request-json",
    arbitrary: requestBody,
    run(input) {
      let value: unknown;
      try {
        value = JSON.parse(input as string);
      } catch {
        return;
      }
      // what every JSON route does: the shape check, then its zod schema (a refusal is an ApiError, not a crash)
      if (checkJsonShape(value) !== null) return;
      for (const schema of ROUTE_SCHEMAS) {
        try {
          validate(schema, value);
        } catch (e) {
          if (!(e instanceof ApiError)) throw e;
        }
      }
    },
  },
];
