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

/** Every route class, in the order `/v1/status` lists them. */
export const ROLES: readonly Role[] = ["admin", "decision", "agent"];

/** How a route class is guarded: by a token, not at all, or by a token nobody holds (no accepted token is set). */
export type RouteAuth = "token" | "open" | "closed";

/** The route classes `OPEN_ROUTES` may open; admin routes are never opened while any token is set. */
const OPENABLE = new Set<string>(["decision", "agent"]);

/** The auth settings of one set of secrets, worked out once per distinct set. */
export interface AuthSettings {
  /** Whether any token is configured at all; with none, every route is open (local development). */
  readonly enabled: boolean;
  readonly routes: Readonly<Record<Role, RouteAuth>>;
  /** The tokens each guarded class accepts: its own plus the admin token. */
  readonly tokens: Readonly<Record<Role, readonly string[]>>;
  /** `OPEN_ROUTES` entries that were not honoured (unknown class, or `admin`). */
  readonly ignored: readonly string[];
}

let memo: { key: string; settings: AuthSettings } | undefined;

/**
 * The auth settings the secrets give. Fails closed: once any of ADMIN_TOKEN,
 * DECISION_TOKENS, AGENT_TOKENS is set, every route class needs a token (its
 * own or the admin token) unless OPEN_ROUTES names it; a class whose own secret
 * is unset then accepts the admin token only. With no token at all, every
 * route is open.
 */
export function authSettings(env: Env): AuthSettings {
  const key = [env.ADMIN_TOKEN, env.DECISION_TOKENS, env.AGENT_TOKENS, env.OPEN_ROUTES].map((v) => v ?? "").join("\u0000");
  if (memo?.key === key) return memo.settings;
  const admin = tokenList(env.ADMIN_TOKEN);
  const own: Record<Role, string[]> = { admin: [], decision: tokenList(env.DECISION_TOKENS), agent: tokenList(env.AGENT_TOKENS) };
  const enabled = admin.length + own.decision.length + own.agent.length > 0;
  const requested = tokenList(env.OPEN_ROUTES).map((r) => r.toLowerCase());
  const ignored = requested.filter((r) => !OPENABLE.has(r));
  const routes = {} as Record<Role, RouteAuth>;
  const tokens = {} as Record<Role, string[]>;
  for (const role of ROLES) {
    tokens[role] = [...own[role], ...admin];
    routes[role] = !enabled || (requested.includes(role) && OPENABLE.has(role)) ? "open" : tokens[role].length > 0 ? "token" : "closed";
  }
  const settings: AuthSettings = { enabled, routes, tokens, ignored };
  memo = { key, settings };
  return settings;
}

/** Whether any secret is set, for `/v1/status` and the startup log. */
export function authMode(env: Env): "enabled" | "disabled" {
  return authSettings(env).enabled ? "enabled" : "disabled";
}

/** The one line the Worker logs when an isolate starts: how each route class is guarded, never a token. */
export function authStartupLine(env: Env): string {
  const s = authSettings(env);
  const line: Record<string, unknown> = { ts: new Date().toISOString(), event: "auth", mode: s.enabled ? "enabled" : "disabled", routes: s.routes };
  if (!s.enabled) line.warning = "no ADMIN_TOKEN, DECISION_TOKENS or AGENT_TOKENS is set: every route is open (local development only)";
  if (s.ignored.length > 0) line.ignored_open_routes = s.ignored;
  return JSON.stringify(line);
}

/** Checks the bearer token of a request against a role; throws the 401/403 ApiError. */
export function authorize(c: Context<AppEnv>, role: Role): void {
  const settings = authSettings(c.env);
  if (settings.routes[role] === "open") return;
  const header = c.req.header("authorization") ?? "";
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match) throw new ApiError("unauthorized", "missing bearer token in the `Authorization` header");
  const given = match[1];
  let accepted = false;
  for (const t of settings.tokens[role]) accepted = constantTimeEqual(given, t) || accepted;
  if (!accepted) throw new ApiError("forbidden", `the token is not accepted for ${role} routes`);
}

/** Middleware form of `authorize`. */
export function requireRole(role: Role): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    authorize(c, role);
    await next();
  };
}
