import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { app } from "../../src/http/app.js";
import { logDecision } from "../../src/http/decision-log.js";
import type { Env } from "../../src/env.js";
import { logLine, oneLine } from "../../src/log-line.js";

// Issue 25, item 4: every line Arbiter writes is one JSON object, whatever a client puts in
// the fields that reach a log. A user name such as "mallory\n<ts> access granted …" once
// wrote a second, forged line to the plain-text customs access log.

/** Text a client controls, each with a character that ends or garbles a line somewhere. */
const HOSTILE = [
  "mallory\n2026-11-27T00:00:00.000Z access granted user=root host=h1 client=ws0",
  'mallory\r\n{"ts":"2026-11-27T00:00:00.000Z","event":"access_granted","user":"root"}',
  "mallory\rroot",
  "mallory\u2028forged",
  "mallory\u2029forged",
  "mallory\u0085forged",
  "mallory\u0000root",
  "\u001b[2K\u001b[1Gaccess granted user=root",
  "mallory\u000bvt\u000cff\u0008bs",
  "lone \ud800 surrogate",
];

/** Every way a reader may split text into lines: LF, CR, CRLF, NEL, LS, PS. */
const LINE_TERMINATOR = /\r\n|[\n\r\u0085\u2028\u2029]/;

/** Each written line must be exactly one JSON object: no terminator inside, and it parses to a plain object. */
function expectOneObject(line: string): Record<string, unknown> {
  expect(line.split(LINE_TERMINATOR), JSON.stringify(line)).toHaveLength(1);
  const parsed = JSON.parse(line) as unknown;
  expect(typeof parsed === "object" && parsed !== null && !Array.isArray(parsed), line).toBe(true);
  return parsed as Record<string, unknown>;
}

describe("the log line builder", () => {
  it("writes any field value as one JSON object on one line, keeping the value", () => {
    for (const value of HOSTILE) {
      const fields = {
        ts: "2026-11-27T00:00:00.000Z",
        event: "access_denied",
        user: value,
        host: value,
        client: value,
        request_id: value,
        nested: { reason: [value] },
      };
      const parsed = expectOneObject(logLine(fields));
      expect(parsed).toEqual(JSON.parse(JSON.stringify(fields)));
    }
  });

  it("escapes the line terminators JSON.stringify leaves raw, and leaves other text alone", () => {
    expect(oneLine(JSON.stringify("a\u2028b\u2029c\u0085d"))).toBe('"a\\u2028b\\u2029c\\u0085d"');
    const plain = JSON.stringify({ user: "bob", note: "é ü 日本" });
    expect(oneLine(plain)).toBe(plain);
  });

  it("keeps the decision line one object whatever its fields hold", () => {
    const lines: string[] = [];
    const spy = vi.spyOn(console, "log").mockImplementation((line: unknown) => void lines.push(String(line)));
    try {
      for (const value of HOSTILE)
        logDecision({ decision_id: value, engine: value, revision: value, outcome: value, ms: 0 });
    } finally {
      spy.mockRestore();
    }
    expect(lines).toHaveLength(HOSTILE.length);
    lines.forEach((line, i) =>
      expect(expectOneObject(line).outcome).toBe(JSON.parse(JSON.stringify(HOSTILE[i]))),
    );
  });
});

/** The value as a request header carries it: ASCII only (workerd warns about other characters), without NUL, CR and LF, which no header holds. */
function headerSafe(value: string): string {
  return value.replace(/[\0\n\r\u0080-\uffff]/g, "?");
}

/** The value as a path segment: percent-encoded (a lone surrogate, which has no UTF-8 form, as `?`). */
const pathPart = (value: string) => encodeURIComponent(value.replace(/[\ud800-\udfff]/g, "?"));

