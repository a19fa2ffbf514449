/** A value or the errors that prevented it: errors are values, throwing is for bugs. */
export type Result<T, E> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: E };

/** Wraps a successful value. */
export function ok<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

/** Wraps a failure. */
export function err<E>(error: E): { ok: false; error: E } {
  return { ok: false, error };
}

/**
 * One problem found in a policy source. `code` is stable snake_case prefixed by
 * the engine (`placement_invalid_rule_name`); `at` is a JSON pointer
 * (`/partitions/0/placementrules/1`) or `line:column` for text formats.
 */
export interface PolicyError {
  readonly code: string;
  readonly message: string;
  readonly at: string;
  /** The known name closest to a wrong one, when one is close (did-you-mean); the message says it too. */
  readonly suggestion?: string;
}

/** Builds a PolicyError; a helper so call sites stay one line. */
export function policyError(code: string, message: string, at = "", suggestion?: string): PolicyError {
  return suggestion === undefined ? { code, message, at } : { code, message, at, suggestion };
}
