import {
  compileLinear,
  describeProblem,
  inspectPattern,
  type LinearRegex,
  type PatternFacts,
} from "../common/regex/index.js";
import { LazyLinear } from "../common/regex/lazy.js";
import { FILTER_GROUP_RE, FILTER_USER_RE, SPECIAL_RE } from "./names.js";
import type { Filter, FilterData, RawFilter, RegexData } from "./types.js";

type Compiled = { ok: true; value: LinearRegex } | { ok: false; error: string };
type Inspected = { ok: true; value: PatternFacts } | { ok: false; error: string };

/**
 * The expressions inspected during one policy compile, so that validation and
 * the rule build inspect each only once. Each compile makes its own (never a
 * module's variable): a compile runs in slices (common/slices.ts), and two
 * compiles interleaved in one isolate must not share one.
 */
export type RegexMemo = Map<string, Inspected>;

/**
 * The memo a parse seeded for the compile that reads its configuration,
 * keyed by the decoded configuration: the quick rule decoder puts there the
 * expressions of a shared rule shape that it read once per expression shape
 * (quick-rule.ts, regex-shape.ts), each with the answer `inspectGoRegex`
 * gives it, so that validation and the build find them without inspecting.
 */
export const SEEDED_MEMOS = new WeakMap<object, RegexMemo>();

/**
 * Validates a Go (RE2) expression and reads the literals its matches need,
 * without building its matcher (a policy compile stores expressions that the
 * first decision testing them compiles); the error is Go's text with the offset.
 */
export function inspectGoRegex(expr: string, memo?: RegexMemo): Inspected {
  const known = memo?.get(expr);
  if (known !== undefined) return known;
  const r = inspectPattern(expr, "re2");
  const out: Inspected = r.ok
    ? r
    : { ok: false, error: `${describeProblem("re2", r.error, expr)} at offset ${r.error.offset}` };
  memo?.set(expr, out);
  return out;
}

/** Compiles a Go (RE2) expression with the linear-time matcher, or gives Go's error text with the offset. */
export function compileGoRegex(expr: string): Compiled {
  const r = compileLinear(expr, "re2");
  return r.ok
    ? r
    : { ok: false, error: `${describeProblem("re2", r.error, expr)} at offset ${r.error.offset}` };
}

/**
 * The stored form of a Go expression, or null when Go's regexp would not
 * compile it: with the literals every match needs, so that loading the policy
 * need not compile it and deciding can skip it for inputs that lack them, and
 * the few whole texts it matches when it matches only those (`^(u1|v1)$`),
 * which deciding looks up and never compiles.
 */
export function translateGoRegex(expr: string, memo?: RegexMemo): RegexData | null {
  const r = inspectGoRegex(expr, memo);
  if (!r.ok) return null;
  const out: RegexData = { source: expr, prefix: r.value.prefix, required: r.value.required };
  if (r.value.exact !== undefined) out.exact = r.value.exact;
  return out;
}

/**
 * Why a single filter entry is refused (neither a name nor a regexp Go
 * compiles), or null when the validator accepts it; a regexp's problem is Go's
 * own error text with its offset in the entry.
 */
export function singleEntryProblem(entry: string, namePattern: RegExp, memo?: RegexMemo): string | null {
  if (namePattern.test(entry)) return null;
  if (!SPECIAL_RE.test(entry)) return "";
  const r = inspectGoRegex(entry, memo);
  return r.ok ? null : r.error;
}

/** True when a single filter entry would be accepted by the validator as a name or as a regexp. */
export function singleEntryValid(entry: string, namePattern: RegExp): boolean {
  return singleEntryProblem(entry, namePattern) === null;
}

function buildList(
  entries: readonly string[],
  pattern: RegExp,
  memo?: RegexMemo,
): { list: string[]; exp: RegexData | null } {
  const list: string[] = [];
  let exp: RegexData | null = null;
  if (entries.length === 1) {
    const one = entries[0];
    if (SPECIAL_RE.test(one)) exp = translateGoRegex(one, memo);
    else if (pattern.test(one)) list.push(one);
  } else if (entries.length <= SHORT_LIST) {
    // each name once, in the order given: a short list is searched
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i];
      if (pattern.test(e) && !list.includes(e)) list.push(e);
    }
  } else {
    // each name once, in the order given (a set keeps a list of thousands linear)
    const seen = new Set<string>();
    for (const e of entries)
      if (pattern.test(e) && !seen.has(e)) {
        seen.add(e);
        list.push(e);
      }
  }
  return { list, exp };
}

/** The longest list of names whose repeats {@link buildList} finds by searching what it kept (a set above it). */
const SHORT_LIST = 8;

