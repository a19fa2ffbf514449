/**
 * A small JSON-schema checker producing the Python jsonschema messages that
 * pScheduler prints (`At /classifiers/1: 'name' is a required property`).
 * Only the keywords pScheduler's limit schemas use are supported; of all
 * errors, the one with the shortest path wins, ties going to check order.
 */
import type { Json } from "../common/json.js";
import { isJsonObject } from "../common/json.js";
import type { Pace, Steps } from "../common/slices.js";
import { pyRepr, pyStringRepr } from "./python-text.js";

/** pScheduler's json_validate raises this, before any schema check, for type data that is not an object. */
export const NOT_A_DICTIONARY = "JSON provided must be a dictionary.";

/** A schema node (a subset of JSON Schema draft 7). */
export interface Schema {
  type?: "object" | "array" | "string" | "boolean" | "integer" | "number";
  properties?: Record<string, Schema>;
  additionalProperties?: false;
  required?: readonly string[];
  items?: Schema;
  enum?: readonly Json[];
  anyOf?: readonly Schema[];
  minimum?: number;
  maximum?: number;
  /** A value check returning a message, used for pattern-like checks with pScheduler's texts. */
  check?: (value: Json) => string | null;
  /** What a JSON Schema can say of `check` (a pattern, a type), for the generated JSON Schema; nothing when absent. */
  json?: Readonly<Record<string, unknown>>;
}

interface Found {
  path: (string | number)[];
  message: string;
}

function typeOk(type: NonNullable<Schema["type"]>, v: Json): boolean {
  switch (type) {
    case "object":
      return isJsonObject(v);
    case "array":
      return Array.isArray(v);
    case "string":
      return typeof v === "string";
    case "boolean":
      return typeof v === "boolean";
    case "integer":
      return typeof v === "number" && Number.isInteger(v);
    case "number":
      return typeof v === "number";
  }
}

/** Nodes the checker has visited, the work units of {@link firstErrorSteps}'s checkpoints. */
let visited = 0;

/** The checks of one node before its children; false when its type is wrong (nothing more is checked under it). */
function checkNode(schema: Schema, v: Json, path: (string | number)[], out: Found[]): boolean {
  visited++;
  if (schema.type && !typeOk(schema.type, v)) {
    out.push({ path, message: `${pyRepr(v)} is not of type '${schema.type}'` });
    return false;
  }
  if (schema.enum && !schema.enum.some((e) => e === v)) {
    out.push({ path, message: `${pyRepr(v)} is not one of [${schema.enum.map(pyRepr).join(", ")}]` });
  }
  if (schema.anyOf && !schema.anyOf.some((s) => firstError(s, v) === null)) {
    out.push({ path, message: `${pyRepr(v)} is not valid under any of the given schemas` });
  }
  if (typeof v === "number") {
    if (schema.minimum !== undefined && v < schema.minimum)
      out.push({ path, message: `${pyRepr(v)} is less than the minimum of ${schema.minimum}` });
    if (schema.maximum !== undefined && v > schema.maximum)
      out.push({ path, message: `${pyRepr(v)} is greater than the maximum of ${schema.maximum}` });
  }
  if (schema.check) {
    const m = schema.check(v);
    if (m !== null) out.push({ path, message: m });
  }
  return true;
}

/** The checks of an object after its members: no unknown keys, no missing ones. */
function checkKeys(schema: Schema, v: Record<string, Json>, path: (string | number)[], out: Found[]): void {
  if (schema.additionalProperties === false) {
    const extra = Object.keys(v)
      .filter((k) => !(schema.properties && k in schema.properties))
      .sort();
    if (extra.length === 1) {
      out.push({
        path,
        message: `Additional properties are not allowed (${pyStringRepr(extra[0])} was unexpected)`,
      });
    } else if (extra.length > 1) {
      out.push({
        path,
        message: `Additional properties are not allowed (${extra.map(pyStringRepr).join(", ")} were unexpected)`,
      });
    }
  }
  for (const r of schema.required ?? []) {
    if (!(r in v)) out.push({ path, message: `${pyStringRepr(r)} is a required property` });
  }
}

function walk(schema: Schema, v: Json, path: (string | number)[], out: Found[]): void {
  if (!checkNode(schema, v, path, out)) return;
  if (Array.isArray(v) && schema.items) {
    for (let i = 0; i < v.length; i++) walk(schema.items, v[i], [...path, i], out);
  }
  if (isJsonObject(v)) {
    if (schema.properties) {
      for (const [k, s] of Object.entries(schema.properties)) if (k in v) walk(s, v[k], [...path, k], out);
    }
    checkKeys(schema, v, path, out);
  }
}

/**
 * {@link walk} as resumable work: the same checks in the same order, with a
 * checkpoint after each item of an array (an identifier, a classifier, an
 * application) once the nodes visited since the last fill a slice.
 */
