import { option, UsageError, type ParsedArgs } from "./args.js";
import type { Io } from "./io.js";

/** Where the CLI's API commands send requests, and with which token. */
export interface ApiTarget {
  url: string;
  token: string | undefined;
}

/** The default base URL: `npm start`'s local server. */
export const DEFAULT_URL = "http://127.0.0.1:8787";

/** The API target: `--url`, else `ARBITER_URL`, else the local server; the token from `ARBITER_TOKEN` (or `ARBITER_ADMIN_TOKEN`). */
export function apiTarget(args: ParsedArgs, io: Io): ApiTarget {
  const url = (option(args, "--url") ?? io.env.ARBITER_URL ?? DEFAULT_URL).replace(/\/+$/, "");
  const token = io.env.ARBITER_TOKEN || io.env.ARBITER_ADMIN_TOKEN || undefined;
  return { url, token };
}

/** An API answer that is not a success: its status and the envelope's message. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Sends one request to the API and answers the parsed JSON body (or text); a non-2xx answer throws ApiFailure with the API's message. */
export async function callApi(
  target: ApiTarget,
  method: string,
  path: string,
  body?: { json: unknown } | { text: string },
  headers: Record<string, string> = {},
): Promise<{ value: unknown; headers: Headers }> {
  const sent: Record<string, string> = { ...headers };
  if (target.token) sent.authorization = `Bearer ${target.token}`;
  let payload: string | undefined;
  if (body !== undefined && "json" in body) {
    sent["content-type"] = "application/json";
    payload = JSON.stringify(body.json);
  } else if (body !== undefined) {
    sent["content-type"] = "text/plain; charset=utf-8";
    payload = body.text;
  }
  let res: Response;
  try {
    res = await fetch(target.url + path, { method, headers: sent, body: payload });
  } catch (e) {
    throw new ApiFailure(0, `cannot reach ${target.url}: ${(e as Error).message}`);
  }
  const text = await res.text();
  let value: unknown = text;
  try {
    value = text === "" ? null : JSON.parse(text);
  } catch {
    // not JSON: the text is the answer
  }
  if (!res.ok) {
    const message = (value as { error?: { code?: string; message?: string } } | null)?.error;
    throw new ApiFailure(
      res.status,
      message?.message ? `${message.code ?? res.status}: ${message.message}` : `HTTP ${res.status}`,
    );
  }
  return { value, headers: res.headers };
}

/** Pads columns to a table as gnt-job prints one: a header row, then a row per item, separated by spaces. */
export function table(header: string[], rows: string[][], withHeader = true): string {
  const all = withHeader ? [header, ...rows] : rows;
  const widths = header.map((_, i) => Math.max(...all.map((r) => (r[i] ?? "").length)));
  return all
    .map(
      (r) =>
        r
          .map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i])))
          .join(" ")
          .trimEnd() + "\n",
    )
    .join("");
}

/** The API commands' `--format`: `table` (the default) or `json`. */
export function tableOrJson(args: ParsedArgs): "table" | "json" {
  const f = option(args, "--format") ?? "table";
  if (f !== "table" && f !== "json") throw new UsageError(`--format: \`${f}\` is not a format (table, json)`);
  return f;
}

/** Runs an API command, printing an API failure as `arbiter: message` with exit 1. */
export async function reportingApiFailure(io: Io, work: () => Promise<void>): Promise<number> {
  try {
    await work();
    return 0;
  } catch (e) {
    if (!(e instanceof ApiFailure)) throw e;
    io.stderr(`arbiter: ${e.message}\n`);
    return 1;
  }
}
