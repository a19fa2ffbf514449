import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv, Env } from "../env.js";
import { ApiError } from "./errors.js";

const encoder = new TextEncoder();

/**
 * Compares two secrets in time that depends only on their lengths' maximum,
 * never on where they first differ, so a caller cannot guess a token byte by byte.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = encoder.encode(a);
  const y = encoder.encode(b);
  const n = Math.max(x.length, y.length);
  let diff = x.length ^ y.length;
  for (let i = 0; i < n; i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/** Splits a comma-separated secret into its tokens, dropping blanks. */
export function tokenList(secret: string | undefined): string[] {
  return (secret ?? "")
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
}

/** Which kinds of caller may use a route. */
export type Role = "decision" | "admin" | "agent";

/** The tokens accepted for a role; admin tokens open every route. Empty means the role is unguarded. */
function acceptedTokens(env: Env, role: Role): { guarded: boolean; tokens: string[] } {
  const admin = tokenList(env.ADMIN_TOKEN);
  if (role === "admin") return { guarded: admin.length > 0, tokens: admin };
  const own = tokenList(role === "decision" ? env.DECISION_TOKENS : env.AGENT_TOKENS);
  return { guarded: own.length > 0, tokens: [...own, ...admin] };
}

/** Whether any secret is set, for `/v1/status` and the startup log. */
export function authMode(env: Env): "enabled" | "disabled" {
  return tokenList(env.ADMIN_TOKEN).length + tokenList(env.DECISION_TOKENS).length > 0 ? "enabled" : "disabled";
}

/** Checks the bearer token of a request against a role; throws the 401/403 ApiError. */
export function authorize(c: Context<AppEnv>, role: Role): void {
  const { guarded, tokens } = acceptedTokens(c.env, role);
  if (!guarded) return;
  const header = c.req.header("authorization") ?? "";
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new ApiError("unauthorized", "missing bearer token in the `Authorization` header");
  const given = match[1];
  let accepted = false;
  for (const t of tokens) accepted = constantTimeEqual(given, t) || accepted;
  if (!accepted) throw new ApiError("forbidden", `the token is not accepted for ${role} routes`);
}

/** Middleware form of `authorize`. */
export function requireRole(role: Role): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    authorize(c, role);
    await next();
  };
}
