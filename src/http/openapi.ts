import * as z from "zod";
import { ERROR_STATUS, type ErrorCode } from "./errors.js";

/** A query parameter a route reads: its name, what it does, and the JSON Schema of its value. */
export interface QueryParam {
  name: string;
  description: string;
  schema: Record<string, unknown>;
}

/** `?explain=true`: the decision's trace in the verdict (never cached). */
export const EXPLAIN_QUERY: QueryParam = {
  name: "explain",
  description:
    "`true` adds the decision's trace (`trace`) to the verdict; such requests bypass the verdict cache",
  schema: { type: "string", enum: ["true", "false"] },
};

/** `?net=N`: which network's host pool (customs' network number). */
export const NET_QUERY: QueryParam = {
  name: "net",
  description: "the network number of the host pool (default 0)",
  schema: { type: "string", pattern: "^(0|[1-9][0-9]{0,9})$", default: "0" },
};

/** `?bulk=1`: Ganeti RAPI's full listing instead of references. */
export const BULK_QUERY: QueryParam = {
  name: "bulk",
  description: "a non-zero integer lists the full rules instead of `{uuid, uri}` references (Ganeti RAPI)",
  schema: { type: "string", pattern: "^\\s*[+-]?[0-9]+\\s*$" },
};

/** One documented operation: the request schema (if any) and the response schema. */
export interface Operation {
  /** Unique, camelCase: the name clients generated from the document use. */
  operationId: string;
  method: "get" | "post" | "put" | "delete";
  path: string;
  summary: string;
  tag: string;
  auth: "decision" | "admin" | "agent" | "metrics" | "none";
  /**
   * The request body's schema, or a function making it (built when `/v1/openapi.json` is first
   * asked for, or by the route's own first request, whichever comes first; docs/performance.md,
   * wt/lazyschema2).
   */
  request?: z.ZodType | (() => z.ZodType);
  /**
   * The success body's schema, or a function making it: a schema only the document shows is
   * then built when `/v1/openapi.json` is first asked for, not in every isolate at load
   * (docs/performance.md, wt/lazyschema).
   */
  response?: z.ZodType | (() => z.ZodType);
  /** Content type of the request body when it is not JSON (policy sources are text). */
  requestText?: string;
  /** Content type of the success body when it is not JSON (a policy's source text). */
  responseText?: string;
  /** Another content type the success body may have beside JSON (a query parameter asks for it). */
  alsoText?: string;
  /** The query parameters the route reads. */
  query?: QueryParam[];
  /**
   * The error codes this route answers with beyond those every route of its
   * kind can give (auth errors when it is guarded, body errors when it reads a body).
   */
  errors?: ErrorCode[];
  /** Errors in Arbiter's envelope (default), or in Ganeti RAPI's `{code, message, explain}`. */
  errorShape?: "arbiter" | "ganeti";
  /** Request headers the operation reads besides auth (`Idempotency-Key`, `If-Match`). */
  headers?: { name: string; description: string }[];
  /** An example of the success body, shown as the response's `example` (JSON: checked against its schema by test/worker/openapi-routes.test.ts; text: a sample of it). */
  example?: unknown;
}

/** The `Idempotency-Key` header as the three non-idempotent writes document it. */
export const IDEMPOTENCY_HEADER = {
  name: "Idempotency-Key",
  description:
    "1 to 255 visible ASCII characters; a retry with the same key and body gets the first answer back (kept 24 hours)",
};

const operations: Operation[] = [];

/** Records an operation for `/v1/openapi.json`; route modules call it beside their handlers. */
export function registerOperation(op: Operation): void {
  operations.push(op);
}

/** Every registered operation, for tests that compare the document with the routes. */
export function listOperations(): readonly Operation[] {
  return operations;
}

type JsonSchema = Record<string, unknown>;

/**
 * A zod schema as JSON Schema 2020-12 for the document. zod puts recursive parts
 * under the schema's own `$defs`, which `#/$defs/…` references resolve against the
 * whole document; they are moved to `components/schemas` under a name unique to
 * the operation, and the references rewritten to point there.
 */
function jsonSchema(
  schema: z.ZodType,
  io: "input" | "output",
  prefix: string,
  components: Record<string, unknown>,
): JsonSchema {
  const out = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    unrepresentable: "any",
    io,
    // Exact integers past 2^53 (nanosecond timestamps, 64-bit priorities) are bigints inside, JSON integers outside.
    override: (ctx) => {
      if (ctx.zodSchema._zod.def.type === "bigint")
        Object.assign(ctx.jsonSchema, { type: "integer", format: "int64" });
    },
  }) as JsonSchema;
  delete out.$schema;
  const defs = out.$defs as Record<string, unknown> | undefined;
  delete out.$defs;
  if (defs === undefined) return out;
  const rename = (name: string) => `${prefix}_${name.replace(/^_+/, "")}`;
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== "object") return value;
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      copy[k] =
        k === "$ref" && typeof v === "string" && v.startsWith("#/$defs/")
          ? `#/components/schemas/${rename(v.slice(8))}`
          : rewrite(v);
    }
    return copy;
  };
  for (const [name, def] of Object.entries(defs)) components[rename(name)] = rewrite(def);
  return rewrite(out) as JsonSchema;
}