describe("every line the Worker writes while answering hostile requests", () => {
  let lines: string[] = [];
  const spies: { mockRestore(): void }[] = [];

  beforeEach(() => {
    lines = [];
    for (const level of ["log", "warn", "error", "info", "debug"] as const) {
      spies.push(
        vi
          .spyOn(console, level)
          .mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" "))),
      );
    }
  });
  afterEach(() => {
    while (spies.length > 0) spies.pop()!.mockRestore();
  });

  /** One request to the app with extra variables (request capture on), waiting for its after-answer work. */
  async function call(
    method: string,
    path: string,
    body: unknown,
    headers: Record<string, string> = {},
    vars: Partial<Env> = {},
  ) {
    const ctx = createExecutionContext();
    const init: RequestInit = { method, headers: { "content-type": "application/json", ...headers } };
    if (body !== undefined) init.body = JSON.stringify(body);
    const res = await app.fetch(
      new Request(`http://arbiter.test${path}`, init),
      { ...(env as unknown as Env), ...vars },
      ctx,
    );
    const text = await res.text();
    await waitOnExecutionContext(ctx);
    return { status: res.status, text };
  }

  it("logs a customs access refusal as one JSON object carrying the user name as sent", async () => {
    const net = 251;
    const base = { address: `10.${net}.0.9`, net, load: 0, swapFreePct: 50, jobs: 0, idleSeconds: 2000 };
    expect((await call("PUT", "/v1/hosts/ws0", { ...base, address: `10.${net}.0.1` })).status).toBe(200);
    expect(
      (
        await call("PUT", "/v1/hosts/guarded", {
          ...base,
          access: 3,
          users: { bob: "/bin/sh" },
          shells: ["/bin/sh"],
        })
      ).status,
    ).toBe(200);
    lines = [];
    for (const user of HOSTILE) {
      const r = await call("POST", "/v1/hosts/allocate", {
        client: "ws0",
        net,
        fromAddress: `10.${net}.0.1`,
        user,
      });
      expect(r.status, r.text).toBe(200);
    }
    const objects = lines.map(expectOneObject);
    const denials = objects.filter((o) => o.event === "access_denied");
    expect(denials.map((d) => d.user)).toEqual(HOSTILE.map((u) => JSON.parse(JSON.stringify(u)) as string));
    expect(denials.every((d) => d.host === "guarded" && d.client === "ws0" && d.net === net)).toBe(true);
    expect(lines.some((l) => /access granted/.test(l) && !l.startsWith("{"))).toBe(false);
  });

  it("keeps every field a client controls inside one object, with request capture on", async () => {
    const full = { DECISION_LOG_REQUESTS: "full" } as Partial<Env>;
    const masked = { DECISION_LOG_REQUESTS: "masked" } as Partial<Env>;
    for (const value of HOSTILE) {
      const headers = { "x-request-id": headerSafe(value) };
      const reason = [["gnt:user", value, 1_700_000_000_000_000_000]];
      for (const vars of [full, masked]) {
        // a job submission: opcode fields and reason trails are the submitter's
        await call(
          "POST",
          "/v1/queues/log-lines/jobs",
          { opcodes: [{ OP_ID: "OP_TEST", note: value, reason }] },
          headers,
          vars,
        );
        // placement: user, groups and tags are the client's
        await call(
          "POST",
          "/v1/place",
          { user: value, groups: [value], tags: { namespace: value } },
          headers,
          vars,
        );
        // customs: user, client and an unknown network
        await call(
          "POST",
          "/v1/hosts/allocate",
          { client: value, net: 252, fromAddress: "10.252.0.1", user: value },
          headers,
          vars,
        );
        // limits: a task with hostile text
        await call(
          "POST",
          "/v1/limits/decide",
          { requester: "192.0.2.10", task: { test: { type: value, spec: { note: value } } } },
          headers,
          vars,
        );
      }
      // names in paths and bodies: queue and host names (refused), filter reasons, job ids
      await call("POST", `/v1/queues/${pathPart(value)}/jobs`, { opcodes: [{ OP_ID: "OP_TEST" }] }, headers);
      await call(
        "PUT",
        `/v1/hosts/${pathPart(value)}`,
        { address: "10.253.0.1", net: 253, load: 0 },
        headers,
      );
      await call(
        "POST",
        "/v1/queues/log-lines/filters",
        { action: "PAUSE", predicates: [["opcode", ["=", "OP_ID", "OP_NONE"]]], reason },
        headers,
      );
      await call("POST", `/v1/queues/log-lines/jobs/${pathPart(value)}/finish`, undefined, headers);
      // a change note rides on a publish and a rollback (both refused here, so nothing changes)
      const noted = { ...headers, "x-arbiter-change-note": headerSafe(value) };
      expect((await call("PUT", "/v1/policies/placement", "partitions: [", noted)).status).toBe(422);
      expect((await call("POST", "/v1/policies/rollback", { revision: "not-kept" }, noted)).status).toBe(404);
    }
    const objects = lines.map(expectOneObject);
    // the captured requests are all there (4 routes, 2 modes), each inside its one object
    expect(objects.filter((o) => o.request !== undefined)).toHaveLength(HOSTILE.length * 8);
    const place = objects.filter(
      (o) => o.kind === "placement" && JSON.stringify(o.request).includes("mallory"),
    );
    expect(place.length).toBeGreaterThan(0);
  });

  it("keeps a hostile X-Request-Id inside the internal_error line", async () => {
    // A queue route with no JOB_QUEUE binding fails as a bug would: the line names the caller's request id.
    const broken = { JOB_QUEUE: undefined } as unknown as Partial<Env>;
    for (const value of HOSTILE) {
      const id = headerSafe(value);
      const r = await call(
        "POST",
        "/v1/queues/log-lines/jobs",
        { opcodes: [{ OP_ID: "OP_TEST" }] },
        { "x-request-id": id },
        broken,
      );
      expect(r.status).toBe(500);
    }
    const errors = lines.map(expectOneObject).filter((o) => o.event === "internal_error");
    expect(errors.map((o) => o.request_id)).toEqual(HOSTILE.map((v) => headerSafe(v).trim().slice(0, 64)));
  });
});
