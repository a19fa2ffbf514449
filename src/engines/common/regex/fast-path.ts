/**
 * The fast path: a pattern that a backtracking engine provably runs in linear
 * time is handed to JavaScript's own RegExp, written from the tree (so the
 * origin's meaning is kept, not JavaScript's reading of the origin's text).
 *
 * Provably linear here means: deterministic (at every choice, alternatives
 * and loop-continue/loop-exit start with disjoint characters, and no loop body
 * can match empty), so a failed branch fails on its first character and each
 * attempt is linear; and each search is either anchored at the start of the
 * text or bounded in length, so the attempts at successive positions add up
 * to linear time too. Look-arounds must be bounded and deterministic as well.
 *
 * One widening: a choice that is visited at most once per attempt (an
 * alternation or an optional item outside every repetition) may overlap with
 * what follows it. A backtracking engine then tries at most the product of
 * those choices' arities paths per attempt, each linear as above, so the
 * search stays linear with that product as its factor; the product is capped
 * at {@link MAX_PATHS} and matches are charged for it.
 */
import type { Node, Parsed } from "./ast.js";
import { buildCharSet, classSource, type CharSet, type CharSetSpec } from "./charset.js";

/** Thrown (one shared instance, so no stack trace is captured per refusal) when a tree is not provably linear. */
class Unsafe extends Error {}
const UNSAFE = new Unsafe();

/**
 * A first-character summary: ASCII bits (four 32-bit words, code point c at
 * bit c % 32 of word c >> 5: no typed array allocated per summary, which
 * compiling a policy of thousands of patterns makes millions of), non-ASCII
 * ranges (null: unknown), end of text, or "match done".
 */
class First {
  w0 = 0;
  w1 = 0;
  w2 = 0;
  w3 = 0;
  hi: number[] | null = [];
  eof = false;
  accept = false;

  static accept(): First {
    const f = new First();
    f.accept = true;
    return f;
  }

  union(o: First): First {
    const f = new First();
    f.w0 = this.w0 | o.w0;
    f.w1 = this.w1 | o.w1;
    f.w2 = this.w2 | o.w2;
    f.w3 = this.w3 | o.w3;
    f.hi = this.hi === null || o.hi === null ? null : [...this.hi, ...o.hi];
    f.eof = this.eof || o.eof;
    f.accept = this.accept || o.accept;
    return f;
  }

  intersects(o: First): boolean {
    if ((this.w0 & o.w0) !== 0 || (this.w1 & o.w1) !== 0 || (this.w2 & o.w2) !== 0 || (this.w3 & o.w3) !== 0)
      return true;
    if (this.eof && o.eof) return true;
    const a = this.hi;
    const b = o.hi;
    if (a === null) return b === null || b.length > 0;
    if (b === null) return a.length > 0;
    for (let i = 0; i < a.length; i += 2)
      for (let j = 0; j < b.length; j += 2) if (a[i] <= b[j + 1] && b[j] <= a[i + 1]) return true;
    return false;
  }

  /** Adds an ASCII code point. */
  add(c: number): void {
    const bit = 1 << (c & 31);
    if (c < 32) this.w0 |= bit;
    else if (c < 64) this.w1 |= bit;
    else if (c < 96) this.w2 |= bit;
    else this.w3 |= bit;
  }
}

/** The summary of each set built (a First is never changed once made, so one is shared). */
const setFirsts = new WeakMap<CharSet, First>();

function firstOfSet(spec: CharSetSpec): First {
  const s = buildCharSet(spec);
  if (s === null || s.source === null) throw UNSAFE;
  const known = setFirsts.get(s);
  if (known !== undefined) return known;
  const f = new First();
  for (let c = 0; c < 128; c++) if (s.ascii[c] === 1) f.add(c);
  f.hi = s.hi === null ? null : [...s.hi];
  setFirsts.set(s, f);
  return f;
}

function firstOfChar(cp: number): First {
  const f = new First();
  if (cp < 128) f.add(cp);
  else f.hi = [cp, cp];
  return f;
}

interface Info {
  first: First;
  nullable: boolean;
}

/** The most paths per attempt that overlapping choices outside loops may give a pattern on the fast path. */
export const MAX_PATHS = 16;

/**
 * The proof's state: `paths` multiplies the arities of the overlapping choices met
 * outside loops; `loose` is false inside a repetition (or a look-around), where a
 * choice may be visited many times and must not overlap.
 */
interface Proof {
  paths: number;
}

/** Records an overlapping choice of `arity` ways visited once per attempt, or refuses it. */
function allowOverlap(proof: Proof | null, arity: number): void {
  if (proof === null) throw UNSAFE;
  proof.paths *= arity;
  if (proof.paths > MAX_PATHS) throw UNSAFE;
}

