import type { Context } from "hono";
import type { AppEnv } from "../env.js";

/** Each request's id while it is answered (the caller's `X-Request-Id`, else a fresh one). */
const requestIds = new WeakMap<Request, string>();

/** Answers made with their `X-Request-Id` already set, which the app's `fetch` passes on as they are. */
const identifiedAnswers = new WeakSet<Response>();

/** Gives a request its id, before Hono dispatches it. */
export function setRequestId(request: Request, id: string): void {
  requestIds.set(request, id);
}

/** The id of the request a handler is answering, as its `X-Request-Id` header and error bodies give it. */
export function requestIdOf(c: Context<AppEnv>): string {
  let id = requestIds.get(c.req.raw);
  if (id === undefined) requestIds.set(c.req.raw, (id = crypto.randomUUID()));
  return id;
}

/** Whether an answer already carries its request's `X-Request-Id`. */
export function carriesRequestId(response: Response): boolean {
  return identifiedAnswers.has(response);
}

/** Notes that an answer was made with its `X-Request-Id` header already set. */
export function identified(response: Response): Response {
  identifiedAnswers.add(response);
  return response;
}
