import { z } from "zod";

/** One documented operation: the request schema (if any) and the response schema. */
export interface Operation {
  method: "get" | "post" | "put" | "delete";
  path: string;
  summary: string;
  tag: string;
  auth: "decision" | "admin" | "agent" | "none";
  request?: z.ZodType;
  response?: z.ZodType;
  /** Content type of the request body when it is not JSON (policy sources are text). */
  requestText?: string;
  /** Request headers the operation reads besides auth (`Idempotency-Key`, `If-Match`). */
  headers?: { name: string; description: string }[];
}

/** The `Idempotency-Key` header as the three non-idempotent writes document it. */
export const IDEMPOTENCY_HEADER = {
  name: "Idempotency-Key",
  description: "1 to 255 visible ASCII characters; a retry with the same key and body gets the first answer back (kept 24 hours)",
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

function jsonSchema(schema: z.ZodType): unknown {
  return z.toJSONSchema(schema, {
    target: "draft-2020-12",
    unrepresentable: "any",
    io: "input",
    // Exact integers past 2^53 (nanosecond timestamps, 64-bit priorities) are bigints inside, JSON integers outside.
    override: (ctx) => {
      if (ctx.zodSchema._zod.def.type === "bigint") Object.assign(ctx.jsonSchema, { type: "integer", format: "int64" });
    },
  });
}

const errorEnvelope = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message", "request_id"],
      properties: {
        code: { type: "string" },
        message: { type: "string" },
        request_id: { type: "string" },
        details_omitted: { type: "integer", description: "how many details past the first 50 were left out" },
        details: {
          type: "array",
          maxItems: 50,
          items: {
            type: "object",
            properties: { code: { type: "string" }, message: { type: "string" }, at: { type: "string" } },
          },
        },
      },
    },
  },
};

/** Builds the OpenAPI 3.1 document from the registered operations' zod schemas. */
export function openApiDocument(): object {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    const params: object[] = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
      name: m[1],
      in: "path",
      required: true,
      schema: { type: "string" },
    }));
    for (const h of op.headers ?? []) params.push({ name: h.name, in: "header", required: false, description: h.description, schema: { type: "string" } });
    const body = op.request
      ? { required: true, content: { "application/json": { schema: jsonSchema(op.request) } } }
      : op.requestText
        ? { required: true, content: { [op.requestText]: { schema: { type: "string" } } } }
        : undefined;
    paths[op.path] ??= {};
    paths[op.path][op.method] = {
      summary: op.summary,
      tags: [op.tag],
      ...(params.length ? { parameters: params } : {}),
      ...(body ? { requestBody: body } : {}),
      ...(op.auth === "none" ? { security: [] } : {}),
      responses: {
        "200": {
          description: "success",
          content: { "application/json": { schema: op.response ? jsonSchema(op.response) : {} } },
        },
        default: { description: "error", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: { title: "Arbiter", version: "0.1.0", description: "Policy decisions for schedulers and job queues." },
    paths,
    components: {
      schemas: { Error: errorEnvelope },
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    },
    security: [{ bearer: [] }],
  };
}