function check(n: Node, follow: First, inRep: boolean, proof: Proof | null = null): Info {
  switch (n.t) {
    case "empty":
      return { first: new First(), nullable: true };
    case "char":
      return { first: firstOfChar(n.cp), nullable: false };
    case "set":
      return { first: firstOfSet(n.set), nullable: false };
    case "assert": {
      if (n.kind === "bol" || n.kind === "bot" || n.kind === "wordb" || n.kind === "nwordb")
        return { first: new First(), nullable: true };
      const f = new First();
      f.eof = true;
      if (n.kind !== "eot") f.add(10);
      return { first: f, nullable: false };
    }
    case "look":
      if (maxLength(n.x) === Infinity) throw UNSAFE;
      check(n.x, First.accept(), false, null);
      return { first: new First(), nullable: true };
    case "group":
      if (inRep) throw UNSAFE;
      return check(n.x, follow, inRep, proof);
    case "cat": {
      const infos: Info[] = new Array<Info>(n.xs.length);
      let fol = follow;
      for (let i = n.xs.length - 1; i >= 0; i--) {
        const r = check(n.xs[i], fol, inRep, proof);
        infos[i] = r;
        fol = r.nullable ? r.first.union(fol) : r.first;
      }
      let first = new First();
      let nullable = true;
      for (const r of infos) {
        first = first.union(r.first);
        if (!r.nullable) {
          nullable = false;
          break;
        }
      }
      return { first, nullable };
    }
    case "alt": {
      const effs: First[] = [];
      let first = new First();
      let nullable = false;
      let overlap = false;
      for (const x of n.xs) {
        const r = check(x, follow, inRep, proof);
        const eff = r.nullable ? r.first.union(follow) : r.first;
        for (const e of effs) if (e.intersects(eff)) overlap = true;
        effs.push(eff);
        first = first.union(r.first);
        nullable ||= r.nullable;
      }
      if (overlap) allowOverlap(proof, n.xs.length);
      return { first, nullable };
    }
    case "rep": {
      const body = firstOf(n.x);
      if (body.nullable) throw UNSAFE;
      const loops = n.max === -1 || n.max > 1;
      // JavaScript resets a loop's captures on each iteration, the origins do not: no groups under a repeating loop
      const inner = check(n.x, body.first.union(follow), inRep || loops, loops ? null : proof);
      if (n.max !== n.min && inner.first.intersects(follow)) {
        // an optional item outside loops is a two-way choice visited once per attempt
        if (loops) throw UNSAFE;
        allowOverlap(proof, 2);
      }
      return { first: inner.first, nullable: n.min === 0 };
    }
  }
}

/** First characters and nullability, without checking choices. */
function firstOf(n: Node): Info {
  switch (n.t) {
    case "rep": {
      const r = firstOf(n.x);
      return { first: r.first, nullable: r.nullable || n.min === 0 };
    }
    case "group":
      return firstOf(n.x);
    case "cat": {
      let first = new First();
      for (const x of n.xs) {
        const r = firstOf(x);
        first = first.union(r.first);
        if (!r.nullable) return { first, nullable: false };
      }
      return { first, nullable: true };
    }
    case "alt": {
      let first = new First();
      let nullable = false;
      for (const x of n.xs) {
        const r = firstOf(x);
        first = first.union(r.first);
        nullable ||= r.nullable;
      }
      return { first, nullable };
    }
    case "look":
      return { first: new First(), nullable: true };
    default:
      return check(n, First.accept(), false);
  }
}

/** The longest match of a node in code points (Infinity when unbounded). */
function maxLength(n: Node): number {
  switch (n.t) {
    case "char":
    case "set":
      return 1;
    case "cat":
      return n.xs.reduce((s, x) => s + maxLength(x), 0);
    case "alt":
      return Math.max(...n.xs.map(maxLength));
    case "rep":
      return n.max === -1 ? (maxLength(n.x) === 0 ? 0 : Infinity) : n.max * maxLength(n.x);
    case "group":
      return maxLength(n.x);
    default:
      return 0;
  }
}

function anchoredAtStart(n: Node): boolean {
  switch (n.t) {
    case "assert":
      return n.kind === "bot";
    case "cat":
      return n.xs.length > 0 && anchoredAtStart(n.xs[0]);
    case "group":
      return anchoredAtStart(n.x);
    case "alt":
      return n.xs.every(anchoredAtStart);
    default:
      return false;
  }
}

/** Every set folds the same way; the fold flag of the pattern, or null when they differ. */
function uniformFold(n: Node, acc: { fold: boolean | null }): boolean {
  switch (n.t) {
    case "char": {
      // a letter outside a fold is case-sensitive: it cannot share a RegExp with folded parts
      const c = String.fromCodePoint(n.cp);
      if (c.toLowerCase() === c && c.toUpperCase() === c) return true;
      if (acc.fold === null) acc.fold = false;
      return acc.fold === false;
    }
    case "set":
      if (acc.fold === null) acc.fold = n.set.fold;
      return acc.fold === n.set.fold;
    case "cat":
    case "alt":
      return n.xs.every((x) => uniformFold(x, acc));
    case "rep":
    case "group":
    case "look":
      return uniformFold(n.x, acc);
    default:
      return true;
  }
}

