import type { Context } from "hono";
import type { AppEnv, Env } from "../env.js";
import { coordinatorOf } from "../state/coordinator-stub.js";
import type { ChangeAuthor, PublishOutcome } from "../state/policy-coordinator.js";
import { authSettings } from "./auth.js";
import { ApiError } from "./errors.js";
import { meteredStub } from "./metrics.js";

/** The publish coordinator (one object for the whole deployment, the only writer of the pointers), its calls counted in the metrics. */
export function coordinator(env: Env): ReturnType<typeof coordinatorOf> {
  return meteredStub(coordinatorOf(env), "PolicyCoordinator");
}

/**
 * Reads `If-Match`: `*`, or a list of revisions, quoted as entity tags (`"…"`,
 * weak `W/"…"` too) or bare. Undefined when the header is absent.
 */
export function parseIfMatch(header: string | undefined): "*" | string[] | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === "*") return "*";
  const tags = value
    .split(",")
    .map((t) =>
      t
        .trim()
        .replace(/^W\//, "")
        .replace(/^"(.*)"$/, "$1"),
    )
    .filter((t) => t.length > 0);
  if (tags.length === 0) throw new ApiError("invalid_request", "`If-Match` names no revision");
  return tags;
}

/** Turns a refused publish into the API error it answers with. */
export function publishError(c: Context<AppEnv>, outcome: Exclude<PublishOutcome, { ok: true }>): ApiError {
  if (outcome.current !== undefined) c.header("ETag", `"${outcome.current}"`);
  const details = outcome.errors?.map((e) => ({ code: e.code, message: e.message, at: e.at }));
  return new ApiError(outcome.code, outcome.message, details);
}

/** The longest `X-Arbiter-Change-Note` kept, in characters. */
export const CHANGE_NOTE_MAX = 1000;

/** Who makes a policy change, for the history: the admin role (or `open` with auth off) and the `X-Arbiter-Change-Note` header. */
export function changeAuthor(c: Context<AppEnv>): ChangeAuthor {
  const role = authSettings(c.env).routes.admin === "open" ? "open" : "admin";
  const note = c.req.header("x-arbiter-change-note")?.trim();
  if (note === undefined || note === "") return { role };
  if (note.length > CHANGE_NOTE_MAX)
    throw new ApiError(
      "invalid_request",
      `\`X-Arbiter-Change-Note\`: longer than ${CHANGE_NOTE_MAX} characters`,
    );
  return { role, note };
}
