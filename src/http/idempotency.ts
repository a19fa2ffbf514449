import type { Context } from "hono";
import { sha256Hex } from "../bundle/index.js";
import type { AppEnv } from "../env.js";
import type { IdempotencyRequest } from "../state/idempotency.js";
import { compactJsonText } from "./cache-key.js";
import { ApiError } from "./errors.js";

const KEY = /^[\x21-\x7e]{1,255}$/;

/** The request's `Idempotency-Key`, checked: 1 to 255 visible ASCII characters; undefined when absent. */
export function idempotencyKey(c: Context<AppEnv>): string | undefined {
  const key = c.req.header("idempotency-key");
  if (key === undefined) return undefined;
  if (!KEY.test(key))
    throw new ApiError("invalid_request", "`Idempotency-Key` must be 1 to 255 visible ASCII characters");
  return key;
}

/**
 * What the Durable Object stores beside a key: the operation and the body's
 * hash. Whitespace between JSON tokens does not count as a different body.
 */
export async function idempotencyRequest(
  key: string,
  operation: string,
  bodyText: string,
): Promise<IdempotencyRequest> {
  const compact = bodyText.trim() === "" ? "" : compactJsonText(bodyText);
  return { key, fingerprint: await sha256Hex(`${operation}\n${compact}`) };
}

/** The message of the 422 a reused key answers. */
export function keyReusedMessage(key: string): string {
  return `\`Idempotency-Key\` \`${key.slice(0, 64)}\` was already used with a different request`;
}
