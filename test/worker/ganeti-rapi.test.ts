/**
 * Ganeti's own RAPI client against the Worker, without Python: the HTTP exchanges
 * test/ganeti/rapi_client_harness.py recorded while GanetiRapiClient (ganeti/ganeti
 * lib/rapi/client.py) ran qa/qa_filters.py's scenarios against `wrangler dev` are sent
 * again, byte for byte, and every answer must match the recorded one (status, content
 * type, JSON body with its key order; placeholders for what differs per run).
 * Then the RAPI server's own unit tests (test/py/legacy/ganeti.server.rapi_unittest.py)
 * that concern what a client of /2/filters sees: media type, JSON, methods, auth.
 */
import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { app } from "../../src/http/app.js";
import { parseExactJson } from "../../src/engines/common/exact-json.js";
import type { Env } from "../../src/env.js";
import transcriptText from "../cases/jobfilter-rapi/ganeti-rapi-client.yaml?raw";

const BASE = "http://arbiter.test";

interface Exchange {
  scenario: string;
  call: string;
  request: { method: string; path: string; headers: Record<string, string>; body: string };
  response: { status: number; content_type: string | null; body: unknown };
}

const exchanges = parse(transcriptText, { intAsBigInt: true }) as Exchange[];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Fills `${name}` placeholders with the values bound so far. */
function fill(text: string, vars: Map<string, unknown>): string {
  return text.replace(/\$\{(\w+)\}/g, (whole, name: string) =>
    vars.has(name) ? String(vars.get(name)) : whole,
  );
}

/** Where `actual` differs from the recorded `want` (binding `${name}` on first sight), or null. */
function mismatch(want: unknown, actual: unknown, vars: Map<string, unknown>, at = "$"): string | null {
  if (typeof want === "string") {
    const whole = /^\$\{(\w+)\}$/.exec(want);
    if (whole && !vars.has(whole[1])) {
      vars.set(whole[1], actual);
      return typeof actual === "string" ? null : `${at}: ${JSON.stringify(actual)} is not a string`;
    }
    if (want === "<uuid>")
      return typeof actual === "string" && UUID.test(actual)
        ? null
        : `${at}: ${String(actual)} is not a uuid`;
    if (want === "<time>")
      return typeof actual === "string" && !Number.isNaN(Date.parse(actual))
        ? null
        : `${at}: ${String(actual)} is not a time`;
    if (want === "<ns>")
      return (typeof actual === "number" && Number.isInteger(actual)) || typeof actual === "bigint"
        ? null
        : `${at}: ${String(actual)} is not an integer`;
    const text = fill(want, vars);
    return actual === text ? null : `${at}: ${JSON.stringify(actual)} instead of ${JSON.stringify(text)}`;
  }
  if (typeof want === "bigint") {
    const same =
      (typeof actual === "number" && Number.isInteger(actual)) || typeof actual === "bigint"
        ? BigInt(actual) === want
        : false;
    return same ? null : `${at}: ${String(actual)} instead of ${want}`;
  }
  if (Array.isArray(want)) {
    if (!Array.isArray(actual) || actual.length !== want.length)
      return `${at}: ${JSON.stringify(actual, (_, v: unknown) => (typeof v === "bigint" ? String(v) : v))} instead of ${want.length} items`;
    for (let i = 0; i < want.length; i++) {
      const m = mismatch(want[i], actual[i], vars, `${at}[${i}]`);
      if (m) return m;
    }
    return null;
  }
  if (want !== null && typeof want === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return `${at}: not an object`;
    const keys = Object.keys(want);
    if (Object.keys(actual).join(",") !== keys.join(","))
      return `${at}: keys ${Object.keys(actual).join(",")} instead of ${keys.join(",")} (in that order)`;
    for (const k of keys) {
      const m = mismatch(
        (want as Record<string, unknown>)[k],
        (actual as Record<string, unknown>)[k],
        vars,
        `${at}.${k}`,
      );
      if (m) return m;
    }
    return null;
  }
  return Object.is(want, actual)
    ? null
    : `${at}: ${JSON.stringify(actual)} instead of ${JSON.stringify(want)}`;
}

describe("Ganeti's RAPI client (lib/rapi/client.py), recorded exchanges replayed", () => {
  it("has a transcript covering every filter method and every qa_filters.py scenario", () => {
    const calls = new Set(exchanges.map((e) => /^\w+/.exec(e.call)?.[0]));
    for (const m of ["GetFilters", "GetFilter", "AddFilter", "ReplaceFilter", "DeleteFilter"])
      expect(calls).toContain(m);
    const scenarios = new Set(exchanges.map((e) => e.scenario));
    for (const s of [
      "TestFilterAddRemove",
      "TestFilterWatermark",
      "TestFilterReject",
      "TestFilterOpCode",
      "TestFilterContinue",
      "TestFilterReasonChain",
      "TestFilterAcceptPause",
      "TestFilterRateLimit",
      "TestAdHocReasonRateLimit",
    ]) {
      expect(scenarios).toContain(s);
    }
  });

  // One test: the scenarios share the default queue (its job ids and watermarks) as they did when recorded.
  it("answers every exchange as it was recorded", async () => {
    const vars = new Map<string, unknown>();
    for (const [i, ex] of exchanges.entries()) {
      const where = `#${i} ${ex.scenario}: ${ex.call} (${ex.request.method} ${ex.request.path})`;
      const body = fill(ex.request.body, vars);
      const init: RequestInit = { method: ex.request.method, headers: ex.request.headers };
      if (body !== "") init.body = body;
      const res = await SELF.fetch(BASE + fill(ex.request.path, vars), init);
      const text = await res.text();
      expect(res.status, `${where}: ${text}`).toBe(Number(ex.response.status));
      expect(res.headers.get("content-type"), where).toBe(ex.response.content_type);
      const actual = text === "" ? null : parseExactJson(text);
      expect(mismatch(ex.response.body, actual, vars), `${where}: ${text}`).toBeNull();
    }
  });
});