function* walkSteps(
  schema: Schema,
  v: Json,
  path: (string | number)[],
  out: Found[],
  pace: Pace,
): Steps<void> {
  if (!checkNode(schema, v, path, out)) return;
  if (Array.isArray(v) && schema.items) {
    let seen = visited;
    for (let i = 0; i < v.length; i++) {
      walk(schema.items, v[i], [...path, i], out);
      if (pace.spend(visited - seen)) yield;
      seen = visited;
    }
  }
  if (isJsonObject(v)) {
    if (schema.properties) {
      for (const [k, s] of Object.entries(schema.properties))
        if (k in v) yield* walkSteps(s, v[k], [...path, k], out, pace);
    }
    checkKeys(schema, v, path, out);
  }
}

/** The error with the shortest path, the first found of those. */
function best(found: readonly Found[]): { pointer: string; message: string } | null {
  if (found.length === 0) return null;
  let first = found[0];
  for (const f of found) if (f.path.length < first.path.length) first = f;
  return { pointer: `/${first.path.join("/")}`, message: first.message };
}

/** The error jsonschema's best match would report, formatted `At /<path>: <message>`, or null when valid. */
export function firstError(schema: Schema, value: Json): { pointer: string; message: string } | null {
  const found: Found[] = [];
  walk(schema, value, [], found);
  return best(found);
}

/** {@link firstError} as resumable work (common/slices.ts), yielding between the items of the configuration's lists. */
export function* firstErrorSteps(
  schema: Schema,
  value: Json,
  pace: Pace,
): Steps<{ pointer: string; message: string } | null> {
  const found: Found[] = [];
  yield* walkSteps(schema, value, [], found, pace);
  return best(found);
}

/** Formats a schema error the way pScheduler's json_validate does. */
export function schemaErrorText(e: { pointer: string; message: string }): string {
  return `At ${e.pointer}: ${e.message}`;
}

const STRING: Schema = { type: "string" };
const BOOLEAN: Schema = { type: "boolean" };
const DURATION_PATTERN =
  /^P(?:\d+(?:\.\d+)?W)?(?:\d+(?:\.\d+)?D)?(?:T(?:\d+(?:\.\d+)?H)?(?:\d+(?:\.\d+)?M)?(?:\d+(?:\.\d+)?S)?)?$/;

/** pScheduler's Duration type: a string in the restricted ISO 8601 form. */
export const DURATION: Schema = {
  type: "string",
  check: (v) =>
    DURATION_PATTERN.test(v as string)
      ? null
      : `${pyStringRepr(v as string)} is not a valid ISO 8601 duration.`,
  json: { pattern: DURATION_PATTERN.source, description: "an ISO 8601 duration (PT30S)" },
};

/** pScheduler's StringMatch object. */
export const STRING_MATCH: Schema = {
  type: "object",
  properties: {
    style: { type: "string", enum: ["exact", "contains", "regex"] },
    match: STRING,
    "case-insensitive": BOOLEAN,
    invert: BOOLEAN,
  },
  additionalProperties: false,
  required: ["style", "match"],
};

/** pScheduler's JQTransformSpecification. */
export const JQ_TRANSFORM: Schema = {
  type: "object",
  properties: {
    script: { anyOf: [STRING, { type: "array", items: STRING }] },
    "output-raw": BOOLEAN,
    args: {},
  },
  additionalProperties: false,
  required: ["script"],
};

const HOW_MANY: Schema = { type: "string", enum: ["none", "one", "any", "all"] };

function configuration(version: number): Schema {
  const classifierProps: Record<string, Schema> = {
    name: STRING,
    description: STRING,
    identifiers: { type: "array", items: STRING },
  };
  if (version >= 4) classifierProps.require = HOW_MANY;
  const props: Record<string, Schema> = {
    schema: { type: "integer", minimum: version, maximum: version },
    identifiers: {
      type: "array",
      items: {
        type: "object",
        properties: { name: STRING, description: STRING, type: STRING, data: {}, invert: BOOLEAN },
        additionalProperties: false,
        required: ["name", "description", "type", "data"],
      },
    },
    classifiers: {
      type: "array",
      items: {
        type: "object",
        properties: classifierProps,
        additionalProperties: false,
        required: ["name", "description", "identifiers"],
      },
    },
    limits: { type: "array" },
    applications: {
      type: "array",
      items: {
        type: "object",
        properties: {
          description: STRING,
          classifier: STRING,
          apply: {
            type: "array",
            items: {
              type: "object",
              properties: { require: HOW_MANY, limits: { type: "array", items: STRING } },
              additionalProperties: false,
              required: ["require", "limits"],
            },
          },
          "stop-on-failure": BOOLEAN,
          invert: BOOLEAN,
        },
        additionalProperties: false,
        required: ["apply"],
      },
    },
  };
  if (version >= 2) props.rewrite = JQ_TRANSFORM;
  if (version >= 3) props.priority = JQ_TRANSFORM;
  return {
    type: "object",
    properties: props,
    additionalProperties: false,
    required: ["schema", "identifiers", "classifiers", "limits", "applications"],
  };
}

/** The top-level schema of each supported version, built once. */
export const CONFIGURATION_SCHEMAS: Readonly<Record<number, Schema>> = {
  1: configuration(1),
  2: configuration(2),
  3: configuration(3),
  4: configuration(4),
};
