import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv, Env } from "../env.js";
import { ApiError } from "./errors.js";
import { requestHeadersOf } from "./request-id.js";

/**
 * Compares two secrets in time that depends only on their lengths' maximum,
 * never on where they first differ, so a caller cannot guess a token byte by byte.
 * Compares UTF-16 code units, not UTF-8 bytes: two texts without a lone surrogate (a
 * header's value, a secret's token: the runtime decodes both) are equal exactly when their
 * UTF-8 bytes are, and no text is encoded per request (`TextEncoder.encode` is a call into
 * the runtime, and it made an array per request).
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const n = Math.max(a.length, b.length);
  let diff = a.length ^ b.length;
  // a position past a text's end reads NaN, which `|` and `^` take as 0
  for (let i = 0; i < n; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
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
export type Role = "decision" | "admin" | "agent" | "metrics";

/** Every route class, in the order `/v1/status` lists them. */
export const ROLES: readonly Role[] = ["admin", "decision", "agent", "metrics"];

/** How a route class is guarded: by a token, not at all, or by a token nobody holds (no accepted token is set). */
export type RouteAuth = "token" | "open" | "closed";

/** The route classes `OPEN_ROUTES` may open; admin (and metrics) routes are never opened while any token is set. */
const OPENABLE = new Set<string>(["decision", "agent"]);

/** The secrets that hold tokens, each a comma-separated list (ADMIN_TOKEN usually holds one). */
const SECRETS = ["ADMIN_TOKEN", "DECISION_TOKENS", "AGENT_TOKENS", "METRICS_TOKEN"] as const;

/** Whether the routes are open (no secret at all), guarded, or refused because a variable is set wrong. */
export type AuthMode = "enabled" | "disabled" | "misconfigured";

/** The auth settings of one set of secrets, worked out once per distinct set. */
export interface AuthSettings {
  readonly mode: AuthMode;
  /** Whether any token is configured at all; with none, every route is open (local development). */
  readonly enabled: boolean;
  readonly routes: Readonly<Record<Role, RouteAuth>>;
  /** The tokens each guarded class accepts: its own plus the admin token. */
  readonly tokens: Readonly<Record<Role, readonly string[]>>;
  /**
   * What is set wrong, one sentence per variable, naming it and never its value: a secret
   * that is set but holds no token, an `OPEN_ROUTES` entry that cannot be honoured. While
   * any is listed every guarded route answers 503 `auth_misconfigured`.
   */
  readonly problems: readonly string[];
}

/** The variables the last settings were worked out from, compared one by one before any key is built (every request asks). */
let last: { values: (string | undefined)[]; settings: AuthSettings } | undefined;

function sameVariables(env: Env, values: (string | undefined)[]): boolean {
  return (
    env.ADMIN_TOKEN === values[0] &&
    env.DECISION_TOKENS === values[1] &&
    env.AGENT_TOKENS === values[2] &&
    env.METRICS_TOKEN === values[3] &&
    env.OPEN_ROUTES === values[4]
  );
}

/**
 * The auth settings the variables give. Fails closed: once any of ADMIN_TOKEN,
 * DECISION_TOKENS, AGENT_TOKENS, METRICS_TOKEN is set, every route class needs a
 * token (its own or the admin token) unless OPEN_ROUTES names it; a class whose
 * own secret is unset then accepts the admin token only. Only when none is set
 * at all is every route open. A secret set to a blank text, or to commas only,
 * and an OPEN_ROUTES entry other than `decision` and `agent`, are configuration
 * errors, never a reason to open anything.
 */
export function authSettings(env: Env): AuthSettings {
  if (last !== undefined && sameVariables(env, last.values)) return last.settings;
  const settings = settingsOf(env);
  last = {
    values: [env.ADMIN_TOKEN, env.DECISION_TOKENS, env.AGENT_TOKENS, env.METRICS_TOKEN, env.OPEN_ROUTES],
    settings,
  };
  return settings;
}

/** The auth settings worked out afresh from the variables ({@link authSettings} keeps the last). */
function settingsOf(env: Env): AuthSettings {
  const problems: string[] = [];
  for (const name of SECRETS) {
    if (env[name] !== undefined && tokenList(env[name]).length === 0)
      problems.push(
        `${name} is set but holds no token (blank, or commas only): set a token or delete the secret`,
      );
  }
  const admin = tokenList(env.ADMIN_TOKEN);
  const own: Record<Role, string[]> = {
    admin: [],
    decision: tokenList(env.DECISION_TOKENS),
    agent: tokenList(env.AGENT_TOKENS),
    metrics: tokenList(env.METRICS_TOKEN),
  };
  const enabled = SECRETS.some((name) => env[name] !== undefined);
  const requested = tokenList(env.OPEN_ROUTES).map((r) => r.toLowerCase());
  const refused = requested.filter((r) => !OPENABLE.has(r));
  if (refused.length > 0) {
    if (refused.includes("admin"))
      problems.push("OPEN_ROUTES names admin, and admin routes are never opened: remove it");
    if (refused.some((r) => r !== "admin"))
      problems.push("OPEN_ROUTES names a route class it cannot open (only decision and agent): remove it");
  }
  const routes = {} as Record<Role, RouteAuth>;
  const tokens = {} as Record<Role, string[]>;
  for (const role of ROLES) {
    tokens[role] = [...own[role], ...admin];
    routes[role] =
      !enabled || (requested.includes(role) && OPENABLE.has(role))
        ? "open"
        : tokens[role].length > 0
          ? "token"
          : "closed";
  }
  const mode: AuthMode = problems.length > 0 ? "misconfigured" : enabled ? "enabled" : "disabled";
  return { mode, enabled, routes, tokens, problems };
}

/** Whether the routes are guarded, open (no secret set) or refused (a variable set wrong), for `/v1/status` and the startup log. */
export function authMode(env: Env): AuthMode {
  return authSettings(env).mode;
}

/** The one line the Worker logs when an isolate starts: how each route class is guarded, never a token. */
export function authStartupLine(env: Env): string {
  const s = authSettings(env);
  const line: Record<string, unknown> = {
    ts: new Date().toISOString(),
    event: "auth",
    mode: s.mode,
    routes: s.routes,
  };
  if (s.mode === "misconfigured") {
    line.level = "error";
    line.error = "auth_misconfigured";
    line.problems = s.problems;
    line.warning = "every route that needs a token answers 503 auth_misconfigured until this is fixed";
  } else if (!s.enabled)
    line.warning =
      "no ADMIN_TOKEN, DECISION_TOKENS, AGENT_TOKENS or METRICS_TOKEN is set: every route is open (local development only)";
  return JSON.stringify(line);
}

/** The 503 every guarded route answers while a variable of auth is set wrong; its message names the variables, never their values. */
export function misconfigured(settings: AuthSettings): ApiError {
  return new ApiError(
    "auth_misconfigured",
    `auth is misconfigured, so this route is refused until it is fixed: ${settings.problems.join("; ")}`,
  );
}

/** Checks the bearer token of a request against a role; throws the 401/403 ApiError. */
export function authorize(c: Context<AppEnv>, role: Role): void {
  const settings = authSettings(c.env);
  if (settings.problems.length > 0) throw misconfigured(settings);
  if (settings.routes[role] === "open") return;
  // the headers the request's scope read once (`c.req.header` reads `request.headers` again: a call into the runtime)
  const header = requestHeadersOf(c).get("authorization") ?? "";
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
