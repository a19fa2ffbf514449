/**
 * Name rules shared by validation, loading and deciding: queue names, filter
 * and ACL name patterns, `_dot_` replacement and YuniKorn's fixed error texts.
 */

/** YuniKorn's text for a queue name that fails the pattern; part of the spec, kept verbatim. */
export const INVALID_QUEUE_NAME =
  "invalid queue name, max 64 characters consisting of alphanumeric characters and '-', '_', '#', '@', '/', ':' allowed";

/** The queue name pattern, `^[a-zA-Z0-9_:#/@-]{1,64}$`, used where a regex is wanted. */
export const QUEUE_NAME_RE = /^[a-zA-Z0-9_:#/@-]{1,64}$/;
/** Filter user names. */
export const FILTER_USER_RE = /^[_a-zA-Z][a-zA-Z0-9:#/_.@-]*[$]?$/;
/** Filter group names. */
export const FILTER_GROUP_RE = /^[_a-zA-Z][a-zA-Z0-9:_.-]*$/;
/** Characters that make a single filter entry a regular expression. */
export const SPECIAL_RE = /[\^$*+?()[{}|]/;
/** Rule names (the validator's identifier pattern). */
export const RULE_NAME_RE = /^[_a-zA-Z][a-zA-Z0-9_]*$/;
/** ACL user names (narrower than filter user names). */
export const ACL_USER_RE = /^[_a-zA-Z][a-zA-Z0-9_.@-]*[$]?$/;
/** ACL group names. */
export const ACL_GROUP_RE = /^[_a-zA-Z][a-zA-Z0-9_-]*$/;

/** The recovery queue's full path, lower-case. */
export const RECOVERY_QUEUE = "root.@recovery@";
/** The recovery queue's own name. */
export const RECOVERY_NAME = "@recovery@";
/** The tag that lets the recovery rule place an application. */
export const FORCE_TAG = "application.create.force";

/**
 * Checks one queue level without a regex: this runs on the hot path for every
 * user, tag and provided name, so it is a plain character loop.
 */
export function isQueueNameValid(name: string): boolean {
  const n = name.length;
  if (n < 1 || n > 64) return false;
  for (let i = 0; i < n; i++) {
    const c = name.charCodeAt(i);
    if (
      (c >= 97 && c <= 122) || // a-z
      (c >= 65 && c <= 90) || // A-Z
      (c >= 48 && c <= 58) || // 0-9 and ':'
      c === 95 || // _
      c === 35 || // #
      c === 47 || // /
      c === 64 || // @
      c === 45 // -
    ) {
      continue;
    }
    return false;
  }
  return true;
}

/** Turns a name with dots into one queue level, as YuniKorn does for users, provided and tag names. */
export function replaceDot(name: string): string {
  return name.indexOf(".") < 0 ? name : name.replaceAll(".", "_dot_");
}

/** True when every dot-separated part of a path is a valid queue name. */
export function allPartsValid(path: string): boolean {
  let start = 0;
  for (;;) {
    const dot = path.indexOf(".", start);
    const part = dot < 0 ? path.slice(start) : path.slice(start, dot);
    if (!isQueueNameValid(part)) return false;
    if (dot < 0) return true;
    start = dot + 1;
  }
}

/** Go's strconv.ParseBool truth values, which decide whether an application forces creation. */
export function parseGoBoolTrue(value: string | undefined): boolean {
  return (
    value === "1" ||
    value === "t" ||
    value === "T" ||
    value === "TRUE" ||
    value === "true" ||
    value === "True"
  );
}

/** Lower-cases a partition name and maps `""` to `default`, as the validator does. */
export function normalisePartitionName(name: string): string {
  const lower = name.toLowerCase();
  return lower === "" ? "default" : lower;
}
