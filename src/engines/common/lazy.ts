/** A value made by its first call and kept; `built` says whether that call has happened. */
export interface Lazy<T> {
  (): T;
  /** Whether the value has been made (by a first call). */
  readonly built: boolean;
}

/**
 * `build`'s value, made on the first call of the returned function and kept. The schemas only
 * some routes, the OpenAPI document or a policy compile use are made this way, so an isolate
 * that only decides never builds them (docs/performance.md, wt/lazyschema to wt/heap2).
 */
export function lazily<T>(build: () => T): Lazy<T> {
  let value: T | undefined;
  let built = false;
  const get = (): T => {
    if (!built) {
      value = build();
      built = true;
    }
    return value as T;
  };
  return Object.defineProperty(get, "built", { get: () => built }) as Lazy<T>;
}
