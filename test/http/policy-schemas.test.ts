/**
 * The JSON Schemas of the policy formats (src/http/policy-schemas.ts), checked
 * with ajv (JSON Schema 2020-12, strict): each compiles; every shipped policy
 * and test file validates; every policy of the engines' case files that its
 * engine accepts validates too (so the schema never refuses what Arbiter
 * takes), and policies each checker refuses for their shape are refused by
 * the schema as well. `arbiter schemas` writes the same documents.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import { describe, expect, it, vi } from "vitest";
import { parse } from "yaml";
import * as z from "zod";
import { ENGINES } from "../../src/bundle/index.js";
import type { EngineName } from "../../src/engines/common/engine.js";
import {
  isPolicySchemaName,
  policySchema,
  POLICY_SCHEMA_NAMES,
  type PolicySchemaName,
} from "../../src/http/policy-schemas.js";
import { run, scratchSpace } from "../cli/run-cli.js";
import { REPO_ROOT } from "../support/cases.js";
import { haveSharedData, SHARED_DATA_ABSENT, sharedDataPath } from "../support/shared-data.js";

const POLICIES = join(REPO_ROOT, "policies");

// Strict, except two lints about sound schemas: `required` in an anyOf branch names
// properties declared beside the anyOf (limit entries), and variadic tuples
// (`["&", expr, ...]`) have prefixItems and items.
const ajv = new Ajv2020({
  strict: true,
  strictRequired: false,
  strictTuples: false,
  allErrors: true,
  allowUnionTypes: true,
  validateFormats: false,
});
const validators = new Map<PolicySchemaName, ValidateFunction>();
function validator(name: PolicySchemaName): ValidateFunction {
  let v = validators.get(name);
  if (v === undefined) validators.set(name, (v = ajv.compile(policySchema(name))));
  return v;
}
function problems(name: PolicySchemaName, value: unknown): string[] {
  const v = validator(name);
  return v(value) ? [] : (v.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

/** A policy's data as a JSON Schema sees it: JSON for the JSON formats, YAML's data for placement. */
function dataOf(engine: EngineName, text: string): unknown {
  return engine === "placement" ? parse(text) : JSON.parse(text);
}

const SCHEMA_OF: Partial<Record<EngineName, PolicySchemaName>> = {
  limits: "limits",
  placement: "placement",
  customs: "customs",
  jobfilter: "filters",
};

describe("the policy schemas", () => {
  it.each(POLICY_SCHEMA_NAMES)("%s is a JSON Schema 2020-12 that compiles in strict mode", (name) => {
    const schema = policySchema(name);
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(typeof schema.title === "string" || Array.isArray(schema.oneOf)).toBe(true);
    expect(() => validator(name)).not.toThrow();
  });

  it.each([
    ["limits", "limits.json"],
    ["placement", "placement.yaml"],
    ["customs", "customs.json"],
    ["filters", "filters.json"],
  ] as const)("policies/%s validates the shipped %s", (name, file) => {
    const engine = (Object.keys(SCHEMA_OF) as EngineName[]).find((e) => SCHEMA_OF[e] === name)!;
    expect(problems(name, dataOf(engine, readFileSync(join(POLICIES, file), "utf8")))).toEqual([]);
  });

  it("policy-test validates every shipped test file", () => {
    const files = readdirSync(POLICIES).filter((f) => f.endsWith(".test.yaml"));
    expect(files.length).toBeGreaterThanOrEqual(5);
    for (const f of files)
      expect({
        f,
        problems: problems(
          "policy-test",
          parse(readFileSync(join(POLICIES, f), "utf8"), { intAsBigInt: false }),
        ),
      }).toEqual({ f, problems: [] });
  });

  it("pool.conf has no schema: it is not JSON", () => {
    expect(isPolicySchemaName("pool")).toBe(false);
    expect(isPolicySchemaName("match")).toBe(false);
  });
});