/**
 * Builds a rule filter as YuniKorn does: one entry may be a regexp, several are
 * literals; entries that fail the name pattern are dropped but still make the
 * filter non-empty. The type is compared case-insensitively (deviation §11b).
 * `memo` holds the compile's expressions already inspected (see RegexMemo).
 */
export function buildFilter(raw: RawFilter, memo?: RegexMemo): FilterData {
  const users = buildList(raw.users, FILTER_USER_RE, memo);
  const groups = buildList(raw.groups, FILTER_GROUP_RE, memo);
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
 * A stored filter expression, compiled the first time a decision tests it
 * (charged to that decision's budget, common/regex/lazy.ts): loading a policy
 * of thousands of rules compiles nothing, and a decision compiles only the
 * expressions its user's literals do not rule out. An expression that matches
 * only a few whole texts is tested by looking them up, never compiled.
 */
export class LazyRegex {
  private readonly matcher: LazyLinear | null;

  constructor(
    source: string,
    /** Text every match starts with (see LinearRegex.prefix), or "". */
    readonly prefix: string,
    /** Text every match contains (see LinearRegex.required), or "". */
    readonly required: string,
    /** Every text the expression matches, when it matches only those (see RegexData.exact), else null. */
    readonly exact: ReadonlySet<string> | null = null,
  ) {
    this.matcher = exact === null ? new LazyLinear(source, "re2") : null;
  }

  /** Whether the expression matches anywhere in `s` (the first test compiles it, charged, and may throw `BudgetExceeded`). */
  test(s: string): boolean {
    return this.matcher === null ? (this.exact as ReadonlySet<string>).has(s) : this.matcher.test(s);
  }

  /** Whether the expression's matcher has been compiled (never, for one tested by its texts). */
  get compiled(): boolean {
    return this.matcher !== null && this.matcher.built;
  }
}

/**
 * The matcher of a stored expression. Bundles compiled before the linear-time
 * layer stored a JavaScript translation (`(?i)` moved into `flags: "iu"`);
 * that flag is put back. An expression that does not compile (only possible in
 * such an old bundle) never matches, as such filters did then. Bundles made
 * before the literals were stored have them read off the compiled expression.
 */
function compile(exp: (RegexData & { flags?: string }) | null): LazyRegex | null {
  if (exp === null) return null;
  const source = exp.flags?.includes("i") === true ? `(?i)${exp.source}` : exp.source;
  if (exp.prefix !== undefined && exp.required !== undefined)
    return new LazyRegex(
      source,
      exp.prefix,
      exp.required,
      exp.exact === undefined ? null : new Set(exp.exact),
    );
  const r = compileGoRegex(source);
  return r.ok
    ? new LazyRegex(source, r.value.prefix ?? "", r.value.required ?? "")
    : new LazyRegex("(?!)", "", "");
}

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
 * How a gate reads one side (user or groups) of a filter, see
 * {@link FilterGate}: nothing on this side can match (no entries, or only
 * dropped ones); only the names listed (looked up in an index); only text
 * starting with the literal; only text containing it.
 */
export const Side = { None: 0, Names: 1, Prefix: 2, Contains: 3 } as const;
/** One of {@link Side}'s values. */
export type Side = (typeof Side)[keyof typeof Side];

/**
 * What an allow filter needs from an application before it can admit it: a
 * user side and a group side, each saying which texts could possibly match.
 * A decision skips the rule when neither side can; null when the filter has
 * no such shortcut (deny or empty filters, expressions without literals).
 */
export interface FilterGate {
  user: Side;
  userLiteral: string;
  group: Side;
  groupLiteral: string;
}

function sideOf(names: ReadonlySet<string>, exp: LazyRegex | null): { side: Side; literal: string } | null {
  if (exp === null) return { side: names.size > 0 ? Side.Names : Side.None, literal: "" };
  // an expression of a few whole texts is indexed by them as a list of names is (gate-store.ts)
  if (exp.exact !== null) return { side: exp.exact.size > 0 ? Side.Names : Side.None, literal: "" };
  if (exp.prefix !== "") return { side: Side.Prefix, literal: exp.prefix };
  if (exp.required !== "") return { side: Side.Contains, literal: exp.required };
  return null;
}

/** The gate of a filter, or null (see {@link FilterGate}). */
export function filterGate(f: Filter): FilterGate | null {
  if (!f.allow || f.empty) return null;
  const user = sideOf(f.users, f.userExp);
  const group = sideOf(f.groups, f.groupExp);
  if (user === null || group === null) return null;
  return { user: user.side, userLiteral: user.literal, group: group.side, groupLiteral: group.literal };
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
