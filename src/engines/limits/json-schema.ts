/**
 * The JSON Schema (2020-12) of a limits file, generated from the schemas the
 * limits loader checks with (`CONFIGURATION_SCHEMAS`, each identifier and
 * limit type's data schema), so the file editors check against is the one
 * pScheduler's checks describe. Comment members (`#…`) are allowed in every
 * object, as the loader strips them before checking.
 */
import { IDENTIFIER_DATA, IDENTIFIER_TYPES } from "./identifiers.js";
import { LIMIT_DATA, LIMIT_TYPES } from "./limit-types.js";
import { CONFIGURATION_SCHEMAS, type Schema } from "./schema.js";

type JsonSchema = Record<string, unknown>;

/** Comment members, allowed wherever other members are closed. */
const COMMENTS = { "^#": {} };

/** One limits schema node as JSON Schema. */
export function limitsSchemaToJson(s: Schema): JsonSchema {
  const out: JsonSchema = {};
  if (s.type !== undefined) out.type = s.type;
  if (s.enum !== undefined) out.enum = [...s.enum];
  if (s.anyOf !== undefined) out.anyOf = s.anyOf.map(limitsSchemaToJson);
  if (s.minimum !== undefined) out.minimum = s.minimum;
  if (s.maximum !== undefined) out.maximum = s.maximum;
  if (s.items !== undefined) out.items = limitsSchemaToJson(s.items);
  if (s.properties !== undefined)
    out.properties = Object.fromEntries(
      Object.entries(s.properties).map(([k, v]) => [k, limitsSchemaToJson(v)]),
    );
  if (s.required !== undefined) out.required = [...s.required];
  if (s.additionalProperties === false) {
    out.patternProperties = COMMENTS;
    out.additionalProperties = false;
  }
  if (s.json !== undefined) Object.assign(out, s.json);
  return out;
}

/** `data` checked by the schema of the entry's `type`, one if/then per type. */
function dataByType(
  types: readonly string[],
  data: Readonly<Record<string, Schema>>,
  what: string,
): JsonSchema[] {
  return types.map((t) => {
    const schema = data[t];
    if (schema === undefined) throw new Error(`bug: the ${what} type ${t} has no data schema`);
    return {
      if: { properties: { type: { const: t } }, required: ["type"] },
      then: { properties: { data: limitsSchemaToJson(schema) } },
    };
  });
}

/**
 * A limit entry as the loader reads it: a name, then either `type` and `data`
 * (checked by the type's schema), or `clone` (another limit's name) with
 * `description` and `data` merged over that limit's: then `type` is ignored and
 * the merged data is checked when the file loads, so the schema cannot check it.
 */
function limitEntry(): JsonSchema {
  return {
    type: "object",
    properties: {
      name: { type: "string" },
      description: { type: "string" },
      type: {},
      data: {},
      invert: { type: "boolean" },
      clone: {
        type: "string",
        description:
          "the name of an earlier limit whose type and data this one takes, `data` merged over them",
      },
    },
    required: ["name"],
    if: { required: ["clone"] },
    then: { required: ["clone", "description", "data"] },
    else: {
      required: ["type", "data"],
      properties: { type: { enum: [...LIMIT_TYPES] } },
      allOf: dataByType(LIMIT_TYPES, LIMIT_DATA, "limit"),
    },
  };
}

/** One schema version of the file; identifier and limit entries refer to the shared definitions. */
function version(v: number): JsonSchema {
  const base = limitsSchemaToJson(CONFIGURATION_SCHEMAS[v]);
  const props = base.properties as Record<string, JsonSchema>;
  props.identifiers = { type: "array", items: { $ref: "#/$defs/identifier" } };
  props.limits = { type: "array", items: { $ref: "#/$defs/limit" } };
  return { ...base, title: `schema ${v}` };
}

/** An identifier entry (the same in every version), its data checked by its type. */
function identifierEntry(): JsonSchema {
  const entry = limitsSchemaToJson(CONFIGURATION_SCHEMAS[1]);
  const identifier = ((entry.properties as Record<string, JsonSchema>).identifiers as JsonSchema)
    .items as JsonSchema;
  (identifier.properties as Record<string, JsonSchema>).type = { enum: [...IDENTIFIER_TYPES] };
  return { ...identifier, allOf: dataByType(IDENTIFIER_TYPES, IDENTIFIER_DATA, "identifier") };
}

/** The JSON Schema of limits.json (pScheduler's limits.conf): one of the four schema versions. */
export function limitsJsonSchema(): JsonSchema {
  const versions = Object.keys(CONFIGURATION_SCHEMAS)
    .map(Number)
    .sort((a, b) => a - b);
  return {
    title: "Arbiter limits policy (pScheduler limits.conf)",
    description: "pScheduler's limit configuration; members whose names start with # are comments",
    oneOf: versions.map(version),
    $defs: { identifier: identifierEntry(), limit: limitEntry() },
  };
}
