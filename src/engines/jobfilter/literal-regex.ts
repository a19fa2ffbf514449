/**
 * Most rule patterns are plain text with optional anchors (`^db1\.`, `ticket 7$`).
 * Those are tested with string methods instead of the regex engine; the answer
 * is the same because an ASCII literal matches exactly where its code units occur
 * (and PCRE's `$` matches at the end or before a final newline).
 */
import { inspectPattern } from "../common/regex/index.js";

// Characters with a meaning in a pattern outside a class; escaped, each stands for itself.
const SYNTAX = "^$\\.*+?()[]{}|/";

/** How a literal pattern matches: the whole string, a prefix, a suffix, or anywhere. */
export type LiteralAnchor = "exact" | "start" | "end" | "any";

/**
 * The literal text and anchoring of a pattern that is printable-ASCII literal
 * text between optional `^` and `$`, or null for any other pattern.
 */
export function literalPattern(source: string): { anchor: LiteralAnchor; text: string } | null {
  let i = 0;
  const start = source.startsWith("^");
  if (start) i = 1;
  let end = false;
  let text = "";
  while (i < source.length) {
    const c = source[i];
    const code = source.charCodeAt(i);
    if (code < 0x20 || code > 0x7e) return null;
    if (c === "\\") {
      const d = source[i + 1];
      if (d === undefined || !SYNTAX.includes(d)) return null;
      text += d;
      i += 2;
      continue;
    }
    if (c === "$" && i === source.length - 1) {
      end = true;
      break;
    }
    if (SYNTAX.includes(c) && c !== "/") return null;
    text += c;
    i++;
  }
  return { anchor: start ? (end ? "exact" : "start") : end ? "end" : "any", text };
}

/** A string test equivalent to the PCRE pattern's unanchored search, or null when the pattern is not literal text. */
export function literalTest(source: string): ((s: string) => boolean) | null {
  const lit = literalPattern(source);
  if (lit === null) return null;
  const text = lit.text;
  switch (lit.anchor) {
    case "exact":
      return (s) => s === text || s === text + "\n";
    case "start":
      return (s) => s.startsWith(text);
    case "end":
      return (s) => s.endsWith(text) || s.endsWith(text + "\n");
    case "any":
      return (s) => s.includes(text);
  }
}

/**
 * The longest run of literal text every match of the PCRE pattern contains
 * (its unanchored search), or null when there is none: the regex layer's own
 * prefilter (`inspectPattern`, read off the parsed tree), which its matcher
 * already relies on to reject a subject without it. So a string without the
 * run is matched by no such pattern, and a store may skip it before the regex
 * runs. A pattern that does not compile has none.
 */
export function requiredLiteral(source: string): string | null {
  const facts = inspectPattern(source, "pcre");
  return facts.ok && facts.value.required !== "" ? facts.value.required : null;
}
