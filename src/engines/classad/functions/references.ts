/**
 * unresolved(attr[, regex]): the references of an attribute's expression that
 * resolve to no attribute, gathered as libclassad's _GetExternalReferences
 * gathers them with full names (classad.cpp) and listed as hasRefs prints
 * them (fnCall.cpp): sorted without regard to ASCII case on the full name
 * (`TARGET.a` sorts under t), a leading `target.` dropped only when printing.
 */
import { ClassAd } from "../classad.js";
import { compile } from "../compile.js";
import type { Node } from "../node.js";
import { cmpFold } from "../operators.js";
import { MAX_DEPTH, type EvalState } from "../state.js";
import { unparseNode } from "../unparse.js";
import { ERROR, UNDEF } from "../values.js";
import type { Builtin } from "./helpers.js";
import { budgeted, compilePattern, parseOpts, searchFrom } from "./regex.js";
import type { LinearRegex } from "../../common/regex/index.js";

/** The names LookupInScope answers itself in the default mode (TARGET is not one: it comes from the match ad). */
const SPECIAL = new Set(["my", "self", "parent", "root", "toplevel", "currenttime"]);

/** Why a walk stopped: the library then lists nothing at all. */
class Abandoned {}
const ABANDONED = new Abandoned();

/** The references found so far: a caseless set that keeps the first spelling. */
type Refs = Map<string, string>;

function add(refs: Refs, name: string): void {
  const k = name.toLowerCase();
  if (!refs.has(k)) refs.set(k, name);
}

/**
 * LookupInScope: the ad from `start` up to the evaluation's root that holds
 * `lc`, with the node of its expression, or null. A special name resolves
 * (to an ad or the clock), which the walk treats as having no references.
 */
function findInScope(
  start: ClassAd,
  lc: string,
  st: EvalState,
): { holder: ClassAd; node: Node | null } | null {
  for (let a: ClassAd | null = start; a !== null; a = a === st.root ? null : a.parent) {
    const slot = a.get(lc);
    if (slot !== undefined) return { holder: a, node: slot.c.node };
    if (SPECIAL.has(lc)) return { holder: a, node: null };
  }
  return null;
}

/** Walks one tree as _GetExternalReferences does; `cur` is the ad its names are looked up from. */
function walk(n: Node, cur: ClassAd, st: EvalState, refs: Refs, depth: number): void {
  // every node visited is work (a reference to an attribute re-walks that attribute's tree)
  if (depth > MAX_DEPTH || !st.spend(1)) throw ABANDONED;
  switch (n.k) {
    case "lit":
      return;
    case "attr": {
      let start: ClassAd;
      if (n.scope === null) {
        if (n.abs) {
          if (st.root === null) return add(refs, n.name);
          start = st.root;
        } else start = cur;
      } else {
        const v = compile(n.scope).ev(cur, st);
        if (v === UNDEF) return add(refs, `${unparseNode(n.scope)}.${n.name}`);
        if (!(v instanceof ClassAd)) throw ABANDONED;
        start = v;
      }
      const found = findInScope(start, n.lc, st);
      if (found === null) return add(refs, n.name);
      if (found.node !== null) walk(found.node, found.holder, st, refs, depth + 1);
      return;
    }
    case "op":
      walk(n.a, cur, st, refs, depth);
      if (n.b) walk(n.b, cur, st, refs, depth);
      return;
    case "cond":
      walk(n.c, cur, st, refs, depth);
      walk(n.a, cur, st, refs, depth);
      walk(n.b, cur, st, refs, depth);
      return;
    case "paren":
      walk(n.a, cur, st, refs, depth);
      return;
    case "call":
      for (const a of n.args) walk(a, cur, st, refs, depth + 1);
      return;
    case "list":
      for (const a of n.items) walk(a, cur, st, refs, depth + 1);
      return;
    case "ad":
      // a nested ad's attributes are walked in the scope of the ad being searched, as the library does
      for (const [, a] of n.attrs) walk(a, cur, st, refs, depth + 1);
      return;
  }
}

/** True when `re` has a non-empty match somewhere in `s` (PCRE2_NOTEMPTY, read position by position). */
function nonEmptyMatch(re: LinearRegex, s: string): boolean {
  for (let from = 0; from <= s.length;) {
    const m = searchFrom(re, s, from);
    if (m === null) return false;
    if (m[0] !== "") return true;
    from = m.index + 1;
  }
  return false;
}

/** A full name as hasRefs prints it: without a leading `target.` (any case). */
function printed(name: string): string {
  return name.length > 7 && name.slice(0, 7).toLowerCase() === "target." ? name.slice(7) : name;
}

/**
 * unresolved(attr[, regex]). One argument: the names joined with commas (""
 * when the walk is abandoned: a reference cycle, nesting past the depth
 * bound, or a scope that is neither an ad nor UNDEFINED). Two: whether any
 * name matches the pattern (caseless, non-empty match); a pattern that is not
 * a String fails the evaluation, one that does not compile is ERROR.
 */
const unresolved: Builtin = (args, ad, st, nodes) => {
  if (args.length < 1 || args.length > 2 || nodes[0].k !== "attr") return ERROR;
  const slot = ad.get(nodes[0].lc);
  if (slot === undefined) return UNDEF;
  let re: LinearRegex | null = null;
  if (args.length === 2) {
    const p = args[1](ad, st);
    if (typeof p !== "string") {
      st.failed = true;
      return ERROR;
    }
    re = compilePattern(p, parseOpts("i", false));
    if (re === null) return ERROR;
  }
  const refs: Refs = new Map();
  try {
    walk(slot.c.node, ad, st, refs, 0);
  } catch (e) {
    if (e !== ABANDONED) throw e;
    if (st.work > st.workLimit) return ERROR;
    return re === null ? "" : false;
  }
  const names = [...refs.values()].sort(cmpFold).map(printed);
  if (re === null) return names.join(",");
  return names.some((n) => nonEmptyMatch(re, n));
};

/** The reference built-ins by lower-cased name. */
export const REFERENCES: ReadonlyArray<readonly [string, Builtin]> = [["unresolved", budgeted(unresolved)]];
