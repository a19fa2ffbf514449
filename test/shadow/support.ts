import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { vi } from "vitest";
import type { Env } from "../../src/env.js";
import { app } from "../../src/http/app.js";

export const BASE = "http://arbiter.test";

/** The Worker's bindings as the vitest config gives them. */
export const baseEnv = env as unknown as Env;

/** One answer of the Worker's app and every log line written while it ran, its after-the-answer work included. */
export interface Sent {
  res: Response;
  status: number;
  body: unknown;
  logs: Record<string, unknown>[];
  /** The log lines as written. */
  raw: string[];
}

/**
 * Sends one request through the Worker's own app with the given variables on top of the
 * configured bindings, waits for the work it left after the answer (ctx.waitUntil), and
 * returns the answer with the JSON log lines written meanwhile.
 */
export async function send(
  method: string,
  path: string,
  body?: unknown,
  vars: Partial<Env> = {},
  headers: Record<string, string> = {},
): Promise<Sent> {
  const lines: string[] = [];
  const spy = vi
    .spyOn(console, "log")
    .mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
  try {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      const text = typeof body === "string" ? body : JSON.stringify(body);
      init.body = text;
      (init.headers as Record<string, string>)["content-type"] ??=
        typeof body === "string" && !text.startsWith("{") ? "text/plain" : "application/json";
    }
    const ctx = createExecutionContext();
    const res = await app.fetch(new Request(BASE + path, init), { ...baseEnv, ...vars }, ctx);
    const text = await res.text();
    await waitOnExecutionContext(ctx);
    const logs = lines.flatMap((l) => {
      try {
        return [JSON.parse(l) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // a text answer
    }
    return { res, status: res.status, body: parsed, logs, raw: lines };
  } finally {
    spy.mockRestore();
  }
}

/** The decision log lines among a request's log lines. */
export function decisionLines(sent: Sent): Record<string, unknown>[] {
  return sent.logs.filter((l) => typeof l.decision_id === "string");
}
