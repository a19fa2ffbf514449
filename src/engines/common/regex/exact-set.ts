/**
 * The whole language of a small anchored pattern: `^(u1|v1)$` matches exactly
 * the texts "u1" and "v1", so a policy can test it as a set of names (a
 * lookup, no matcher built) and index its rules by those names. Only patterns
 * anchored at the start and at the very end of the text (`eot`, never "before a
 * final newline"), built of literal characters, small plain classes,
 * alternation, groups and bounded repetition qualify; anything else gives null.
 */
import type { Node } from "./ast.js";

/** Most texts a pattern's language may hold to be given as a set. */
export const MAX_EXACT_TEXTS = 16;

/** Most characters one text of such a language may have. */
const MAX_TEXT_LENGTH = 256;

/** Flattens groups and nested concatenations into one list of items. */
function items(n: Node, out: Node[]): void {
  if (n.t === "cat") for (const x of n.xs) items(x, out);
  else if (n.t === "group") items(n.x, out);
  else out.push(n);
}

/** Every text of `a` followed by every text of `b`, or null past the bounds. */
function product(a: readonly string[], b: readonly string[]): string[] | null {
  if (a.length * b.length > MAX_EXACT_TEXTS) return null;
  const out: string[] = [];
  for (const x of a)
    for (const y of b) {
      if (x.length + y.length > MAX_TEXT_LENGTH) return null;
      out.push(x + y);
    }
  return out;
}

/** The distinct texts of a list, in first-seen order, or null past the bound. */
function distinct(xs: readonly string[]): string[] | null {
  const out = [...new Set(xs)];
  return out.length > MAX_EXACT_TEXTS ? null : out;
}

/** The texts a node without assertions matches, or null when they are not a small finite set. */
function language(n: Node): string[] | null {
  switch (n.t) {
    case "empty":
      return [""];
    case "char":
      return [String.fromCodePoint(n.cp)];
    case "group":
      return language(n.x);
    case "set": {
      const s = n.set;
      if (s.negated || s.fold || s.props.length > 0 || s.subs !== undefined) return null;
      const out: string[] = [];
      for (let i = 0; i < s.ranges.length; i += 2) {
        if (out.length + s.ranges[i + 1] - s.ranges[i] + 1 > MAX_EXACT_TEXTS) return null;
        for (let cp = s.ranges[i]; cp <= s.ranges[i + 1]; cp++) out.push(String.fromCodePoint(cp));
      }
      return distinct(out);
    }
    case "cat": {
      let acc: string[] | null = [""];
      for (const x of n.xs) {
        const l = language(x);
        if (l === null) return null;
        acc = product(acc, l);
        if (acc === null) return null;
      }
      return distinct(acc);
    }
    case "alt": {
      const out: string[] = [];
      for (const x of n.xs) {
        const l = language(x);
        if (l === null) return null;
        out.push(...l);
        if (out.length > MAX_EXACT_TEXTS * 4) return null;
      }
      return distinct(out);
    }
    case "rep": {
      if (n.max < 0 || n.max > MAX_EXACT_TEXTS) return null;
      const one = language(n.x);
      if (one === null) return null;
      const out: string[] = [];
      let power: string[] | null = [""];
      for (let k = 0; k <= n.max; k++) {
        if (k >= n.min) out.push(...power);
        if (k === n.max) break;
        power = product(power, one);
        if (power === null) return null;
      }
      return distinct(out);
    }
    default:
      return null;
  }
}

/**
 * Characters the texts may have in all, per character of the pattern: a
 * policy stores them (a class or a repetition writes many texts in a few
 * characters, `^[ab]{4}c{250}$`), so its stored form stays within a small
 * multiple of its source.
 */
export const EXACT_CHARS_PER_PATTERN_CHAR = 4;

/**
 * The texts a pattern's tree matches when tested (a search anywhere in the
 * text), when they are few, the pattern is anchored at both ends of the text
 * and they hold at most {@link EXACT_CHARS_PER_PATTERN_CHAR} characters per
 * character of `pattern`; else null. A text is matched exactly when it is one
 * of them.
 */
export function exactTexts(n: Node, pattern: string): string[] | null {
  const xs: Node[] = [];
  items(n, xs);
  if (xs.length < 2) return null;
  const first = xs[0];
  const last = xs[xs.length - 1];
  if (first.t !== "assert" || first.kind !== "bot" || last.t !== "assert" || last.kind !== "eot") return null;
  const texts = language({ t: "cat", xs: xs.slice(1, -1) });
  if (texts === null) return null;
  let chars = 0;
  for (const t of texts) chars += t.length;
  return chars <= EXACT_CHARS_PER_PATTERN_CHAR * pattern.length ? texts : null;
}
