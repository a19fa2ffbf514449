/**
 * The OpenAPI document the Worker serves at `/v1/openapi.json` is valid OpenAPI 3.1,
 * checked by a maintained validator (@readme/openapi-parser: the OpenAPI 3.1 JSON
 * Schema plus the specification's own rules), and declares for every operation its
 * operationId, its query parameters and its 4xx responses. The per-route check of
 * real responses against it runs in workerd (test/worker/openapi-routes.test.ts).
 * The document is fetched from the server `npm start` runs (wrangler dev, started
 * here on a free loopback port): the validator needs Node, and the routes import
 * the Durable Object classes, which exist only in workerd.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { validate } from "@readme/openapi-parser";
import type { OpenAPIV3_1 } from "openapi-types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../support/cases.js";
import { startDevServer, type DevServer } from "../support/dev-server.js";

type Document = OpenAPIV3_1.Document;
type OperationObject = OpenAPIV3_1.OperationObject;

let server: DevServer;
let fetched: Document;

beforeAll(async () => {
  server = await startDevServer();
  const res = await fetch(`${server.url}/v1/openapi.json`);
  expect(res.status).toBe(200);
  fetched = (await res.json()) as Document;
}, 180_000);

afterAll(async () => {
  await server?.stop();
}, 30_000);

/** A fresh copy of the served document (the validator may rewrite what it is given). */
async function served(): Promise<Document> {
  return structuredClone(fetched);
}

function operations(doc: Document): { method: string; path: string; op: OperationObject }[] {
  const out: { method: string; path: string; op: OperationObject }[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(item ?? {}))
      out.push({ method, path, op: op as OperationObject });
  }
  return out;
}

describe("GET /v1/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document, without errors or warnings", async () => {
    const doc = await served();
    expect(doc.openapi).toBe("3.1.0");
    // The validator resolves and may rewrite what it is given: hand it a copy.
    const result = await validate(structuredClone(doc) as never);
    const problems = result.valid ? [] : result.errors.map((e) => e.message);
    expect(problems).toEqual([]);
    expect(result.warnings.map((w) => w.message)).toEqual([]);
  });

  it("declares the match request's `best` (an integer from 1 to 2,000) and the best-N answer's `counts`", async () => {
    const doc = await served();
    const op = doc.paths?.["/v1/match"]?.post as OperationObject;
    const deref = (s: unknown): Record<string, unknown> => {
      const ref = (s as { $ref?: string }).$ref;
      if (ref === undefined) return s as Record<string, unknown>;
      return deref(
        ref
          .split("/")
          .slice(1)
          .reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], doc),
      );
    };
    const body = deref((op.requestBody as OpenAPIV3_1.RequestBodyObject).content["application/json"].schema);
    expect((body.properties as Record<string, unknown>).best).toMatchObject({
      type: "integer",
      minimum: 1,
      maximum: 2000,
    });
    expect(body.required).not.toContain("best");
    const answer = deref(
      (op.responses?.["200"] as OpenAPIV3_1.ResponseObject).content?.["application/json"].schema,
    );
    const counts = deref((answer.properties as Record<string, unknown>).counts);
    expect(Object.keys(counts.properties as object).sort()).toEqual([
      "discarded",
      "machines",
      "matched",
      "rejected_by_job_expr",
      "rejected_by_resource_expr",
      "unmatched",
    ]);
  });

  it("names the server that answered", async () => {
    expect((await served()).servers).toEqual([{ url: server.url }]);
  });

  it("gives every operation a unique operationId, a summary and 4xx responses in its declared shape", async () => {
    const doc = await served();
    const ids = new Set<string>();
    for (const { method, path, op } of operations(doc)) {
      const where = `${method.toUpperCase()} ${path}`;
      expect(op.operationId, where).toMatch(/^[a-z][A-Za-z0-9]*$/);
      expect(ids.has(op.operationId as string), `${where}: duplicate operationId ${op.operationId}`).toBe(
        false,
      );
      ids.add(op.operationId as string);
      expect(op.summary, where).toBeTruthy();
      const statuses = Object.keys(op.responses ?? {});
      const guarded = op.security === undefined;
      const takesInput = op.requestBody !== undefined || (op.parameters ?? []).length > 0;
      if (guarded || takesInput)
        expect(
          statuses.some((s) => /^4\d\d$/.test(s)),
          `${where} declares no 4xx response`,
        ).toBe(true);
      if (guarded)
        expect(statuses, `${where} is guarded by a token`).toEqual(expect.arrayContaining(["401", "403"]));
      const body = op.requestBody as OpenAPIV3_1.RequestBodyObject | undefined;
      if (body !== undefined) expect(statuses, `${where} reads a body`).toContain("413");
      if (body?.content["application/json"] !== undefined)
        expect(statuses, `${where} reads JSON`).toContain("400");
    }
  });

  it("answers the Ganeti filter resources' errors in Ganeti's shape, everything else in the envelope", async () => {
    const doc = await served();
    for (const { method, path, op } of operations(doc)) {
      const want =
        path.endsWith("/filters") || path.includes("/filters/")
          ? "#/components/schemas/GanetiError"
          : "#/components/schemas/Error";
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        if (!/^[45]\d\d$|^default$/.test(status)) continue;
        const schema = (response as OpenAPIV3_1.ResponseObject).content?.["application/json"]?.schema as {
          $ref?: string;
        };
        expect(schema?.$ref, `${method.toUpperCase()} ${path} ${status}`).toBe(want);
      }
    }
  });

  it("declares every query parameter the routes read", async () => {
    const doc = await served();
    const declared = new Set(
      operations(doc).flatMap(({ op }) =>
        (op.parameters ?? [])
          .map((p) => p as OpenAPIV3_1.ParameterObject)
          .filter((p) => p.in === "query")
          .map((p) => p.name),
      ),
    );
    // Every `req.query("name")` in the HTTP layer names a declared parameter.
    const dir = join(REPO_ROOT, "src/http");
    const files = readdirSync(dir, { recursive: true, encoding: "utf8" }).filter(
      (f) => f.endsWith(".ts") && !f.endsWith(".test.ts"),
    );
    const read = new Set(
      files.flatMap((f) =>
        [...readFileSync(join(dir, f), "utf8").matchAll(/req\.query\(\s*["'`]([^"'`]+)["'`]\s*\)/g)].map(
          (m) => m[1],
        ),
      ),
    );
    expect(read.size).toBeGreaterThan(0);
    for (const name of read) expect(declared.has(name), `query parameter \`${name}\``).toBe(true);
  });

  it("serves a policy's source as text/plain, as the route does", async () => {
    const doc = await served();
    const get = doc.paths?.["/v1/policies/{engine}"]?.get as OperationObject;
    expect(Object.keys((get.responses?.["200"] as OpenAPIV3_1.ResponseObject).content ?? {})).toEqual([
      "text/plain",
    ]);
  });
});
