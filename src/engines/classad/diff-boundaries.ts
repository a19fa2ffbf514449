/**
 * The boundaries two pool policies draw, for the match diff: every attribute
 * the NEGOTIATOR_PE_* expressions read, on the ad the negotiator reads it from
 * (schedd, job or machine), with the values that reach each side of the
 * comparisons around it: each literal it is compared with (numbers ± 1, strings
 * in another case), the members of literal string lists, the witnesses of
 * regexp() patterns, a fresh value, absence (UNDEFINED) and a value of the
 * wrong type (the ERROR paths). Values are ClassAd literal texts; `null` is absence.
 */
import { countBoundary, regexWitnesses } from "../common/diff-requests.js";
import { compilePattern, parseOpts } from "./functions/regex.js";
import { stringTokens } from "./functions/string-lists.js";
import type { Node, Op } from "./node.js";
import { parseExpr } from "./parser.js";
import type { MatchPolicyData, PeName } from "./policy.js";
import { identText, quoteString, realText } from "./unparse.js";
import { Real, type Value } from "./values.js";

/** The ad an attribute is read from. */
export type AdSide = "schedd" | "job" | "machine";

/** A string no policy is likely to hold: the fresh value, and the wrong type where numbers are compared. */
export const FRESH = "zz-fresh-9";

/** Values one attribute takes at most (beyond, the rest are dropped and the coverage says so). */
export const MAX_VALUES_PER_ATTRIBUTE = 24;

const MAX_DEPTH = 1000;

/** One attribute of one ad the policies read, with the values it takes. */
export interface AttrDim {
  readonly side: AdSide;
  /** The name as first written. */
  readonly name: string;
  readonly lc: string;
  /** The name as an ad's text writes it (quoted when not a plain identifier). */
  readonly ident: string;
  /** ClassAd literal texts; `null` leaves the attribute out of the ad. */
  readonly values: (string | null)[];
}

/** The dimensions, which of them each expression reads, and how many boundaries were found. */
export interface MatchBoundaries {
  dims: AttrDim[];
  /** Per expression (of either policy), the indexes of the dimensions it reads. */
  groups: number[][];
  boundaries: Record<string, number>;
  why: string[];
  /** Whether either policy sets NEGOTIATOR_PE_SCHEDD_ONLY_EXPR (requests then carry a schedd ad). */
  schedd: boolean;
}

/** The ad `MY` and `TARGET` name in each expression; a bare name is looked up in MY, then TARGET. */
const HOME: Readonly<Record<PeName, readonly [AdSide, AdSide | null]>> = {
  NEGOTIATOR_PE_SCHEDD_ONLY_EXPR: ["schedd", null],
  NEGOTIATOR_PE_STARTD_ONLY_EXPR: ["machine", null],
  NEGOTIATOR_PE_JOB_ONLY_EXPR: ["job", null],
  NEGOTIATOR_PE_RESOURCE_EXPR: ["machine", "job"],
  NEGOTIATOR_PE_JOB_EXPR: ["job", "machine"],
};

const COMPARISONS = new Set<Op>(["==", "!=", "=?=", "=!=", "is", "isnt", "<", "<=", ">", ">=", "?:"]);
const LOGICAL = new Set<Op>(["||", "&&", "!"]);
const REGEX_CALLS = new Set([
  "regexp",
  "regexpmember",
  "stringlist_regexpmember",
  "regexps",
  "replace",
  "replaceall",
]);

interface Ref {
  sides: AdSide[];
  name: string;
  context: Node | null;
}

/** The attribute references of a tree, each with the nearest comparison, call or elvis around it. */
function references(node: Node, home: readonly [AdSide, AdSide | null]): Ref[] {
  const refs: Ref[] = [];
  const bare = home[1] === null ? [home[0]] : [home[0], home[1]];
  const walk = (n: Node, context: Node | null, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    switch (n.k) {
      case "attr": {
        const s = n.scope;
        if (s !== null && s.k === "attr" && s.scope === null && (s.lc === "my" || s.lc === "target")) {
          const side = s.lc === "my" ? home[0] : home[1];
          if (side !== null) refs.push({ sides: [side], name: n.name, context });
        } else {
          if (n.lc !== "my" && n.lc !== "target") refs.push({ sides: bare, name: n.name, context });
          if (s !== null) walk(s, context, depth + 1);
        }
        return;
      }
      case "op": {
        const inner = COMPARISONS.has(n.op) ? n : LOGICAL.has(n.op) ? null : context;
        walk(n.a, inner, depth + 1);
        if (n.b !== null) walk(n.b, inner, depth + 1);
        return;
      }
      case "cond":
        walk(n.c, null, depth + 1);
        walk(n.a, context, depth + 1);
        walk(n.b, context, depth + 1);
        return;
      case "paren":
        return walk(n.a, context, depth + 1);
      case "call":
        for (const a of n.args) walk(a, n, depth + 1);
        return;
      case "ad":
        for (const [, v] of n.attrs) walk(v, null, depth + 1);
        return;
      case "list":
        for (const x of n.items) walk(x, context, depth + 1);
        return;
      case "lit":
        return;
    }
  };
  walk(node, null, 0);
  return refs;
}

