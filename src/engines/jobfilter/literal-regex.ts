/**
 * Most rule patterns are plain text with optional anchors (`^db1\.`, `ticket 7$`).
 * Those are tested with string methods instead of the regex engine; the answer
 * is the same because an ASCII literal matches exactly where its code units occur
 * (and PCRE's `$` matches at the end or before a final newline).
 */

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

// Escapes that stand for one character of a class and consume no more of the pattern.
const CLASS_ESCAPES = "dDwWsSbB";

/**
 * The longest run of literal text every match of the PCRE pattern contains
 * (its unanchored search), or null when none is found. Only a pattern read
 * with certainty gives one: a `|` outside groups, an option group (`(?`),
 * `\Q`, an escape other than an escaped syntax character or `\d\w\s\b` and
 * their negations, a nested class or an unclosed `{` give null; groups and
 * classes are skipped, and a character a quantifier follows is not counted.
 * So a string without the run is matched by no such pattern, and a store
 * may skip it before the regex runs.
 */
export function requiredLiteral(source: string): string | null {
  let best = "";
  let run = "";
  let depth = 0;
  const end = () => {
    if (depth === 0 && run.length > best.length) best = run;
    run = "";
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    const code = source.charCodeAt(i);
    if (code < 0x20 || code > 0x7e) {
      end();
      continue;
    }
    if (c === "\\") {
      const d = source[i + 1];
      if (d !== undefined && SYNTAX.includes(d)) {
        if (depth === 0) run += d;
        i++;
        continue;
      }
      if (d !== undefined && CLASS_ESCAPES.includes(d)) {
        end();
        i++;
        continue;
      }
      return null;
    }
    if (c === "[") {
      end();
      let j = i + 1;
      if (source[j] === "^") j++;
      if (source[j] === "]") j++;
      for (; j < source.length && source[j] !== "]"; j++) {
        if (source[j] === "[") return null;
        if (source[j] === "\\") j++;
      }
      if (j >= source.length) return null;
      i = j;
      continue;
    }
    if (c === "(") {
      if (source[i + 1] === "?") return null;
      end();
      depth++;
      continue;
    }
    if (c === ")") {
      depth = Math.max(0, depth - 1);
      run = "";
      continue;
    }
    if (c === "|") {
      if (depth === 0) return null;
      continue;
    }
    if (c === "?" || c === "*" || c === "+" || c === "{") {
      // the character before is optional or repeated: not part of a run that every match holds whole
      run = run.slice(0, -1);
      end();
      if (c === "{") {
        const close = source.indexOf("}", i);
        if (close < 0) return null;
        i = close;
      }
      continue;
    }
    if (SYNTAX.includes(c) || c === "]" || c === "}") {
      end();
      continue;
    }
    if (depth === 0) run += c;
  }
  end();
  return best.length > 0 ? best : null;
}