describe("the schemas accept what the engines accept", () => {
  // Every policy in test/cases/<engine> that compiles must validate.
  it.each(Object.keys(SCHEMA_OF) as EngineName[])(
    "every %s policy of the case files that compiles validates",
    (engine) => {
      const dir = join(REPO_ROOT, "test/cases", engine);
      let checked = 0;
      for (const file of readdirSync(dir).filter((f) => f.endsWith(".yaml"))) {
        const cases = parse(readFileSync(join(dir, file), "utf8")) as { note: string; policy?: unknown }[];
        for (const c of cases) {
          if (c.policy === undefined) continue;
          const text = typeof c.policy === "string" ? c.policy : JSON.stringify(c.policy);
          if (!ENGINES[engine].compile(text).ok) continue;
          checked++;
          expect({
            case: `${file}: ${c.note}`,
            problems: problems(SCHEMA_OF[engine]!, dataOf(engine, text)),
          }).toEqual({ case: `${file}: ${c.note}`, problems: [] });
        }
      }
      expect(checked).toBeGreaterThan(3);
    },
  );

  const shared = sharedDataPath("pscheduler");
  // with ../shared absent: one skipped test whose name says so, as every suite reading it does
  const itShared = haveSharedData
    ? it
    : (_name: string, _fn: () => void) => it.skip(SHARED_DATA_ABSENT, () => {});
  itShared("every real pScheduler limits file of ../shared/data that compiles validates", () => {
    const files: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        if (e.isDirectory()) walk(join(d, e.name));
        else if (/limits.*\.(conf|json)$/.test(e.name)) files.push(join(d, e.name));
      }
    };
    walk(shared);
    let checked = 0;
    for (const f of files) {
      const text = readFileSync(f, "utf8");
      if (!ENGINES.limits.compile(text).ok) continue;
      checked++;
      expect({ f, problems: problems("limits", JSON.parse(text)) }).toEqual({ f, problems: [] });
    }
    expect(checked).toBeGreaterThan(0);
  });
});

describe("the schemas refuse what the checkers refuse for its shape", () => {
  const rejects: [PolicySchemaName, EngineName | "test", string][] = [
    ["customs", "customs", '{"defaults": {"maxLoad": 0.1}}'],
    ["customs", "customs", '{"defaults": {"npri": 100}}'],
    ["customs", "customs", '{"defalts": {}}'],
    ["customs", "customs", '{"networks": {"x1": {}}}'],
    ["customs", "customs", '{"killDelaySeconds": 0.5}'],
    ["filters", "jobfilter", '[{"action": "DROP"}]'],
    ["filters", "jobfilter", '[{"action": ["RATE_LIMIT", 0]}]'],
    ["filters", "jobfilter", '[{"predicates": [["jobs", null]]}]'],
    ["filters", "jobfilter", '[{"predicates": [["jobid", ["~", "id", 1]]]}]'],
    ["filters", "jobfilter", '[{"uuid": "ABCDEF00-0000-4000-8000-000000000000"}]'],
    ["filters", "jobfilter", '[{"watermark": -1}]'],
    ["filters", "jobfilter", '[{"prio": 1}]'],
    ["placement", "placement", "partitions:\n  - name: default\n    bogus: 1\n"],
    [
      "placement",
      "placement",
      "partitions:\n  - name: default\n    queues:\n      - name: root\n        parent: maybe\n",
    ],
    [
      "placement",
      "placement",
      "partitions:\n  - name: default\n    placementrules:\n      - name: fixed\n        valu: root.x\n",
    ],
    [
      "limits",
      "limits",
      '{"schema": 1, "identifiers": [], "classifiers": [], "limits": [], "applications": [], "rewrite": {"script": "."}}',
    ],
    [
      "limits",
      "limits",
      '{"schema": 3, "identifiers": [{"name": "a", "description": "", "type": "nosuch", "data": {}}], "classifiers": [], "limits": [], "applications": []}',
    ],
    [
      "limits",
      "limits",
      '{"schema": 3, "identifiers": [{"name": "a", "description": "", "type": "always", "data": {"x": 1}}], "classifiers": [], "limits": [], "applications": []}',
    ],
    [
      "limits",
      "limits",
      '{"schema": 3, "identifiers": [], "classifiers": [], "limits": [{"name": "p", "type": "pass-fail", "data": {"pass": "yes"}}], "applications": []}',
    ],
    [
      "limits",
      "limits",
      '{"schema": 3, "identifiers": [], "classifiers": [], "limits": [{"name": "p", "type": "pass-fail"}], "applications": []}',
    ],
    [
      "limits",
      "limits",
      '{"schema": 3, "identifiers": [], "classifiers": [], "limits": [{"name": "p", "type": "nosuch", "data": {}}], "applications": []}',
    ],
    [
      "limits",
      "limits",
      '{"schema": 3, "identifiers": [], "classifiers": [], "limits": [{"name": "p", "description": "d", "data": {"pass": true}}], "applications": []}',
    ],
    [
      "limits",
      "limits",
      '{"schema": 3, "identifiers": [], "classifiers": [], "limits": [], "applications": [{"apply": [{"require": "most", "limits": []}]}]}',
    ],
  ];
  it.each(rejects)("%s refuses %s", (name, engine, text) => {
    expect(ENGINES[engine as EngineName].compile(text).ok).toBe(false);
    expect(problems(name, dataOf(engine as EngineName, text))).not.toEqual([]);
  });

  it("accepts comment members anywhere in a limits file, as the loader does", () => {
    const text =
      '{"#": "c", "schema": 3, "identifiers": [{"#": "c", "name": "a", "description": "", "type": "always", "data": {"#": "c"}}], "classifiers": [], "limits": [], "applications": []}';
    expect(ENGINES.limits.compile(text).ok).toBe(true);
    expect(problems("limits", JSON.parse(text))).toEqual([]);
  });

  it("policy-test refuses an unknown step, a misspelt request field and an empty expectation", () => {
    const file = (cases: unknown[]) => ({ engine: "customs", cases });
    expect(problems("policy-test", file([{ name: "a", steps: [{ submit: { opcodes: [] } }] }]))).not.toEqual(
      [],
    );
    expect(
      problems("policy-test", {
        engine: "placement",
        cases: [{ name: "a", request: { usr: "bob" }, expect: { queue: "x" } }],
      }),
    ).not.toEqual([]);
    expect(
      problems("policy-test", {
        engine: "placement",
        cases: [{ name: "a", request: { user: "bob" }, expect: {} }],
      }),
    ).not.toEqual([]);
    expect(
      problems("policy-test", {
        engine: "placement",
        cases: [{ name: "a", request: { user: "bob" }, expect: { queue: "root.default" } }],
      }),
    ).toEqual([]);
  });
});