/** The literal values under a node (a negated number counts as the negative literal). */
function literals(node: Node, out: Value[] = [], depth = 0): Value[] {
  if (depth > MAX_DEPTH) return out;
  if (node.k === "lit") out.push(node.v);
  else if (node.k === "op" && node.op === "u-" && node.a.k === "lit" && typeof node.a.v === "number")
    out.push(-node.a.v);
  else if (node.k === "op") {
    literals(node.a, out, depth + 1);
    if (node.b !== null) literals(node.b, out, depth + 1);
  } else if (node.k === "paren") literals(node.a, out, depth + 1);
  else if (node.k === "call" || node.k === "list")
    for (const a of node.k === "call" ? node.args : node.items) literals(a, out, depth + 1);
  else if (node.k === "cond") for (const a of [node.c, node.a, node.b]) literals(a, out, depth + 1);
  return out;
}

/** Another case of a string (upper case, or lower when it already is), or null when it has no letters. */
function caseVariant(s: string): string | null {
  const up = s.toUpperCase();
  if (up !== s) return up;
  const low = s.toLowerCase();
  return low !== s ? low : null;
}

/** The values one reference's context gives its attribute, counting each kind of boundary. */
function contextValues(ref: Ref, boundaries: Record<string, number>): string[] {
  const c = ref.context;
  if (c === null) return [];
  const out: string[] = [];
  if (c.k === "call" && REGEX_CALLS.has(c.lc)) {
    const pattern = c.args[0];
    if (pattern?.k !== "lit" || typeof pattern.v !== "string") return out;
    const optArg =
      c.lc === "stringlist_regexpmember"
        ? c.args[3]
        : c.lc === "regexp" || c.lc === "regexpmember"
          ? c.args[2]
          : c.args[3];
    const opts = optArg?.k === "lit" && typeof optArg.v === "string" ? optArg.v.toLowerCase() : null;
    const re = compilePattern(pattern.v, parseOpts(opts, false));
    if (re === null) return out;
    const w = regexWitnesses(pattern.v, (s) => re.test(s), FRESH);
    countBoundary(boundaries, "regex witness", w.length);
    for (const s of w) out.push(c.lc === "regexpmember" ? `{ ${quoteString(s)} }` : quoteString(s));
    return out;
  }
  const lists = c.k === "call" && c.lc.startsWith("stringlist");
  for (const v of literals(c)) {
    if (typeof v === "number" || typeof v === "bigint") {
      const n = BigInt(v);
      for (const d of [-1n, 0n, 1n]) out.push(String(n + d));
      // the same number as a real: == compares across numeric types, =?= does not
      out.push(realText(Number(n)));
      countBoundary(boundaries, "threshold ±1");
    } else if (v instanceof Real) {
      for (const d of [-1, 0, 1]) out.push(realText(v.v + d));
      if (Number.isInteger(v.v)) out.push(String(v.v));
      countBoundary(boundaries, "threshold ±1");
    } else if (typeof v === "boolean") {
      out.push("true", "false");
    } else if (typeof v === "string") {
      countBoundary(boundaries, "string literal");
      const texts = lists ? [v, ...stringTokens(v, " ,")] : [v];
      if (lists) countBoundary(boundaries, "list member", texts.length - 1);
      for (const t of texts) {
        out.push(quoteString(t));
        const other = caseVariant(t);
        if (other === null) continue;
        out.push(quoteString(other));
        countBoundary(boundaries, "case variant");
      }
    }
  }
  return out;
}

/** The attributes both policies read, each with its boundary values, and which expression reads which. */
export function matchBoundaries(a: MatchPolicyData, b: MatchPolicyData): MatchBoundaries {
  const boundaries: Record<string, number> = {};
  const why = new Set<string>();
  const dims = new Map<string, { side: AdSide; name: string; lc: string; values: Set<string> }>();
  const groups: number[][] = [];
  const keys = new Map<string, number>();
  let schedd = false;
  for (const data of [a, b]) {
    for (const [name, text] of Object.entries(data.exprs) as [PeName, string][]) {
      if (name === "NEGOTIATOR_PE_SCHEDD_ONLY_EXPR") schedd = true;
      const p = parseExpr(text);
      if (!p.ok) continue;
      countBoundary(boundaries, "expression");
      const group = new Set<number>();
      for (const ref of references(p.node, HOME[name])) {
        const lc = ref.name.toLowerCase();
        // Requirements are kept true on every generated ad, so that the pair can match
        if (lc === "requirements") continue;
        const values = contextValues(ref, boundaries);
        for (const side of ref.sides) {
          const key = `${side}:${lc}`;
          let dim = dims.get(key);
          if (dim === undefined) {
            dim = { side, name: ref.name, lc, values: new Set() };
            dims.set(key, dim);
            keys.set(key, keys.size);
            countBoundary(boundaries, "attribute");
          }
          for (const v of values) dim.values.add(v);
          group.add(keys.get(key)!);
        }
      }
      groups.push([...group].sort((x, y) => x - y));
    }
  }
  const out: AttrDim[] = [];
  for (const d of dims.values()) {
    const values: (string | null)[] = [...d.values];
    const strings = values.some((v) => v !== null && v.startsWith('"'));
    values.push(null, quoteString(FRESH));
    // a string attribute's wrong type is a number; with no literal around it, every type is tried
    if (strings || d.values.size === 0) values.push("0");
    if (d.values.size === 0) values.push("true");
    const unique = [...new Set(values)];
    if (unique.length > MAX_VALUES_PER_ATTRIBUTE)
      why.add(
        `an attribute is compared with more than ${MAX_VALUES_PER_ATTRIBUTE} values: only the first are tried`,
      );
    out.push({
      side: d.side,
      name: d.name,
      lc: d.lc,
      ident: identText(d.name),
      values: unique.slice(0, MAX_VALUES_PER_ATTRIBUTE),
    });
  }
  return { dims: out, groups, boundaries, why: [...why], schedd };
}
