/**
 * Bench-only: evaluated inside workerd before the Worker's own module (bench/runtime-objects.ts
 * bundles it in front of a Worker), it counts the runtime (C++-backed) objects the Worker asks
 * workerd for: every construction of a runtime class, the first touch of an object the runtime
 * makes lazily for JavaScript (a request's or answer's `headers`, its `body` stream), body
 * reads, `crypto`, `caches`, `fetch`, timers, console lines, and calls on the env's bindings
 * (KV, Durable Object namespaces and their stubs). Nothing is changed but the counting: every
 * call goes to the runtime's own function with its own receiver.
 */

type Counted = Record<string, number>;

const counts = new Map<string, number>();
let paused = false;

function note(label: string): void {
  if (!paused) counts.set(label, (counts.get(label) ?? 0) + 1);
}

type Ctor = abstract new (...args: unknown[]) => object;
const scope = globalThis as unknown as Record<string, unknown>;

/** Counts `new Name(...)` (and `Name.method(...)` static factories) of a runtime class. */
function countConstructor(name: string, statics: readonly string[] = []): void {
  const original = scope[name] as Ctor | undefined;
  if (typeof original !== "function") return;
  const label = `new ${name}`;
  const counted: Ctor = new Proxy(original, {
    construct(target, args, newTarget) {
      note(label);
      return Reflect.construct(target, args, newTarget === counted ? target : newTarget) as object;
    },
  });
  for (const s of statics) {
    const f = (original as unknown as Record<string, unknown>)[s];
    if (typeof f !== "function") continue;
    const sl = `${name}.${s}()`;
    Object.defineProperty(original, s, {
      configurable: true,
      writable: true,
      value(...args: unknown[]) {
        note(sl);
        return (f as (...a: unknown[]) => unknown).apply(original, args);
      },
    });
  }
  scope[name] = counted;
}

/** Counts the first read of a lazily made property per object (the runtime makes its JavaScript wrapper then). */
function countFirstTouch(proto: object | undefined, prop: string, label: string): void {
  if (proto === undefined) return;
  const at = definer(proto, prop);
  const d = at === undefined ? undefined : Object.getOwnPropertyDescriptor(at, prop);
  if (at === undefined || d?.get === undefined || !d.configurable) {
    note(`(not counted: ${label})`);
    return;
  }
  const get = d.get;
  const seen = new WeakSet<object>();
  Object.defineProperty(at, prop, {
    ...d,
    get(this: object) {
      if (!seen.has(this)) {
        seen.add(this);
        note(label);
      }
      return get.call(this) as unknown;
    },
  });
}

/** Where on `proto`'s chain `name` is defined (a Request's `text` is its body mixin's). */
function definer(proto: object, name: string): object | undefined {
  for (
    let p: object | null = proto;
    p !== null && p !== Object.prototype;
    p = Object.getPrototypeOf(p) as object | null
  )
    if (Object.getOwnPropertyDescriptor(p, name) !== undefined) return p;
  return undefined;
}

/** Counts calls of prototype methods (a method shared by two classes is counted under the first owner named). */
function countMethods(start: object | undefined, owner: string, names: readonly string[]): void {
  if (start === undefined) return;
  for (const name of names) {
    const proto = definer(start, name);
    if (proto === undefined) continue;
    const d = Object.getOwnPropertyDescriptor(proto, name);
    if (
      d === undefined ||
      typeof d.value !== "function" ||
      !d.configurable ||
      counters.has(d.value as object)
    )
      continue;
    const f = d.value as (...a: unknown[]) => unknown;
    const label = `${owner}.${name}()`;
    const counter = function (this: unknown, ...args: unknown[]) {
      note(label);
      return f.apply(this, args);
    };
    counters.add(counter);
    Object.defineProperty(proto, name, { ...d, value: counter });
  }
}

/** The counting functions put in place, so that a method two classes share is counted once. */
const counters = new WeakSet<object>();

function protoOf(name: string): object | undefined {
  const c = scope[name] as { prototype?: object } | undefined;
  return c?.prototype;
}

for (const name of [
  "Headers",
  "URL",
  "URLSearchParams",
  "ReadableStream",
  "WritableStream",
  "TransformStream",
  "TextEncoder",
  "TextDecoder",
  "Blob",
  "File",
  "FormData",
  "AbortController",
  "Event",
  "CompressionStream",
  "DecompressionStream",
]) {
  countConstructor(name);
}
const requestProto = protoOf("Request");
const responseProto = protoOf("Response");
const headersProto = protoOf("Headers");
countConstructor("Request");
countConstructor("Response", ["json", "redirect", "error"]);
countFirstTouch(requestProto, "headers", "request.headers (wrapper made)");
countFirstTouch(requestProto, "body", "request.body (stream wrapper made)");
countFirstTouch(requestProto, "signal", "request.signal (wrapper made)");
countFirstTouch(requestProto, "cf", "request.cf (object made)");
countFirstTouch(responseProto, "headers", "response.headers (wrapper made)");
countFirstTouch(responseProto, "body", "response.body (stream wrapper made)");
countMethods(requestProto, "request", ["text", "json", "arrayBuffer", "formData", "blob", "clone", "bytes"]);
countMethods(responseProto, "response", ["text", "json", "arrayBuffer", "clone", "bytes"]);
countMethods(headersProto, "headers", [
  "get",
  "set",
  "append",
  "has",
  "delete",
  "entries",
  "keys",
  "values",
  "forEach",
  "getSetCookie",
]);

