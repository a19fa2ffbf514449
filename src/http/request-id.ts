import type { Context } from "hono";
import type { AppEnv } from "../env.js";
import { keepShape } from "../engines/common/shapes.js";

/**
 * What answering one request keeps besides the runtime's objects: the request's id (the
 * caller's `X-Request-Id`, else a fresh one) and the answer made with that header already
 * set. Hono holds it as the context's execution context, passing `waitUntil` and
 * `passThroughOnException` on to the runtime's. It is never a property of the runtime's
 * `Request` or `Response`: workerd lets a young collection drop the JavaScript wrapper of a
 * runtime object (and destroy its C++ object then) only while the wrapper is unmodified (no
 * property added, never a WeakMap key). A modified wrapper waits, with its C++ objects, for a
 * full collection, which destroys thousands of them at once: 76 bytes of C++-object heap
 * more per request, 349 against 273, with the id and the mark on the wrappers
 * (docs/performance.md, wt/stalls).
 */
export class RequestScope {
  /** The answer made with the request's `X-Request-Id` already set, when one was. */
  answered: Response | undefined = undefined;

  constructor(
    readonly requestId: string,
    private readonly runtime: RuntimeContext | undefined,
    /** The request's URL text, read once before dispatch (the runtime makes a new string at each read). */
    readonly url?: string,
    /**
     * The request's headers, read once before dispatch: in workerd each read of `request.headers`
     * is a call into the runtime (about 1,770 instructions; docs/performance.md, wt/floor7).
     */
    readonly headers?: Headers,
  ) {}

  waitUntil(promise: Promise<unknown>): void {
    // as Hono's context does when it has no execution context: the caller awaits the work itself
    if (this.runtime === undefined) throw new Error("This context has no ExecutionContext");
    this.runtime.waitUntil(promise);
  }

  passThroughOnException(): void {
    this.runtime?.passThroughOnException();
  }

  get props(): unknown {
    return this.runtime?.props;
  }
}

/** A scope kept alive so that its map, and the optimized code that checks it, outlive each request (engines/common/shapes.ts). */
keepShape(new RequestScope("", undefined, "", undefined));

/** The runtime's execution context, as Hono types it. */
interface RuntimeContext {
  waitUntil(promise: Promise<unknown>): void;
  passThroughOnException(): void;
  props?: unknown;
}

/** A request's scope, as the context's execution context; undefined for a request Hono dispatched without one. */
function scopeOf(c: Context<AppEnv>): RequestScope | undefined {
  try {
    const ctx: unknown = c.executionCtx;
    return ctx instanceof RequestScope ? ctx : undefined;
  } catch {
    return undefined;
  }
}

/** Where a request dispatched without a scope keeps its id (only then is the runtime's object marked). */
const REQUEST_ID = Symbol("arbiter.requestId");

/** The id of the request a handler is answering, as its `X-Request-Id` header and error bodies give it. */
export function requestIdOf(c: Context<AppEnv>): string {
  const scope = scopeOf(c);
  if (scope !== undefined) return scope.requestId;
  const request = c.req.raw as Request & { [REQUEST_ID]?: string };
  return (request[REQUEST_ID] ??= crypto.randomUUID());
}

/**
 * Notes that an answer was made with its `X-Request-Id` header already set: a decision's 200
 * (`decisionAnswer`), which the Worker's fetch counts as a 200 without reading its status.
 */
export function identified(c: Context<AppEnv>, response: Response): Response {
  const scope = scopeOf(c);
  if (scope !== undefined) scope.answered = response;
  return response;
}

/** The headers of the request a handler is answering: its scope's reading, else the request's. */
export function requestHeadersOf(c: Context<AppEnv>): Headers {
  return scopeOf(c)?.headers ?? c.req.raw.headers;
}

/** The URL text of the request a handler is answering: its scope's reading, else the request's. */
export function requestUrlOf(c: Context<AppEnv>): string {
  return scopeOf(c)?.url ?? c.req.url;
}
