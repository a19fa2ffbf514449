import { FILTER_GROUP_RE, FILTER_USER_RE, SPECIAL_RE } from "./names.js";
import type { Filter, FilterData, RawFilter, RegexData } from "./types.js";

/**
 * Translates a Go RE2 expression into a JavaScript `u` regex: a leading `(?i)`
 * becomes the `i` flag and `(?P<name>` becomes `(?<name>`. Returns null when
 * JavaScript cannot compile it, which the filter treats as "never matches".
 */
export function translateGoRegex(expr: string): RegexData | null {
  let source = expr;
  let flags = "u";
  if (source.startsWith("(?i)")) {
    source = source.slice(4);
    flags = "iu";
  }
  source = source.replace(/\(\?P</g, "(?<");
  try {
    new RegExp(source, flags);
  } catch {
    return null;
  }
  return { source, flags };
}

/** True when a single filter entry would be accepted by the validator as a name or as a regexp. */
export function singleEntryValid(entry: string, namePattern: RegExp): boolean {
  if (namePattern.test(entry)) return true;
  return SPECIAL_RE.test(entry) && translateGoRegex(entry) !== null;
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

function compile(exp: RegexData | null): RegExp | null {
  return exp === null ? null : new RegExp(exp.source, exp.flags);
}

/** Rebuilds the fast form of a filter (sets and compiled regexes) once at load time. */
export function loadFilter(data: FilterData): Filter {
  return {
    allow: data.allow,
    empty: data.empty,
    users: new Set(data.users),
    groups: new Set(data.groups),
    userExp: compile(data.userExp),
    groupExp: compile(data.groupExp),
  };
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