const cryptoObject = scope.crypto as object | undefined;
countMethods(
  cryptoObject === undefined ? undefined : (Object.getPrototypeOf(cryptoObject) as object),
  "crypto",
  ["randomUUID", "getRandomValues"],
);
const subtle = (cryptoObject as { subtle?: object } | undefined)?.subtle;
countMethods(subtle === undefined ? undefined : (Object.getPrototypeOf(subtle) as object), "crypto.subtle", [
  "digest",
  "importKey",
  "sign",
  "verify",
  "timingSafeEqual",
]);
try {
  const cache = (scope.caches as { default?: object } | undefined)?.default;
  countMethods(cache === undefined ? undefined : (Object.getPrototypeOf(cache) as object), "caches.default", [
    "match",
    "put",
    "delete",
  ]);
} catch {
  note("(not counted: caches)");
}
for (const name of [
  "fetch",
  "setTimeout",
  "setInterval",
  "queueMicrotask",
  "structuredClone",
  "btoa",
  "atob",
]) {
  const f = scope[name];
  if (typeof f !== "function") continue;
  const label = `${name}()`;
  scope[name] = function (this: unknown, ...args: unknown[]) {
    note(label);
    return (f as (...a: unknown[]) => unknown).apply(this, args);
  };
}
for (const level of ["log", "info", "warn", "error"] as const) {
  const f = console[level];
  const label = `console.${level}()`;
  console[level] = (...args: unknown[]) => {
    note(label);
    f.apply(console, args);
  };
}

/** A binding with each method call counted. */
function countingBinding<T extends object>(target: T, label: string): T {
  return new Proxy(target, {
    get(t, prop) {
      const v = (t as Record<PropertyKey, unknown>)[prop];
      if (typeof v !== "function" || typeof prop !== "string" || prop === "constructor") return v;
      const name = `${label}.${prop}()`;
      return (...args: unknown[]) => {
        note(name);
        const out = (v as (...a: unknown[]) => unknown).apply(t, args);
        // what a binding answers (an id, a Durable Object stub) stays the runtime's own object:
        // a stub behind a proxy cannot be called (its calls are as many as the namespace's `get`s)
        return out;
      };
    },
  });
}

const wrappedEnvs = new WeakMap<object, object>();

/** The env with every binding object's method calls counted; one wrapper per env object, so the Worker's caches keyed on it still hit. */
export function countingEnv<E extends object>(env: E): E {
  let out = wrappedEnvs.get(env);
  if (out === undefined) {
    const copy: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(env))
      copy[k] = v !== null && typeof v === "object" ? countingBinding(v, `env.${k}`) : v;
    out = copy;
    wrappedEnvs.set(env, out);
  }
  return out as E;
}

/**
 * When the runtime's requests are reclaimed: each incoming request is registered with a
 * FinalizationRegistry, whose callbacks for one collection run together, before the next
 * request is seen. A batch is the requests reclaimed with no request arriving in between:
 * what workerd then destroys at once (each request's C++ `Request`, `Headers` and body).
 */
let arrived = 0;
let batchAt = -1;
let batchSize = 0;
let largestBatch = 0;
let batches = 0;
let reclaimed = 0;
let ageSum = 0;
const reclaim = new FinalizationRegistry<number>((arrival) => {
  if (batchAt !== arrived) {
    batchAt = arrived;
    batchSize = 0;
    batches++;
  }
  batchSize++;
  reclaimed++;
  ageSum += arrived - arrival;
  if (batchSize > largestBatch) largestBatch = batchSize;
});

/** Notes a request the runtime handed the Worker. */
export function noteIncoming(request: object): void {
  note("request (made by the runtime)");
  reclaim.register(request, arrived++);
}

/** The counts so far, as a plain object, and the reclamation figures (the largest batch since the last read); nothing the reading itself does is counted. */
export function readCounts(): Counted {
  const out: Counted = Object.fromEntries(counts);
  out["~arrived"] = arrived;
  out["~reclaimed"] = reclaimed;
  out["~batches"] = batches;
  out["~age sum"] = ageSum;
  out["~largest batch"] = largestBatch;
  largestBatch = 0;
  return out;
}

/** Runs `f` without counting what it asks the runtime for (the probe's own answers). */
export function uncounted<T>(f: () => T): T {
  paused = true;
  try {
    return f();
  } finally {
    paused = false;
  }
}