function hex(cp: number): string {
  return `\\u{${cp.toString(16)}}`;
}

function emit(n: Node, word: string): string {
  switch (n.t) {
    case "empty":
      return "";
    case "char":
      return hex(n.cp);
    case "set":
      return classSource(n.set);
    case "cat":
      return n.xs.map((x) => emit(x, word)).join("");
    case "alt":
      return `(?:${n.xs.map((x) => emit(x, word)).join("|")})`;
    case "group":
      return `(${emit(n.x, word)})`;
    case "look":
      return `(?${n.behind ? "<" : ""}${n.negated ? "!" : "="}${emit(n.x, word)})`;
    case "rep": {
      const q =
        n.min === 0 && n.max === -1
          ? "*"
          : n.min === 1 && n.max === -1
            ? "+"
            : n.min === 0 && n.max === 1
              ? "?"
              : n.max === -1
                ? `{${n.min},}`
                : `{${n.min},${n.max}}`;
      return `(?:${emit(n.x, word)})${q}${n.greedy ? "" : "?"}`;
    }
    case "assert":
      switch (n.kind) {
        case "bot":
          return "^";
        case "eot":
          return "$";
        case "eotnl":
          return "(?=\\n?$)";
        case "bol":
          return "(?:^|(?<=\\n))";
        case "eol":
          return "(?:$|(?=\\n))";
        case "wordb":
          return `(?:(?<=${word})(?!${word})|(?<!${word})(?=${word}))`;
        case "nwordb":
          return `(?:(?<=${word})(?=${word})|(?<!${word})(?!${word}))`;
      }
  }
}

/**
 * JavaScript source and flags for a deterministic pattern, or null. `linear`:
 * anchored or bounded, so RegExp is linear on any input; otherwise a search
 * may restart at every position, which is linear only for inputs of bounded
 * length (the caller's SHORT_INPUT).
 */
export function fastPathSource(
  parsed: Parsed,
): { source: string; fold: boolean; linear: boolean; paths: number } | null {
  const n = parsed.node;
  const acc: { fold: boolean | null } = { fold: null };
  if (!uniformFold(n, acc)) return null;
  const proof: Proof = { paths: 1 };
  try {
    check(n, First.accept(), false, proof);
  } catch (e) {
    if (e instanceof Unsafe) return null;
    throw e;
  }
  const linear = anchoredAtStart(n) || maxLength(n) !== Infinity;
  const word = buildCharSet(parsed.word);
  if (word === null || word.source === null) return null;
  return { source: emit(n, word.source), fold: acc.fold === true, linear, paths: proof.paths };
}

function freeNullable(n: Node): boolean {
  switch (n.t) {
    case "empty":
      return true;
    case "rep":
      return n.min === 0 || freeNullable(n.x);
    case "group":
      return freeNullable(n.x);
    case "cat":
      return n.xs.every(freeNullable);
    case "alt":
      return n.xs.some(freeNullable);
    default:
      return false;
  }
}

/**
 * The same pattern for a yes/no search: items at either end that can match
 * empty without any assertion are dropped (`.*foo.*` finds a match exactly
 * when `foo` does). Returns the node itself when nothing can be dropped.
 */
export function trimForTest(n: Node): Node {
  if (n.t === "group") {
    const x = trimForTest(n.x);
    return x === n.x ? n : x;
  }
  if (n.t !== "cat") return n;
  let lo = 0;
  let hi = n.xs.length;
  while (lo < hi && freeNullable(n.xs[lo])) lo++;
  while (hi > lo && freeNullable(n.xs[hi - 1])) hi--;
  if (lo === 0 && hi === n.xs.length) return n;
  const xs = n.xs.slice(lo, hi);
  return xs.length === 0 ? { t: "empty" } : xs.length === 1 ? xs[0] : { t: "cat", xs };
}

/** JavaScript source for any pattern whose sets all have sources, without the linearity proof (see trusted.ts). */
export function javascriptSource(parsed: Parsed): { source: string; fold: boolean } | null {
  const acc: { fold: boolean | null } = { fold: null };
  if (!uniformFold(parsed.node, acc)) return null;
  const word = buildCharSet(parsed.word);
  if (word === null || word.source === null) return null;
  try {
    return { source: emit(parsed.node, word.source), fold: acc.fold === true };
  } catch (e) {
    if (e instanceof Unsafe) return null;
    throw e;
  }
}
