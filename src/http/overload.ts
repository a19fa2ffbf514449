import type { MiddlewareHandler } from "hono";
import { numberVar, type AppEnv, type Env } from "../env.js";
import { ApiError } from "./errors.js";

/** How long a shed client should wait before trying again, in seconds (the `Retry-After` of every 503 `overloaded`). */
export const RETRY_AFTER_SECONDS = 1;

/** The default bound on requests one isolate keeps waiting on one Durable Object. */
export const DEFAULT_MAX_PENDING = 256;

const pending = new Map<string, number>();

/**
 * Admits one more request to the Durable Object named `key`, or refuses it
 * with 503 `overloaded` when this isolate already has OBJECT_MAX_PENDING
 * requests waiting on that object. A Durable Object runs one request at a time;
 * past the bound a request would only wait (and hold memory) longer than a
 * client should, so it is answered at once and told when to retry. Returns the
 * function that lets the next one in.
 */
export function admit(env: Env, key: string): () => void {
  const limit = Math.max(1, numberVar(env.OBJECT_MAX_PENDING, DEFAULT_MAX_PENDING));
  const n = pending.get(key) ?? 0;
  if (n >= limit)
    throw overloaded(`\`${key}\` has ${n} requests waiting; retry after ${RETRY_AFTER_SECONDS} s`);
  pending.set(key, n + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const left = (pending.get(key) ?? 1) - 1;
    if (left <= 0) pending.delete(key);
    else pending.set(key, left);
  };
}

/** The 503 a shed request answers. */
export function overloaded(message: string): ApiError {
  return new ApiError("overloaded", message);
}

/**
 * Whether an error is the runtime's own refusal of a Durable Object that has
 * too much queued work (it sets `overloaded` on the error it throws): that is
 * also a 503 `overloaded`, not an internal error.
 */
export function isObjectOverloaded(e: unknown): boolean {
  return typeof e === "object" && e !== null && (e as { overloaded?: unknown }).overloaded === true;
}

/** Requests already counted, so a middleware that matches a request twice counts it once. */
const counted = new WeakSet<Request>();

/**
 * Middleware form of `admit`, for routes whose Durable Object is known from the
 * request; `keyOf` answers undefined for requests it does not count.
 */
export function shedLoad(
  keyOf: (c: Parameters<MiddlewareHandler<AppEnv>>[0]) => string | undefined,
): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const key = keyOf(c);
    if (key === undefined || counted.has(c.req.raw)) return next();
    counted.add(c.req.raw);
    const release = admit(c.env, key);
    try {
      await next();
    } finally {
      release();
    }
  };
}
