import type { Context } from "hono";
import type { AppEnv } from "../env.js";

/**
 * Where a request keeps its id while it is answered (the caller's `X-Request-Id`, else a
 * fresh one), and where an answer made with that header already set says so: a property
 * of the request's and the answer's own objects, which go when they go. A WeakMap keyed by
 * them did the same at the price of an ephemeron per request for the collector to process.
 */
const REQUEST_ID = Symbol("arbiter.requestId");
const IDENTIFIED = Symbol("arbiter.identified");

type Tagged<T> = T & { [REQUEST_ID]?: string; [IDENTIFIED]?: true };

const URL_TEXT = Symbol("arbiter.url");

/**
 * Keeps the request's URL text on it, read once before Hono dispatches it: the runtime
 * makes a new string each time `request.url` is read, and the router's path, the metrics
 * series and the `explain` query would each read it.
 */
export function setRequestUrl(request: Request, url: string): void {
  (request as Request & { [URL_TEXT]?: string })[URL_TEXT] = url;
}

/** The request's URL text: the one kept by {@link setRequestUrl}, else read from the request. */
export function requestUrlOf(request: Request): string {
  return (request as Request & { [URL_TEXT]?: string })[URL_TEXT] ?? request.url;
}

/** Gives a request its id, before Hono dispatches it. */
export function setRequestId(request: Request, id: string): void {
  (request as Tagged<Request>)[REQUEST_ID] = id;
}

/** The id of the request a handler is answering, as its `X-Request-Id` header and error bodies give it. */
export function requestIdOf(c: Context<AppEnv>): string {
  const request = c.req.raw as Tagged<Request>;
  return (request[REQUEST_ID] ??= crypto.randomUUID());
}

/** Whether an answer already carries its request's `X-Request-Id`. */
export function carriesRequestId(response: Response): boolean {
  return (response as Tagged<Response>)[IDENTIFIED] === true;
}

/** Notes that an answer was made with its `X-Request-Id` header already set. */
export function identified(response: Response): Response {
  (response as Tagged<Response>)[IDENTIFIED] = true;
  return response;
}
