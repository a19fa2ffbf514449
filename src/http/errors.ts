/**
 * Every error code the API answers with and its HTTP status: one exhaustive
 * table, so a code always means the same status. Engine routes add their codes
 * here rather than choosing statuses at the call site.
 */
export const ERROR_STATUS = {
  invalid_json: 400,
  invalid_request: 400,
  invalid_host_report: 400,
  nesting_too_deep: 400,
  too_many_items: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  host_not_found: 404,
  permit_not_found: 404,
  unknown_engine: 404,
  method_not_allowed: 405,
  conflict: 409,
  lease_expired: 409,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  engine_not_supported: 400,
  policy_invalid: 422,
  budget_exceeded: 422,
  answer_too_deep: 422,
  idempotency_key_reused: 422,
  internal_error: 500,
  service_unavailable: 503,
  overloaded: 503,
  auth_misconfigured: 503,
} as const;

/** A stable snake_case error code. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** One item of an error's `details`: what was wrong and where (a JSON pointer or line:column). */
export interface ErrorDetail {
  code: string;
  message: string;
  at: string;
  /** The known name closest to a wrong one, when one is close (did-you-mean). */
  suggestion?: string;
}

/** One policy error as an error detail: code, message, place, and the did-you-mean suggestion when it has one. */
export function errorDetail(e: {
  code: string;
  message: string;
  at: string;
  suggestion?: string;
}): ErrorDetail {
  return e.suggestion === undefined
    ? { code: e.code, message: e.message, at: e.at }
    : { code: e.code, message: e.message, at: e.at, suggestion: e.suggestion };
}

/** Fields an error body carries beside its code for some routes: `side` names which of a diff's two policies failed. */
export interface ErrorFields {
  side?: "old" | "new";
}

/**
 * An error the HTTP layer answers with. Thrown inside handlers and turned into
 * the one envelope by the app's error handler, so no route shapes errors itself.
 */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly fields?: ErrorFields,
  ) {
    super(message);
  }

  /** The HTTP status for this error's code. */
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

/** How many details an error body lists; the rest are only counted (`details_omitted`). */
export const MAX_ERROR_DETAILS = 50;
/** The longest message (or `at`) an error body carries; longer ones are cut with `…`. */
export const MAX_ERROR_TEXT = 1000;

/** Cuts a text longer than {@link MAX_ERROR_TEXT} characters, ending it with `…`. */
export function clipText(text: string): string {
  return text.length > MAX_ERROR_TEXT ? text.slice(0, MAX_ERROR_TEXT - 1) + "…" : text;
}

/**
 * The error envelope body every error response carries. Its size is bounded
 * whatever the input: the first {@link MAX_ERROR_DETAILS} details, then a
 * count of the others, and texts cut at {@link MAX_ERROR_TEXT} characters.
 */
export function errorBody(
  code: ErrorCode,
  message: string,
  requestId: string,
  details?: readonly ErrorDetail[],
  fields?: ErrorFields,
) {
  const shown = details?.slice(0, MAX_ERROR_DETAILS).map((d) => ({
    code: clipText(d.code),
    message: clipText(d.message),
    at: clipText(d.at),
    ...(d.suggestion !== undefined ? { suggestion: clipText(d.suggestion) } : {}),
  }));
  const omitted = details !== undefined ? details.length - MAX_ERROR_DETAILS : 0;
  return {
    error: {
      code,
      message: clipText(message),
      ...(shown ? { details: shown } : {}),
      ...(omitted > 0 ? { details_omitted: omitted } : {}),
      ...(fields?.side !== undefined ? { side: fields.side } : {}),
      request_id: requestId,
    },
  };
}