describe("arbiter schemas", () => {
  const scratch = scratchSpace("arbiter-schemas-");

  it("writes every schema to DIR/NAME.json, the documents the Worker serves", async () => {
    const dir = join(scratch.root, "out");
    const r = await run(["schemas", "-o", dir]);
    expect(r.code).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(POLICY_SCHEMA_NAMES.map((n) => `${n}.json`).sort());
    for (const n of POLICY_SCHEMA_NAMES)
      expect(JSON.parse(readFileSync(join(dir, `${n}.json`), "utf8"))).toEqual(policySchema(n));
  });

  it("prints one schema, and refuses pool.conf with the reason", async () => {
    const one = await run(["schemas", "filters"]);
    expect(one.code).toBe(0);
    expect(JSON.parse(one.out)).toEqual(policySchema("filters"));
    const pool = await run(["schemas", "pool"]);
    expect(pool.code).toBe(2);
    expect(pool.err).toMatch(
      /^no schema `pool`: pool\.conf is HTCondor configuration syntax, not JSON or YAML/,
    );
  });
});

describe("when the test files' schemas are built", () => {
  // last in the file: the modules it loads afresh are not the ones the tests above hold
  // zod registers a schema given `.meta()` in its global registry as it is built
  it("not when the module loads (a Worker serving decisions never builds them), but on the first use", async () => {
    const added = vi.spyOn(z.globalRegistry, "add");
    try {
      vi.resetModules();
      const fresh = await import("../../src/http/policy-schemas.js");
      const built = () =>
        added.mock.calls.filter(
          ([, meta]) =>
            (meta as { title?: string } | undefined)?.title === "Arbiter policy test file (*.test.yaml)",
        ).length;
      expect(built()).toBe(0);
      expect(fresh.policySchema("policy-test")).toEqual(policySchema("policy-test"));
      expect(built()).toBe(1);
    } finally {
      added.mockRestore();
    }
  });
});