/** One request straight to the app with extra variables (tokens), as test/worker/auth.test.ts does. */
async function call(
  vars: Partial<Env>,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(BASE + path, { method, headers, body }),
    { ...(env as unknown as Env), ...vars },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

const JSON_TYPE = { "content-type": "application/json" };
const basic = (user: string, password: string) => ({
  ...JSON_TYPE,
  authorization: `Basic ${btoa(`${user}:${password}`)}`,
});

describe("Ganeti's RAPI server behaviour as its client sees it (ganeti.server.rapi_unittest)", () => {
  it("testRequestWithUnsupportedMediaType: a body that is not application/json is a 415", async () => {
    for (const type of ["un/supported/media/type", "UN/SUPPORTED/MEDIA/TYPE", "Un/Supported/Media/Type"]) {
      const res = await call({}, "POST", "/2/filters", { "content-type": type }, "body");
      expect(res.status).toBe(415);
      expect(await res.json()).toEqual({
        code: 415,
        message: "Unsupported Media Type",
        explain: "Entity body in unsupported format",
      });
    }
    // No content type at all is application/octet-stream to Ganeti.
    expect((await call({}, "POST", "/2/filters", {}, "{}")).status).toBe(415);
  });

  it("testRequestWithInvalidJsonData: a body that does not parse is 400 `Unable to parse JSON data`", async () => {
    const res = await call({}, "POST", "/2/filters", JSON_TYPE, "_this/is/no'valid.json");
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toBe("Unable to parse JSON data");
  });

  it("testPutInstances: a method the resource lacks is 501, before authentication", async () => {
    const res = await call({ ADMIN_TOKEN: "adm" }, "PATCH", "/2/filters", {});
    expect(res.status).toBe(501);
    expect(await res.json()).toEqual({
      code: 501,
      message: "Method PATCH is unsupported for path /2/filters",
      explain: "Server does not support this operation",
    });
    const one = await call({}, "POST", "/2/filters/4364c043-f232-41e3-837f-f1ce846f21d2", {});
    expect(one.status).toBe(501);
    expect(((await one.json()) as { message: string }).message).toMatch(/^Method POST is unsupported/);
  });

  it("answers any other path under /2/ with Ganeti's bare 404 (GetFeatures then reads it as no features)", async () => {
    for (const path of ["/2/features", "/2/filters/x/y", "/2"]) {
      const res = await call({}, "GET", path, {});
      expect(res.status, path).toBe(404);
      expect(await res.json()).toEqual({
        code: 404,
        message: "Not Found",
        explain: "Nothing matches the given URI",
      });
    }
  });

  it("testPostInstancesNoAuth, testUnsupportedAuthScheme: no or unknown credentials are 401 with Basic's challenge", async () => {
    for (const headers of [JSON_TYPE, { ...JSON_TYPE, authorization: "Unsupported scheme" }]) {
      const res = await call({ ADMIN_TOKEN: "adm" }, "POST", "/2/filters", headers, "{}");
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Basic realm="Ganeti Remote API"');
      expect(await res.json()).toEqual({
        code: 401,
        message: "Unauthorized",
        explain: "No permission -- see authorization schemes",
      });
    }
  });

  it("testIncompleteBasicAuth: `Basic` without credentials is 400", async () => {
    const res = await call(
      { ADMIN_TOKEN: "adm" },
      "POST",
      "/2/filters",
      { ...JSON_TYPE, authorization: "Basic" },
      "{}",
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toBe(
      "Basic authentication requires credentials",
    );
  });

  it("testInvalidBasicAuth: undecodable credentials or no colon are 401", async () => {
    for (const auth of ["!invalid=base!64.", btoa(" "), btoa("missingcolonchar")]) {
      const res = await call(
        { ADMIN_TOKEN: "adm" },
        "POST",
        "/2/filters",
        { ...JSON_TYPE, authorization: `Basic ${auth}` },
        "{}",
      );
      expect(res.status, auth).toBe(401);
    }
  });

  it("testQueryAuth: the token as Basic password is accepted; a wrong one is 401, a token without the role 403", async () => {
    const vars = { ADMIN_TOKEN: "adm", DECISION_TOKENS: "dec" };
    const add = await call(
      vars,
      "POST",
      "/v1/queues/rapi-auth/filters",
      basic("admin", "adm"),
      '{"action": "PAUSE"}',
    );
    expect(add.status).toBe(200);
    const uuid = (await add.json()) as string;
    expect(
      (await call(vars, "GET", `/v1/queues/rapi-auth/filters/${uuid}`, basic("anyone", "dec"))).status,
    ).toBe(200);
    expect(
      (await call(vars, "GET", `/v1/queues/rapi-auth/filters/${uuid}`, { authorization: "Bearer dec" }))
        .status,
    ).toBe(200);
    const wrong = await call(
      vars,
      "DELETE",
      `/v1/queues/rapi-auth/filters/${uuid}`,
      basic("admin", "wrongpass"),
    );
    expect(wrong.status).toBe(401);
    const noRole = await call(vars, "DELETE", `/v1/queues/rapi-auth/filters/${uuid}`, basic("admin", "dec"));
    expect(noRole.status).toBe(403);
    expect(await noRole.json()).toEqual({
      code: 403,
      message: "Forbidden",
      explain: "Request forbidden -- authorization will not help",
    });
    expect(
      (await call(vars, "DELETE", `/v1/queues/rapi-auth/filters/${uuid}`, basic("admin", "adm"))).status,
    ).toBe(200);
  });
});
