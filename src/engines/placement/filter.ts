import { compileLinear, describeProblem, type LinearRegex } from "../common/regex/index.js";
import { FILTER_GROUP_RE, FILTER_USER_RE, SPECIAL_RE } from "./names.js";
import type { Filter, FilterData, RawFilter, RegexData } from "./types.js";

/** Compiles a Go (RE2) expression with the linear-time matcher, or gives Go's error text with the offset. */
export function compileGoRegex(
  expr: string,
): { ok: true; value: LinearRegex } | { ok: false; error: string } {
  const r = compileLinear(expr, "re2");
  return r.ok
    ? r
    : { ok: false, error: `${describeProblem("re2", r.error, expr)} at offset ${r.error.offset}` };
}

/** The stored form of a Go expression, or null when Go's regexp would not compile it. */
export function translateGoRegex(expr: string): RegexData | null {
  return compileGoRegex(expr).ok ? { source: expr } : null;
}

/**
 * Why a single filter entry is refused (neither a name nor a regexp Go
 * compiles), or null when the validator accepts it; a regexp's problem is Go's
 * own error text with its offset in the entry.
 */
export function singleEntryProblem(entry: string, namePattern: RegExp): string | null {
  if (namePattern.test(entry)) return null;
  if (!SPECIAL_RE.test(entry)) return "";
  const r = compileGoRegex(entry);
  return r.ok ? null : r.error;
}

/** True when a single filter entry would be accepted by the validator as a name or as a regexp. */
export function singleEntryValid(entry: string, namePattern: RegExp): boolean {
  return singleEntryProblem(entry, namePattern) === null;
}

function buildList(entries: readonly string[], pattern: RegExp): { list: string[]; exp: RegexData | null } {
  const list: string[] = [];
  let exp: RegexData | null = null;
  if (entries.length === 1) {
    const one = entries[0];
    if (SPECIAL_RE.test(one)) exp = translateGoRegex(one);
    else if (pattern.test(one)) list.push(one);
  } else {
    for (const e of entries) if (pattern.test(e) && !list.includes(e)) list.push(e);
  }
  return { list, exp };
}

/**
 * Builds a rule filter as YuniKorn does: one entry may be a regexp, several are
 * literals; entries that fail the name pattern are dropped but still make the
 * filter non-empty. The type is compared case-insensitively (deviation §11b).
 */
export function buildFilter(raw: RawFilter): FilterData {
  const users = buildList(raw.users, FILTER_USER_RE);
  const groups = buildList(raw.groups, FILTER_GROUP_RE);
  return {
    allow: raw.type.toLowerCase() !== "deny",
    empty: raw.users.length === 0 && raw.groups.length === 0,
    users: users.list,
    groups: groups.list,
    userExp: users.exp,
    groupExp: groups.exp,
  };
}

/**
 * The matcher of a stored expression. Bundles compiled before the linear-time
 * layer stored a JavaScript translation (`(?i)` moved into `flags: "iu"`);
 * that flag is put back. An expression that does not compile (only possible in
 * such an old bundle) never matches, as such filters did then.
 */
function compile(exp: (RegexData & { flags?: string }) | null): LinearRegex | null {
  if (exp === null) return null;
  const source = exp.flags?.includes("i") === true ? `(?i)${exp.source}` : exp.source;
  const r = compileGoRegex(source);
  return r.ok ? r.value : NEVER;
}

/** A filter expression that matches nothing. */
const NEVER: LinearRegex = {
  fast: true,
  groups: 0,
  names: [],
  test: () => false,
  exec: () => null,
  match: () => null,
};

/** The one empty name set every filter without names shares (read only), so a chain of thousands of rules does not touch thousands of sets. */
const NO_NAMES: ReadonlySet<string> = new Set<string>();

function nameSet(names: readonly string[]): ReadonlySet<string> {
  return names.length === 0 ? NO_NAMES : new Set(names);
}

/** Rebuilds the fast form of a filter (sets and compiled regexes) once at load time. */
export function loadFilter(data: FilterData): Filter {
  return {
    allow: data.allow,
    empty: data.empty,
    users: nameSet(data.users),
    groups: nameSet(data.groups),
    userExp: compile(data.userExp),
    groupExp: compile(data.groupExp),
  };
}

/**
 * A prefix the user must start with for the filter to admit anyone, or null
 * when the filter has no such shortcut: an allow filter whose one user entry is
 * an anchored regexp with a literal start and which names no groups. Without
 * that prefix `filterAllows` is false whatever the groups.
 */
export function userGate(f: Filter): string | null {
  if (!f.allow || f.empty || f.userExp === null || f.groupExp !== null || f.groups.size > 0) return null;
  const prefix = f.userExp.prefix ?? "";
  return prefix === "" ? null : prefix;
}

/** Whether the filter admits exactly the users it lists by name (an allow filter with no regexp and no groups). */
export function namesOnly(f: Filter): boolean {
  return f.allow && !f.empty && f.userExp === null && f.groupExp === null && f.groups.size === 0;
}

/**
 * The filter's verdict for a user: a matched user or the first matched group
 * gives the type's answer, no match the opposite; an empty filter gives the type.
 */
export function filterAllows(f: Filter, user: string, groups: readonly string[]): boolean {
  if (f.empty) return f.allow;
  if (f.userExp !== null ? f.userExp.test(user) : f.users.has(user)) return f.allow;
  for (const g of groups) {
    if (f.groupExp !== null ? f.groupExp.test(g) : f.groups.has(g)) return f.allow;
  }
  return !f.allow;
}
