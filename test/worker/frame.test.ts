import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { compileBundle, EMBEDDED_POINTER, sourcesOf } from "../../src/bundle/index.js";
import { app } from "../../src/http/app.js";
import { constantTimeEqual } from "../../src/http/auth.js";
import type { Env } from "../../src/env.js";
import { listOperations } from "../../src/http/openapi.js";
import { customsShapes } from "../../src/engines/customs/index.js";
import { placementShapes } from "../../src/engines/placement/index.js";
import { filterShapes } from "../../src/engines/jobfilter/index.js";
import { limitsVerdictSchema } from "../../src/http/schemas/limits.js";
import { placeVerdictSchema } from "../../src/http/schemas/placement.js";
import { matchVerdictSchemas } from "../../src/http/schemas/match-verdicts.js";
import { candidateSchemas } from "../../src/http/routes/candidate.js";
import { diffSchemas } from "../../src/http/schemas/diff.js";
import { historySchemas } from "../../src/http/schemas/history.js";
import { lintSchemas } from "../../src/http/schemas/lint.js";
import { queueListingSchemas } from "../../src/http/schemas/queues.js";
import { queueTreeSchemas } from "../../src/http/schemas/placement-queues.js";
import { reportSchemas } from "../../src/http/schemas/report.js";
import { hostSchemas } from "../../src/http/schemas/hosts.js";
import { jobSchemas } from "../../src/http/schemas/jobs.js";
import { playgroundSchemas } from "../../src/http/schemas/playground.js";
import { jqPlaygroundSchemas } from "../../src/http/schemas/playground-jq.js";
import { policyTestSchemas } from "../../src/http/schemas/policy-test.js";
import { jqBuiltinScope } from "../../src/jq/program.js";
import { KEPT_REQUEST_CHARS, keptRequest } from "../../src/http/decision.js";
import { bundleWithoutRead, embeddedBundle, getActiveBundle } from "../../src/state/policy-store.js";

const BASE = "http://arbiter.test";