const errorEnvelope = {
  type: "object",
  required: ["error"],
  additionalProperties: false,
  properties: {
    error: {
      type: "object",
      required: ["code", "message", "request_id"],
      additionalProperties: false,
      properties: {
        code: { type: "string", enum: Object.keys(ERROR_STATUS) },
        message: { type: "string" },
        request_id: { type: "string" },
        side: {
          type: "string",
          enum: ["old", "new"],
          description:
            "which of the two policies a diff was given failed validation (`policy_invalid` of `POST /v1/policies/{engine}/diff`)",
        },
        details: {
          type: "array",
          items: {
            type: "object",
            required: ["code", "message"],
            properties: {
              code: { type: "string" },
              message: { type: "string" },
              at: { type: "string" },
              suggestion: {
                type: "string",
                description: "the known name closest to a wrong one (did-you-mean)",
              },
            },
          },
        },
        details_omitted: {
          type: "integer",
          minimum: 1,
          description: "how many further details were left out of `details` (only the first ones are listed)",
        },
      },
    },
  },
};

const ganetiError = {
  type: "object",
  description:
    "Ganeti RAPI's error body: the HTTP status as `code`, a message, and the status's standard explanation",
  required: ["code", "message", "explain"],
  additionalProperties: false,
  properties: { code: { type: "integer" }, message: { type: "string" }, explain: { type: "string" } },
};

/** The error codes an operation can answer with: its own plus those of its kind. */
export function operationErrors(op: Operation): ErrorCode[] {
  const codes = new Set<ErrorCode>(op.errors ?? []);
  if (op.auth !== "none") codes.add("unauthorized").add("forbidden").add("auth_misconfigured");
  const jsonBody = op.request !== undefined && op.errorShape !== "ganeti";
  if (jsonBody)
    for (const c of [
      "invalid_json",
      "invalid_request",
      "nesting_too_deep",
      "too_many_items",
      "unsupported_media_type",
    ] as const)
      codes.add(c);
  // Ganeti RAPI: 415 for a body that is not `application/json`, 400 for any other bad body.
  else if (op.request !== undefined) codes.add("invalid_request").add("unsupported_media_type");
  if (op.request !== undefined || op.requestText !== undefined) codes.add("payload_too_large");
  // A malformed key is a 400; a key reused with another body a 422.
  if (op.headers?.includes(IDEMPOTENCY_HEADER)) codes.add("invalid_request").add("idempotency_key_reused");
  return [...codes];
}

/** The 4xx responses of an operation, one per status, naming the codes each carries. */
function errorResponses(op: Operation): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of operationErrors(op)) {
    const status = ERROR_STATUS[code];
    if (status >= 500) continue;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const schema = {
    $ref: op.errorShape === "ganeti" ? "#/components/schemas/GanetiError" : "#/components/schemas/Error",
  };
  const out: Record<string, unknown> = {};
  for (const [status, codes] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const description =
      op.errorShape === "ganeti"
        ? `Ganeti RAPI error (${codes.map((c) => `\`${c}\``).join(", ")})`
        : codes.map((c) => `\`${c}\``).join(", ");
    out[String(status)] = { description, content: { "application/json": { schema } } };
  }
  return out;
}

/** An operation's request schema, made once when it was registered as a function. */
export function requestSchema(op: Operation): z.ZodType {
  if (typeof op.request === "function") op.request = op.request();
  return op.request as z.ZodType;
}

/** An operation's success schema, made once when it was registered as a function. */
export function responseSchema(op: Operation): z.ZodType {
  if (typeof op.response === "function") op.response = op.response();
  return op.response as z.ZodType;
}

/** Builds the OpenAPI 3.1 document from the registered operations' zod schemas; `origin` is the server's URL. */
export function openApiDocument(origin = "/"): object {
  const paths: Record<string, Record<string, unknown>> = {};
  const components: Record<string, unknown> = { Error: errorEnvelope, GanetiError: ganetiError };
  for (const op of operations) {
    const params: object[] = [
      ...[...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
        name: m[1],
        in: "path",
        required: true,
        schema: { type: "string" },
      })),
      ...(op.query ?? []).map((q) => ({
        name: q.name,
        in: "query",
        required: false,
        description: q.description,
        schema: q.schema,
      })),
    ];
    for (const h of op.headers ?? [])
      params.push({
        name: h.name,
        in: "header",
        required: false,
        description: h.description,
        schema: { type: "string" },
      });
    const body = op.request
      ? {
          required: true,
          content: {
            "application/json": {
              schema: jsonSchema(requestSchema(op), "input", `${op.operationId}Request`, components),
            },
          },
        }
      : op.requestText
        ? { required: true, content: { [op.requestText]: { schema: { type: "string" } } } }
        : undefined;
    const success = op.responseText
      ? {
          [op.responseText]: {
            schema: { type: "string" },
            ...(op.example === undefined ? {} : { example: op.example }),
          },
        }
      : {
          "application/json": {
            schema: op.response
              ? jsonSchema(responseSchema(op), "output", `${op.operationId}Response`, components)
              : {},
            ...(op.example === undefined ? {} : { example: op.example }),
          },
          ...(op.alsoText ? { [op.alsoText]: { schema: { type: "string" } } } : {}),
        };
    const errorSchema = {
      $ref: op.errorShape === "ganeti" ? "#/components/schemas/GanetiError" : "#/components/schemas/Error",
    };
    paths[op.path] ??= {};
    paths[op.path][op.method] = {
      operationId: op.operationId,
      summary: op.summary,
      tags: [op.tag],
      ...(params.length ? { parameters: params } : {}),
      ...(body ? { requestBody: body } : {}),
      ...(op.auth === "none" ? { security: [] } : {}),
      responses: {
        "200": { description: "success", content: success },
        ...errorResponses(op),
        default: {
          description:
            "server error (`internal_error` 500, `service_unavailable` 503, `auth_misconfigured` 503 on guarded routes)",
          content: { "application/json": { schema: errorSchema } },
        },
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Arbiter",
      version: "0.1.0",
      description: "Policy decisions for schedulers and job queues.",
    },
    servers: [{ url: origin }],
    paths,
    components: {
      schemas: components,
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    },
    security: [{ bearer: [] }],
  };
}
