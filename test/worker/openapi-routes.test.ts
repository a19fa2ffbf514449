/**
 * Every operation of the OpenAPI document the Worker serves, checked against a real
 * answer of the Worker in workerd: the example request of test/worker/openapi-examples.ts
 * (one row per operationId; an operation without a row fails here) is sent, its status
 * must be documented for the operation, its content type documented for that status,
 * and its body valid against the documented schema. Operations reading a JSON body
 * are also sent a malformed one, and the error must match the documented 400.
 *
 * The validator is @cfworker/json-schema (JSON Schema 2020-12) rather than ajv because
 * these checks run inside workerd, which refuses to generate code from strings, and ajv
 * compiles each schema with `new Function`; this one interprets schemas. The document's
 * own validity (OpenAPI 3.1 rules) is checked in Node: test/http/openapi-document.test.ts.
 */
import { Validator, type OutputUnit } from "@cfworker/json-schema";
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ROUTE_EXAMPLES, type RouteExample } from "./openapi-examples.js";

const BASE = "http://arbiter.test";

interface Media {
  schema?: Record<string, unknown>;
  example?: unknown;
}
interface Operation {
  operationId: string;
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
}

const doc = (await (await SELF.fetch(`${BASE}/v1/openapi.json`)).json()) as Document;

/** `#/components/schemas/X` references, rewritten to `#/$defs/X` so a schema validates on its own. */
function standalone(schema: Record<string, unknown>): Record<string, unknown> {
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== "object") return value;
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === "$ref" && typeof v === "string" ? v.replace("#/components/schemas/", "#/$defs/") : rewrite(v),
      ]),
    );
  };
  return { ...(rewrite(schema) as object), $defs: rewrite(doc.components.schemas) };
}

/** The schema violations of a value, as readable lines (empty when it is valid). */
function violations(schema: Record<string, unknown>, value: unknown): string[] {
  const result = new Validator(standalone(schema) as never, "2020-12", false).validate(value);
  return result.valid
    ? []
    : result.errors.map((e: OutputUnit) => `${e.instanceLocation} ${e.keywordLocation}: ${e.error}`);
}

const fill = (template: string, vars: Record<string, string>) =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => vars[name] ?? `{${name}}`);
const templatePattern = (path: string) =>
  new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{\w+\}/g, "[^/]+")}$`);

/** Checks one answer against the document: status declared, content type declared, body valid. */
async function checkAnswer(op: Operation, res: Response, wantStatus: number): Promise<void> {
  const text = await res.text();
  expect(res.status, text).toBe(wantStatus);
  const declared = op.responses[String(wantStatus)];
  expect(declared, `status ${wantStatus} is not documented for ${op.operationId}`).toBeDefined();
  const type = (res.headers.get("content-type") ?? "").split(";")[0].trim();
  const media = declared.content?.[type];
  expect(
    media,
    `${op.operationId} ${wantStatus} answered ${type}, documented ${Object.keys(declared.content ?? {}).join(", ")}`,
  ).toBeDefined();
  const schema = media?.schema ?? {};
  const value: unknown = type === "application/json" ? JSON.parse(text) : text;
  expect(violations(schema, value), text.slice(0, 2000)).toEqual([]);
}

async function send(
  method: string,
  path: string,
  example: RouteExample,
  vars: Record<string, string>,
): Promise<Response> {
  const body =
    typeof example.body === "function"
      ? (example.body as (v: Record<string, string>) => unknown)(vars)
      : example.body;
  const text = typeof example.text === "function" ? example.text(vars) : example.text;
  const init: RequestInit = { method: method.toUpperCase() };
  if (body !== undefined) {
    init.headers = { "content-type": "application/json" };
    init.body = JSON.stringify(body);
  } else if (text !== undefined) {
    init.headers = { "content-type": "text/plain" };
    init.body = text;
  }
  return SELF.fetch(BASE + path, init);
}

const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({ path, method, op })),
);

describe("every documented operation answers as documented", () => {
  it("the document lists operations, and every example row names one of them", () => {
    expect(operations.length).toBeGreaterThan(20);
    const ids = new Set(operations.map((o) => o.op.operationId));
    expect(Object.keys(ROUTE_EXAMPLES).filter((id) => !ids.has(id))).toEqual([]);
  });

  it("every example answer in the document is valid against its schema", () => {
    const examples = operations.flatMap(({ op }) =>
      Object.entries(op.responses).flatMap(([status, r]) =>
        Object.values(r.content ?? {})
          .filter((m) => m.example !== undefined)
          .map((m) => ({ at: `${op.operationId} ${status}`, schema: m.schema ?? {}, example: m.example })),
      ),
    );
    expect(examples.length).toBeGreaterThan(0);
    for (const e of examples) expect(violations(e.schema, e.example), e.at).toEqual([]);
  });

  for (const { path, method, op } of operations) {
    it(`${method.toUpperCase()} ${path} (${op.operationId})`, async () => {
      const example = ROUTE_EXAMPLES[op.operationId];
      expect(
        example,
        `no example row for ${op.operationId}: add one to test/worker/openapi-examples.ts`,
      ).toBeDefined();
      const vars = example.vars ? await example.vars() : {};
      const url = new URL(BASE + fill(example.path, vars));
      expect(url.pathname, `the example of ${op.operationId} is not a request to ${path}`).toMatch(
        templatePattern(path),
      );
      const query = new Set((op.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name));
      for (const name of url.searchParams.keys())
        expect(query.has(name), `query parameter \`${name}\` is not documented for ${op.operationId}`).toBe(
          true,
        );
      await checkAnswer(
        op,
        await send(method, url.pathname + url.search, example, vars),
        example.status ?? 200,
      );
    });

    if (op.requestBody?.content["application/json"] !== undefined) {
      it(`${method.toUpperCase()} ${path} (${op.operationId}) answers a malformed body with its documented 400`, async () => {
        const example = ROUTE_EXAMPLES[op.operationId];
        expect(example).toBeDefined();
        const vars = example.vars ? await example.vars() : {};
        const url = new URL(BASE + fill(example.path, vars));
        const res = await SELF.fetch(url, {
          method: method.toUpperCase(),
          headers: { "content-type": "application/json" },
          body: "{",
        });
        await checkAnswer(op, res, 400);
      });
    }
  }
});