/** Calls the real app in workerd with extra variables (tokens) on top of the test bindings. */
async function call(path: string, init: RequestInit = {}, vars: Partial<Env> = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await app.fetch(new Request(BASE + path, init), { ...(env as unknown as Env), ...vars }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

const json = (body: unknown): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

const placeRequest = { user: "sarah", groups: ["sarah", "dev_app"], tags: { namespace: "newapp" } };

describe("system routes", () => {
  // first in the file: `/v1/status` loads the limits policy (its DNS and list status), so compiles jq
  it("decides without building the schemas only the document, the admin routes and a policy compile use", async () => {
    // every stateless decision route (the limits task is rewritten and passes the jq limits, as bench:http's limits-allowed)
    const decisions: [string, unknown][] = [
      ["/v1/place", placeRequest],
      [
        "/v1/limits/decide",
        {
          requester: "203.0.113.9",
          server: "192.0.2.1",
          rewrite: true,
          task: {
            schema: 1,
            test: {
              type: "throughput",
              spec: { schema: 1, source: "192.0.2.1", dest: "ps.example.net", duration: "PT2S", parallel: 4 },
            },
            schedule: { repeat: "PT4H", slip: "PT1H" },
            tools: ["iperf3"],
          },
        },
      ],
      [
        "/v1/match",
        { job: "[ Requirements = TARGET.Memory >= 1024 ]", machines: ['[ Name = "m"; Memory = 2048 ]'] },
      ],
      ["/v1/ads/check", { kind: "startd", ad: '[ Name = "m"; Memory = 2048 ]' }],
    ];
    for (const [path, body] of decisions) {
      // jq's builtin library is compiled by the first jq compile: the limits policy's, not before
      expect(jqBuiltinScope.built, path).toBe(path !== "/v1/place" && path !== "/v1/limits/decide");
      const res = await SELF.fetch(`${BASE}${path}`, json(body));
      expect(res.status, `${path}: ${await res.text()}`).toBe(200);
    }
    // each route keeps its last small request (its hidden classes then outlive a full collection)
    expect(keptRequest("limits")?.raw).toEqual(decisions[1][1]);
    expect(keptRequest("placement")?.raw).toEqual(placeRequest);
    // and not a large one
    const machines = Array.from({ length: 600 }, () => '[ Name = "m"; Memory = 2048 ]');
    const large = await SELF.fetch(`${BASE}/v1/match`, json({ job: "[ Requirements = true ]", machines }));
    expect(large.status).toBe(200);
    expect(JSON.stringify({ machines }).length).toBeGreaterThan(KEPT_REQUEST_CHARS);
    expect(keptRequest("match")).toBeUndefined();
    const lazy = {
      customsShapes,
      placementShapes,
      filterShapes,
      limitsVerdictSchema,
      placeVerdictSchema,
      matchVerdictSchemas,
      candidateSchemas,
      diffSchemas,
      historySchemas,
      lintSchemas,
      queueListingSchemas,
      queueTreeSchemas,
      reportSchemas,
      hostSchemas,
      jobSchemas,
      playgroundSchemas,
      jqPlaygroundSchemas,
      policyTestSchemas,
    };
    for (const [name, built] of Object.entries(lazy)) expect(built.built, name).toBe(false);
    // the schemas only the document shows are made when it is first built, not at load
    for (const id of [
      "status",
      "placeApplication",
      "matchJob",
      "decideLimits",
      "checkAd",
      "getCandidate",
      "listPolicies",
    ])
      expect(typeof listOperations().find((op) => op.operationId === id)?.response, id).toBe("function");
    // so are the request schemas of the routes that validate with zod's interpreter (made on their first request)
    for (const id of [
      "reportHost",
      "allocateHost",
      "submitJob",
      "scheduleQueue",
      "addFilter",
      "playgroundDecide",
    ])
      expect(typeof listOperations().find((op) => op.operationId === id)?.request, id).toBe("function");
  });

  it("answers the health check", async () => {
    const res = await SELF.fetch(`${BASE}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });

  it("reports the embedded bundle and disabled auth on a fresh deployment", async () => {
    const res = await call("/v1/status");
    const body = (await res.json()) as Record<string, unknown>;
    expect(body.auth).toBe("disabled");
    expect(body.engines).toEqual(expect.arrayContaining(Object.keys(embeddedBundle().engines)));
    expect((body.bundle as { source: string }).source).toMatch(/embedded|kv/);
  });

  it("documents every registered route in an OpenAPI 3.1 document", async () => {
    const res = await SELF.fetch(`${BASE}/v1/openapi.json`);
    const doc = (await res.json()) as {
      openapi: string;
      paths: Record<string, Record<string, { responses: object }>>;
    };
    expect(doc.openapi).toBe("3.1.0");
    for (const op of listOperations()) {
      expect(doc.paths[op.path]?.[op.method], `${op.method} ${op.path}`).toBeDefined();
    }
    expect(doc.paths["/v1/place"]?.post).toBeDefined();
    const body = (
      doc.paths["/v1/place"].post as unknown as {
        requestBody: { content: Record<string, { schema: { properties: object } }> };
      }
    ).requestBody;
    expect(Object.keys(body.content["application/json"].schema.properties)).toContain("user");
    const statusAnswer = (
      doc.paths["/v1/status"].get as unknown as {
        responses: Record<string, { content: Record<string, { schema: { anyOf: object[] } }> }>;
      }
    ).responses["200"].content["application/json"].schema;
    expect(statusAnswer.anyOf).toHaveLength(2);
  });
});

describe("error envelope", () => {
  it("answers unknown routes with not_found and a request id", async () => {
    const res = await SELF.fetch(`${BASE}/v1/nothing-here`);
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { code: string; request_id: string } };
    expect(body.error.code).toBe("not_found");
    expect(body.error.request_id).toBe(res.headers.get("x-request-id"));
  });

  it("echoes the caller's X-Request-Id (cut to 64 characters) in the header and in an error body", async () => {
    const given = "r".repeat(80);
    const res = await call("/v1/place", {
      ...json({ user: 7 }),
      headers: { "content-type": "application/json", "x-request-id": given },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get("x-request-id")).toBe(given.slice(0, 64));
    expect(((await res.json()) as { error: { request_id: string } }).error.request_id).toBe(
      given.slice(0, 64),
    );
  });

  it("gives every answer, a decision's included, its own fresh request id", async () => {
    const a = await call("/v1/place", json(placeRequest));
    const b = await call("/v1/place", json(placeRequest));
    expect(a.status).toBe(200);
    expect(a.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.headers.get("x-request-id")).not.toBe(b.headers.get("x-request-id"));
  });

  it("answers a known route with the wrong method with 405 and Allow", async () => {
    const res = await SELF.fetch(`${BASE}/v1/place`, { method: "GET" });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("method_not_allowed");
    const withParam = await SELF.fetch(`${BASE}/v1/policies/placement`, { method: "DELETE" });
    expect(withParam.status).toBe(405);
    expect(withParam.headers.get("allow")).toBe("GET, PUT");
  });

  it("rejects malformed JSON with 400 invalid_json", async () => {
    const res = await SELF.fetch(`${BASE}/v1/place`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{",
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("invalid_json");
  });

  it("rejects a wrong content type with 415", async () => {
    const res = await SELF.fetch(`${BASE}/v1/place`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "{}",
    });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("unsupported_media_type");
  });

  it("rejects a body over 1 MiB with 413", async () => {
    const big = JSON.stringify({ user: "x".repeat(1024 * 1024 + 10) });
    const res = await SELF.fetch(`${BASE}/v1/place`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: big,
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("payload_too_large");
  });

  it("reads a streamed body without a declared length, up to 1 MiB: multi-byte characters split across chunks survive, more is 413", async () => {
    const streamed = (parts: Uint8Array[]) =>
      new ReadableStream<Uint8Array>({
        pull(controller) {
          const next = parts.shift();
          if (next === undefined) controller.close();
          else controller.enqueue(next);
        },
      });
    // an unknown key is named in the answer: the key as the Worker decoded it
    const bytes = new TextEncoder().encode(
      JSON.stringify({ user: "alice", application_id: "app-1", zoë: 1 }),
    );
    const split = bytes.indexOf(0xc3) + 1; // between the two bytes of ë
    const named = await SELF.fetch(`${BASE}/v1/place`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: streamed([bytes.slice(0, split), bytes.slice(split)]),
    });
    expect(named.status).toBe(400);
    const details = ((await named.json()) as { error: { details: { at: string }[] } }).error.details;
    expect(details.map((d) => d.at)).toContain("/zoë");
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    const big = await SELF.fetch(`${BASE}/v1/place`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: streamed(Array.from({ length: 40 }, () => chunk)),
    });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { code: string } }).error.code).toBe("payload_too_large");
  });

  it("names the offending field of a schema violation", async () => {
    const res = await SELF.fetch(`${BASE}/v1/place`, json({ user: 42 }));
    expect(res.status).toBe(400);
    const body = (await res.json()) as {
      error: { code: string; message: string; details: { at: string }[] };
    };
    expect(body.error.code).toBe("invalid_request");
    expect(body.error.message).toContain("`user`");
    expect(body.error.details[0].at).toBe("/user");
  });
});

describe("auth", () => {
  const vars = { ADMIN_TOKEN: "admin-secret", DECISION_TOKENS: "d1, d2" };

  it("compares tokens in constant time but correctly", () => {
    expect(constantTimeEqual("abc", "abc")).toBe(true);
    expect(constantTimeEqual("abc", "abd")).toBe(false);
    expect(constantTimeEqual("abc", "abcd")).toBe(false);
    expect(constantTimeEqual("", "")).toBe(true);
    expect(constantTimeEqual("abcd", "abc")).toBe(false);
    // text beyond ASCII: equal exactly when the UTF-8 bytes are (a header's UTF-8 read byte by byte is another text)
    expect(constantTimeEqual("pässwort", "pässwort")).toBe(true);
    expect(constantTimeEqual("pässwort", "passwort")).toBe(false);
    expect(constantTimeEqual("ä", "\u00c3\u00a4")).toBe(false);
  });

  it("asks for a token when one is configured", async () => {
    const res = await call("/v1/place", json(placeRequest), vars);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
  });

  it("refuses a wrong token with 403", async () => {
    const init = json(placeRequest);
    init.headers = { ...(init.headers as object), authorization: "Bearer nope" };
    const res = await call("/v1/place", init, vars);
    expect(res.status).toBe(403);
  });

  it("accepts any configured decision token and the admin token on decision routes", async () => {
    for (const token of ["d1", "d2", "admin-secret"]) {
      const init = json(placeRequest);
      init.headers = { ...(init.headers as object), authorization: `Bearer ${token}` };
      expect((await call("/v1/place", init, vars)).status, token).toBe(200);
    }
  });

  it("keeps admin routes for the admin token", async () => {
    const asDecision = await call("/v1/policies", { headers: { authorization: "Bearer d1" } }, vars);
    expect(asDecision.status).toBe(403);
    const asAdmin = await call("/v1/policies", { headers: { authorization: "Bearer admin-secret" } }, vars);
    expect(asAdmin.status).toBe(200);
  });

  it("says auth is enabled in the status", async () => {
    const body = (await (await call("/v1/status", {}, vars)).json()) as { auth: string };
    expect(body.auth).toBe("enabled");
  });
});

describe("verdicts", () => {
  it("carry a unique decision id, the revision and cacheable", async () => {
    const a = (await (await SELF.fetch(`${BASE}/v1/place`, json(placeRequest))).json()) as Record<
      string,
      unknown
    >;
    const b = (await (await SELF.fetch(`${BASE}/v1/place`, json(placeRequest))).json()) as Record<
      string,
      unknown
    >;
    expect(a.decision_id).not.toBe(b.decision_id);
    expect(typeof a.revision).toBe("string");
    expect(a.cacheable).toBe(true);
  });

  it("add the trace only when explain is asked for", async () => {
    const plain = (await (await SELF.fetch(`${BASE}/v1/place`, json(placeRequest))).json()) as Record<
      string,
      unknown
    >;
    expect(plain.trace).toBeUndefined();
    const explained = (await (
      await SELF.fetch(`${BASE}/v1/place?explain=true`, json(placeRequest))
    ).json()) as Record<string, unknown>;
    expect(explained.trace).toBeDefined();
  });

  it("make no runtime object the answer does not need: the answer's headers and status are never read on the way out", async () => {
    const getter = Object.getOwnPropertyDescriptor(Response.prototype, "headers")?.get as (
      this: Response,
    ) => Headers;
    const statusGetter = Object.getOwnPropertyDescriptor(Response.prototype, "status")?.get as (
      this: Response,
    ) => number;
    const read = new Set<Response>();
    const statusRead = new Set<Response>();
    Object.defineProperty(Response.prototype, "headers", {
      configurable: true,
      get(this: Response) {
        read.add(this);
        return getter.call(this);
      },
    });
    // each read of an answer's status is a call into the runtime too: a decision's answer is a 200 the Worker made
    Object.defineProperty(Response.prototype, "status", {
      configurable: true,
      get(this: Response) {
        statusRead.add(this);
        return statusGetter.call(this);
      },
    });
    let res: Response;
    try {
      res = await call("/v1/place", json(placeRequest));
    } finally {
      Object.defineProperty(Response.prototype, "headers", { configurable: true, get: getter });
      Object.defineProperty(Response.prototype, "status", { configurable: true, get: statusGetter });
    }
    expect(res.status).toBe(200);
    expect(read.has(res)).toBe(false);
    expect(statusRead.has(res)).toBe(false);
    expect(res.headers.get("x-arbiter-cache")).toMatch(/^(hit|miss|bypass)$/);
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("carry their three headers, the content type JSON's and each answer its own request id", async () => {
    const answers: Response[] = [];
    for (let i = 0; i < 3; i++) answers.push(await call("/v1/place", json(placeRequest)));
    answers.push(await call("/v1/place?explain=true", json(placeRequest)));
    const ids = new Set<string>();
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect([...res.headers.keys()].sort()).toEqual(["content-type", "x-arbiter-cache", "x-request-id"]);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
      ids.add(res.headers.get("x-request-id") as string);
    }
    expect(ids.size).toBe(4);
    expect(answers[3].headers.get("x-arbiter-cache")).toBe("bypass");
    expect(answers[2].headers.get("x-arbiter-cache")).toMatch(/^(hit|miss)$/);
  });

  it("read the request's URL, method and headers object once and only the headers their route uses", async () => {
    const urlGetter = Object.getOwnPropertyDescriptor(Request.prototype, "url")?.get as (
      this: Request,
    ) => string;
    const headersGetter = Object.getOwnPropertyDescriptor(Request.prototype, "headers")?.get as (
      this: Request,
    ) => Headers;
    const methodGetter = Object.getOwnPropertyDescriptor(Request.prototype, "method")?.get as (
      this: Request,
    ) => string;
    const headerGet = Headers.prototype.get;
    let urlReads = 0;
    let headersReads = 0;
    let methodReads = 0;
    const headerReads: string[] = [];
    Object.defineProperty(Request.prototype, "url", {
      configurable: true,
      get(this: Request) {
        urlReads++;
        return urlGetter.call(this);
      },
    });
    Object.defineProperty(Request.prototype, "headers", {
      configurable: true,
      get(this: Request) {
        headersReads++;
        return headersGetter.call(this);
      },
    });
    Object.defineProperty(Request.prototype, "method", {
      configurable: true,
      get(this: Request) {
        methodReads++;
        return methodGetter.call(this);
      },
    });
    Headers.prototype.get = function (this: Headers, name: string) {
      headerReads.push(name.toLowerCase());
      return headerGet.call(this, name);
    };
    const task = { schema: 1, test: { type: "throughput", spec: { schema: 1, dest: "192.0.2.1" } } };
    const encode = TextEncoder.prototype.encode;
    let encodes = 0;
    TextEncoder.prototype.encode = function (this: TextEncoder, text?: string) {
      encodes++;
      return encode.call(this, text);
    };
    const send = async (
      path: string,
      body: unknown,
      vars: Partial<Env> = {},
      more: Record<string, string> = {},
    ) => {
      urlReads = 0;
      headersReads = 0;
      methodReads = 0;
      encodes = 0;
      headerReads.length = 0;
      const ctx = createExecutionContext();
      const request = new Request(BASE + path, {
        ...json(body),
        headers: { "content-type": "application/json", "cf-connecting-ip": "192.0.2.9", ...more },
      });
      const res = await app.fetch(
        request,
        { ...(env as unknown as Env), VERDICT_CACHE_SECONDS: "0", ...vars },
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return res;
    };
    let place: Response;
    let named: Response;
    let unnamed: Response;
    let placeReads: string[];
    let namedReads: string[];
    let unnamedReads: string[];
    try {
      place = await send("/v1/place", placeRequest);
      placeReads = [...headerReads];
      // the router's path, the metrics series and the `explain` check share one reading
      expect(urlReads).toBe(1);
      // the request id, the body's type and length share one (each is a call into the runtime)
      expect(headersReads).toBe(1);
      // Hono's dispatch reads the method; the metrics series takes the method it matched with
      expect(methodReads).toBe(1);
      named = await send("/v1/limits/decide", { requester: "198.51.100.7", task });
      namedReads = [...headerReads];
      unnamed = await send("/v1/limits/decide", { task });
      unnamedReads = [...headerReads];
      // with a token configured, the bearer token is read from the same headers object and compared as text (nothing encoded)
      const tokens = { DECISION_TOKENS: "d1, d2" };
      const guarded = await send("/v1/limits/decide", { requester: "198.51.100.7", task }, tokens, {
        authorization: "Bearer d2",
      });
      expect(guarded.status).toBe(200);
      expect(headersReads).toBe(1);
      expect(headerReads.filter((h) => h === "authorization")).toHaveLength(1);
      expect(encodes).toBe(0);
      const refused = await send("/v1/limits/decide", { task }, tokens, { authorization: "Bearer d3" });
      expect(refused.status).toBe(403);
      expect([headersReads, encodes]).toEqual([1, 0]);
    } finally {
      TextEncoder.prototype.encode = encode;
      Object.defineProperty(Request.prototype, "url", { configurable: true, get: urlGetter });
      Object.defineProperty(Request.prototype, "headers", { configurable: true, get: headersGetter });
      Object.defineProperty(Request.prototype, "method", { configurable: true, get: methodGetter });
      Headers.prototype.get = headerGet;
    }
    expect([place.status, named.status, unnamed.status]).toEqual([200, 200, 200]);
    // placement does not use the connecting address, nor limits when the body names the requester
    expect(placeReads).not.toContain("cf-connecting-ip");
    expect(placeReads.filter((h) => h === "x-request-id")).toHaveLength(1);
    expect(namedReads).not.toContain("cf-connecting-ip");
    expect(((await named.json()) as { diagnostics: string }).diagnostics).toContain(
      "requester: 198.51.100.7",
    );
    // a body without one: the connecting address is the requester, read once
    expect(unnamedReads.filter((h) => h === "cf-connecting-ip")).toHaveLength(1);
    expect(((await unnamed.json()) as { diagnostics: string }).diagnostics).toContain("requester: 192.0.2.9");
  });

  it("leave the runtime's request and answer objects unmodified (a young collection may then drop their wrappers)", async () => {
    const ctx = createExecutionContext();
    const request = new Request(`${BASE}/v1/place`, json(placeRequest));
    const res = await app.fetch(request, env as unknown as Env, ctx);
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(Reflect.ownKeys(request)).toEqual([]);
    expect(Reflect.ownKeys(res)).toEqual([]);
    // an error answer, made by Hono's context, carries the same id as its body
    const bad = await app.fetch(
      new Request(`${BASE}/v1/place`, { ...json(placeRequest), headers: { "x-request-id": "r-1" } }),
      env as unknown as Env,
      ctx,
    );
    expect(bad.status).toBe(415);
    expect(bad.headers.get("x-request-id")).toBe("r-1");
    expect(((await bad.json()) as { error: { request_id: string } }).error.request_id).toBe("r-1");
  });

  it("take the isolate's bundle without a promise while it is fresh, and only then", async () => {
    await call("/v1/place", json(placeRequest));
    const now = Date.now();
    const fresh = bundleWithoutRead(env as unknown as Env, now);
    expect(fresh).toBeDefined();
    expect(fresh).toBe(await getActiveBundle(env as unknown as Env, now));
    // past the refresh interval (1 s in tests) the view is due a read, which only getActiveBundle makes
    expect(bundleWithoutRead(env as unknown as Env, now + 60_000)).toBeUndefined();
  });

  it("are routed by a match kept per method for a fixed path, the same one every time", () => {
    const first = app.router.match("POST", "/v1/place");
    expect(app.router.match("POST", "/v1/place")).toBe(first);
    expect(app.router.match("GET", "/v1/place")).not.toBe(first);
    // a path with a parameter is matched afresh, with its own parameters
    expect(app.router.match("GET", "/v1/policies/limits")).not.toBe(
      app.router.match("GET", "/v1/policies/limits"),
    );
  });
});

describe("publishing policies", () => {
  const validPlacement = `partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
        queues:
          - name: fixedq
    placementrules:
      - name: fixed
        value: root.fixedq
`;

  async function waitForRevision(revision: string): Promise<Record<string, unknown>> {
    let last: Record<string, unknown> = {};
    for (let i = 0; i < 40; i++) {
      last = (await (await SELF.fetch(`${BASE}/v1/place`, json(placeRequest))).json()) as Record<
        string,
        unknown
      >;
      if (last.revision === revision) return last;
      await new Promise((r) => setTimeout(r, 100));
    }
    return last;
  }

  it("activates a valid policy and serves it", async () => {
    const res = await SELF.fetch(`${BASE}/v1/policies/placement`, { method: "PUT", body: validPlacement });
    expect(res.status).toBe(200);
    const { revision } = (await res.json()) as { revision: string };
    expect(revision).toMatch(/^[0-9a-f]{64}$/);
    expect(await env.POLICIES.get("bundle:current")).toBe(revision);
    const verdict = await waitForRevision(revision);
    expect(verdict.queue).toBe("root.fixedq");
    const listed = (await (await SELF.fetch(`${BASE}/v1/policies`)).json()) as {
      revision: string;
      source: string;
    };
    expect(listed).toMatchObject({ revision, source: "kv" });
    const source = await (await SELF.fetch(`${BASE}/v1/policies/placement`)).text();
    expect(source).toBe(validPlacement);
  });

  it("never activates a broken policy: 422, nothing written, the old revision stays", async () => {
    const good = (await (
      await SELF.fetch(`${BASE}/v1/policies/placement`, { method: "PUT", body: validPlacement })
    ).json()) as {
      revision: string;
    };
    const keysBefore = (await env.POLICIES.list()).keys.map((k) => k.name).sort();
    const res = await SELF.fetch(`${BASE}/v1/policies/placement`, {
      method: "PUT",
      body: "partitions: [{name: default, placementrules: [{name: bogus}]}]",
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as {
      error: { code: string; details: { code: string; message: string; at: string }[] };
    };
    expect(body.error.code).toBe("policy_invalid");
    expect(body.error.details.length).toBeGreaterThan(0);
    expect((await env.POLICIES.list()).keys.map((k) => k.name).sort()).toEqual(keysBefore);
    expect(await env.POLICIES.get("bundle:current")).toBe(good.revision);
    expect((await waitForRevision(good.revision)).revision).toBe(good.revision);
  });

  it("answers 422 with every error placed by line and column", async () => {
    const placement =
      "partitions:\n  - name: default\n    queues:\n      - name: root\n        bogus: 1\n    placementrules:\n      - name: fixed\n        valu: root.x\n";
    const res = await SELF.fetch(`${BASE}/v1/policies/placement/validate`, {
      method: "POST",
      body: placement,
    });
    expect(res.status).toBe(422);
    const body = (await res.json()) as {
      error: { message: string; details: { code: string; at: string }[] };
    };
    expect(body.error.details.map((d) => [d.code, d.at])).toEqual([
      ["placement_unknown_key", "5:9"],
      ["placement_unknown_key", "8:9"],
    ]);
    expect(body.error.message).toContain("(at 5:9)");
    const customs = await SELF.fetch(`${BASE}/v1/policies/customs/validate`, {
      method: "POST",
      body: '{\n  "defaults": {"maxLoad": 2\n}\n',
    });
    const detail = ((await customs.json()) as { error: { details: { message: string; at: string }[] } }).error
      .details[0];
    expect(detail).toMatchObject({ message: "not valid JSON: Expecting ',' delimiter", at: "4:1" });
  });

  it("validates without writing", async () => {
    const keysBefore = (await env.POLICIES.list()).keys.length;
    const ok = await SELF.fetch(`${BASE}/v1/policies/placement/validate`, {
      method: "POST",
      body: validPlacement,
    });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { valid: boolean }).valid).toBe(true);
    const bad = await SELF.fetch(`${BASE}/v1/policies/placement/validate`, {
      method: "POST",
      body: "partitions: 7",
    });
    expect(bad.status).toBe(422);
    expect((await env.POLICIES.list()).keys.length).toBe(keysBefore);
  });

  it("answers unknown engines with 404", async () => {
    const res = await SELF.fetch(`${BASE}/v1/policies/nope`, { method: "PUT", body: "x" });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("unknown_engine");
  });

  it("reaches a warm isolate through the pointer after the refresh interval", async () => {
    // Warm the isolate on the current revision.
    const before = (await (await SELF.fetch(`${BASE}/v1/place`, json(placeRequest))).json()) as {
      revision: string;
    };
    // Another writer (the CLI's publish) switches the pointer behind this isolate's back.
    const sources = sourcesOf(embeddedBundle());
    sources.placement = validPlacement.replace("fixedq", "otherq").replace("root.fixedq", "root.otherq");
    const next = await compileBundle(sources, new Date().toISOString());
    if (!next.ok) throw new Error(JSON.stringify(next.error));
    expect(next.value.revision).not.toBe(before.revision);
    await env.POLICIES.put(`bundle:${next.value.revision}`, JSON.stringify(next.value));
    await env.POLICIES.put("bundle:current", next.value.revision);
    // BUNDLE_REFRESH_SECONDS is 1 in tests: within a few seconds every answer uses the new revision.
    const after = await waitForRevision(next.value.revision);
    expect(after.revision).toBe(next.value.revision);
    expect(after.queue).toBe("root.otherq");
  });

  it("never drops an engine over HTTP: a PUT replaces one engine and keeps every other one served", async () => {
    const served = async () =>
      Object.keys(
        ((await (await SELF.fetch(`${BASE}/v1/policies`)).json()) as { engines: object }).engines,
      ).sort();
    const before = await served();
    expect(before).toEqual(Object.keys(embeddedBundle().engines).sort());
    // An empty source is no way to remove an engine: the engines that need a policy refuse it…
    for (const engine of ["limits", "placement", "customs", "jobfilter"]) {
      const empty = await SELF.fetch(`${BASE}/v1/policies/${engine}`, { method: "PUT", body: "" });
      expect(empty.status, engine).toBe(422);
    }
    // …and HTCondor's empty configuration (no PE expressions) still serves /v1/match.
    const pool = await SELF.fetch(`${BASE}/v1/policies/match`, { method: "PUT", body: "" });
    expect(pool.status).toBe(200);
    const published = JSON.parse(
      (await env.POLICIES.get(`bundle:${((await pool.json()) as { revision: string }).revision}`)) ?? "{}",
    ) as {
      engines: object;
    };
    expect(Object.keys(published.engines).sort()).toEqual(before);
    expect(await served()).toEqual(before);
  });

  it("serves the embedded bundle again once the pointer says so (what `arbiter publish --reset` writes)", async () => {
    const res = await SELF.fetch(`${BASE}/v1/policies/placement`, { method: "PUT", body: validPlacement });
    const { revision } = (await res.json()) as { revision: string };
    expect(((await (await SELF.fetch(`${BASE}/v1/policies`)).json()) as { source: string }).source).toBe(
      "kv",
    );
    await env.POLICIES.put("bundle:current", EMBEDDED_POINTER);
    const back = await waitForRevision(embeddedBundle().revision);
    expect(back.revision).toBe(embeddedBundle().revision);
    expect(((await (await SELF.fetch(`${BASE}/v1/policies`)).json()) as { source: string }).source).toBe(
      "embedded",
    );
    // The next publish builds on the embedded bundle, not on the dropped one.
    const next = await SELF.fetch(`${BASE}/v1/policies/limits`, {
      method: "PUT",
      body: `${sourcesOf(embeddedBundle()).limits ?? ""}\n`,
    });
    expect(next.status).toBe(200);
    expect(((await next.json()) as { revision: string }).revision).not.toBe(revision);
    expect(await (await SELF.fetch(`${BASE}/v1/policies/placement`)).text()).toBe(
      sourcesOf(embeddedBundle()).placement,
    );
  });
});
