/**
 * Helpers of the hostile-input suite: send one hostile request through the
 * Worker and, at the same time, ask `/healthz`, so every case shows both that
 * its answer arrives and that the Worker still answers others meanwhile.
 */
import { SELF } from "cloudflare:test";
import { expect } from "vitest";

export const BASE = "http://arbiter.test";

/** An answer as a test reads it: status, parsed JSON (or null) and the raw text's length. */
export interface Answer {
  status: number;
  body: unknown;
  bytes: number;
}

/** The error envelope's inner object, for assertions. */
export interface ErrorShape {
  code: string;
  message: string;
  details?: { code: string; message: string; at: string }[];
  details_omitted?: number;
}

async function answer(response: Response): Promise<Answer> {
  const text = await response.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = null;
  }
  return { status: response.status, body, bytes: text.length };
}

/** Sends a request (a JSON body as text, or a value to stringify) while `/healthz` is asked concurrently. */
export async function hostile(
  method: string,
  path: string,
  body: unknown,
  contentType = "application/json",
): Promise<Answer> {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const [main, health] = await Promise.all([
    SELF.fetch(BASE + path, { method, headers: { "content-type": contentType }, body: text }).then(answer),
    SELF.fetch(BASE + "/healthz").then(answer),
  ]);
  expect(health.status).toBe(200);
  expect(health.body).toEqual({ ok: true });
  return main;
}

/** POSTs a JSON body under the concurrent `/healthz` check. */
export function postHostile(path: string, body: unknown): Promise<Answer> {
  return hostile("POST", path, body);
}

/** Validates a policy source through the admin API under the concurrent `/healthz` check. */
export function validatePolicy(engine: string, source: string): Promise<Answer> {
  return hostile("POST", `/v1/policies/${engine}/validate`, source, "text/plain");
}

/** Publishes a policy source, failing the test when it is refused. */
export async function publish(engine: string, source: string): Promise<void> {
  const response = await SELF.fetch(`${BASE}/v1/policies/${engine}`, {
    method: "PUT",
    headers: { "content-type": "text/plain" },
    body: source,
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`publishing ${engine} answered ${response.status}: ${text}`);
}

/** The error object of an error answer, asserting its status and code. */
export function expectError(a: Answer, status: number, code: string): ErrorShape {
  expect(a.status).toBe(status);
  const error = (a.body as { error: ErrorShape }).error;
  expect(error.code).toBe(code);
  return error;
}

/** `[[[…1…]]]` nested `n` levels deep, as JSON text. */
export function nestedArrays(n: number, leaf = "1"): string {
  return "[".repeat(n) + leaf + "]".repeat(n);
}

/** A JSON array text of `n` copies of `item` (already JSON text). */
export function manyItems(n: number, item: string): string {
  return "[" + Array.from({ length: n }, () => item).join(",") + "]";
}
