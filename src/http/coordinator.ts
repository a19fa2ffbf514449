import type { Context } from "hono";
import type { AppEnv, Env } from "../env.js";
import { coordinatorOf } from "../state/coordinator-stub.js";
import type { ChangeAuthor, PublishOutcome } from "../state/policy-coordinator.js";
import { authSettings } from "./auth.js";
import { ApiError, errorDetail } from "./errors.js";
import { meteredStub } from "./metrics.js";

/** The publish coordinator (one object for the whole deployment, the only writer of the pointers), its calls counted in the metrics. */
export function coordinator(env: Env): ReturnType<typeof coordinatorOf> {
  return meteredStub(coordinatorOf(env), "PolicyCoordinator");
}

/** One element of an `If-Match` list: a quoted tag, optionally weak (`W/"…"`), or a bare revision. */
const ENTITY_TAG = /^(?:(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"|([A-Za-z0-9._-]+))$/;

/**
 * Reads `If-Match` as RFC 9110 defines it: `*`, or a comma-separated list of
 * entity tags (`"<revision>"`; a bare revision is accepted too). The comparison
 * is the strong one, so a weak tag `W/"…"` never matches: it is kept as written
 * (never equal to a revision), making the precondition fail with 412 unless a
 * strong tag of the list matches. An empty or blank header, or one that is not
 * such a list, is a 400: a client that sends the header means a condition, and
 * publishing unconditionally would drop it. Undefined when the header is absent.
 */
export function parseIfMatch(header: string | undefined): "*" | string[] | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  if (value === "*") return "*";
  const elements = value
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t.length > 0);
  if (elements.length === 0) {
    throw new ApiError(
      "invalid_request",
      '`If-Match` is empty: send the revision the change is based on (`"<revision>"`) or `*`, or leave the header out',
    );
  }
  return elements.map((element) => {
    const tag = ENTITY_TAG.exec(element);
    if (tag === null) {
      throw new ApiError(
        "invalid_request",
        `\`If-Match\`: \`${element}\` is not an entity tag (\`"<revision>"\`; \`*\` stands alone)`,
      );
    }
    return tag[1] !== undefined ? element : (tag[2] ?? tag[3]);
  });
}

/** Turns a refused publish into the API error it answers with. */
export function publishError(c: Context<AppEnv>, outcome: Exclude<PublishOutcome, { ok: true }>): ApiError {
  if (outcome.current !== undefined) c.header("ETag", `"${outcome.current}"`);
  const details = outcome.errors?.map((e) => errorDetail(e));
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
