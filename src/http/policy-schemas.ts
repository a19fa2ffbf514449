/**
 * The JSON Schemas (2020-12) of the policy formats and of policy test files,
 * each generated from the definitions its checker uses: the zod shapes of
 * customs.json, filters.json and placement.yaml (which their validators take
 * their keys and bounds from), the schemas the limits loader checks with, and
 * the zod schema of `*.test.yaml` files. Served at `/v1/schemas/{name}.json`
 * and written by `arbiter schemas`. pool.conf has none: it is HTCondor
 * configuration syntax, not JSON or YAML.
 */
import * as z from "zod";
import { customsShapes } from "../engines/customs/index.js";
import { filterShapes } from "../engines/jobfilter/index.js";
import { limitsJsonSchema } from "../engines/limits/json-schema.js";
import { placementShapes } from "../engines/placement/index.js";
import { policyTestSchemas } from "./schemas/policy-test.js";

type JsonSchema = Record<string, unknown>;

/** The draft every schema is written in. */
export const SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema";

/** The first item's values of a tuple branch (`const` or `enum`), or null when it is not such a tuple. */
function tupleHeads(branch: JsonSchema): unknown[] | null {
  const first =
    branch.type === "array" && Array.isArray(branch.prefixItems)
      ? (branch.prefixItems[0] as JsonSchema | undefined)
      : undefined;
  if (first === undefined) return null;
  if (Array.isArray(first.enum)) return first.enum as unknown[];
  return "const" in first ? [first.const] : null;
}

/**
 * A union of tuples told apart by their first item (`["!", e]`, `["&", e, ...]`)
 * as one if/then per tuple keyed on that item, so a validator checks the nested
 * items against the one branch that applies: as a plain anyOf, a validator that
 * reports every error tries each branch at each level, exponential in the nesting.
 */
function discriminateTuples(schema: JsonSchema): void {
  const branches = schema.anyOf as JsonSchema[] | undefined;
  if (branches === undefined) return;
  const others = branches.filter((b) => tupleHeads(b) === null);
  const tuples = branches.filter((b) => tupleHeads(b) !== null);
  if (tuples.length < 2) return;
  const heads = tuples.flatMap((b) => tupleHeads(b)!);
  if (new Set(heads.map((h) => JSON.stringify(h))).size !== heads.length) return;
  const headed = (values: unknown[]): JsonSchema => ({
    type: "array",
    minItems: 1,
    prefixItems: [{ enum: values }],
  });
  schema.anyOf = [...others, headed(heads)];
  schema.allOf = tuples.map((b) => ({ if: headed(tupleHeads(b)!), then: b }));
}

/** A number bound of a bigint check as JSON, when it is exact as a JSON number. */
function exactBound(v: unknown): number | undefined {
  return typeof v === "bigint" && v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(v)
    : undefined;
}

/** A zod schema as JSON Schema 2020-12 input (bigints, the exact integers, as JSON integers). */
function fromZod(schema: z.ZodType): JsonSchema {
  const out = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    unrepresentable: "any",
    io: "input",
    override: (ctx) => {
      const zod = ctx.zodSchema._zod;
      const def = zod.def as { type: string; items?: unknown[] };
      if (def.type === "bigint") {
        // bounds past 2^53 are left to the checker: a JSON number cannot state them exactly
        const checks = (
          (def as { checks?: { _zod: { def: { check: string; value?: unknown; inclusive?: boolean } } }[] })
            .checks ?? []
        ).map((c) => c._zod.def);
        const bound = (check: string) =>
          checks.filter((c) => c.check === check && c.inclusive === true).map((c) => exactBound(c.value))[0];
        Object.assign(ctx.jsonSchema, {
          type: "integer",
          minimum: bound("greater_than"),
          maximum: bound("less_than"),
        });
      }
      // zod leaves out a tuple's least length: `[]` would pass where `["&"]` is required
      if (def.type === "tuple" && def.items !== undefined) ctx.jsonSchema.minItems = def.items.length;
      if (def.type === "union") discriminateTuples(ctx.jsonSchema as JsonSchema);
    },
  }) as JsonSchema;
  delete out.$schema;
  return JSON.parse(JSON.stringify(out)) as JsonSchema;
}

/** Each schema by name: the files it describes and how it is made. */
export const POLICY_SCHEMAS = {
  limits: { files: "limits.json, limits.conf", build: limitsJsonSchema },
  placement: {
    files: "placement.yaml, queues.yaml",
    build: () => fromZod(placementShapes().PlacementConfigShape),
  },
  customs: { files: "customs.json", build: () => fromZod(customsShapes().CustomsPolicyFile) },
  filters: { files: "filters.json", build: () => fromZod(filterShapes().FiltersFile) },
  "policy-test": { files: "*.test.yaml", build: () => fromZod(policyTestSchemas().PolicyTestFile) },
} as const satisfies Record<string, { files: string; build: () => JsonSchema }>;

/** A schema's name, as in `/v1/schemas/{name}.json`. */
export type PolicySchemaName = keyof typeof POLICY_SCHEMAS;

/** Every schema name. */
export const POLICY_SCHEMA_NAMES = Object.keys(POLICY_SCHEMAS) as PolicySchemaName[];

const built = new Map<PolicySchemaName, JsonSchema>();

/** Whether a name is a schema's. */
export function isPolicySchemaName(name: string): name is PolicySchemaName {
  return Object.hasOwn(POLICY_SCHEMAS, name);
}

/** A schema by name, built once per isolate; `$schema` first, then its title and what it describes. */
export function policySchema(name: PolicySchemaName): JsonSchema {
  let schema = built.get(name);
  if (schema === undefined) {
    const body = POLICY_SCHEMAS[name].build();
    schema = {
      $schema: SCHEMA_DIALECT,
      $comment: `Generated by Arbiter from its checker of ${POLICY_SCHEMAS[name].files}: do not edit.`,
      ...body,
    };
    built.set(name, schema);
  }
  return schema;
}

/** Why a name has no schema: pool.conf's syntax, or the names that have one. */
export function noSchemaMessage(name: string): string {
  const known = `schemas: ${POLICY_SCHEMA_NAMES.join(", ")}`;
  if (name === "pool" || name === "match" || name === "condor_config") {
    return `no schema \`${name}\`: pool.conf is HTCondor configuration syntax, not JSON or YAML, so it has no JSON Schema (${known})`;
  }
  return `no schema \`${name}\` (${known})`;
}
