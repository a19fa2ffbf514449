/**
 * Most rule patterns are plain text with optional anchors (`^db1\.`, `ticket 7$`).
 * Those are tested with string methods instead of the regex engine; the answer
 * is the same because an ASCII literal matches exactly where its code units occur
 * (and PCRE's `$` matches at the end or before a final newline).
 */
import { inspectPattern, requiredClassRun } from "../common/regex/index.js";

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

/** GLOB's characters with a meaning outside a class. */
const GLOB_SYNTAX = "*?[";

/** The body of a GLOB class admitting the code points of `codes` (1–127, ascending): `]` first, `-` first or last, `^` not first. */
function globClassBody(codes: readonly number[]): string {
  const plain = codes.filter((c) => c !== 0x5d && c !== 0x2d && c !== 0x5e);
  let body = codes.includes(0x5d) ? "]" : "";
  const dash = codes.includes(0x2d);
  if (dash && body === "") body = "-";
  for (let i = 0; i < plain.length;) {
    let j = i;
    while (j + 1 < plain.length && plain[j + 1] === plain[j] + 1) j++;
    body +=
      j - i >= 2
        ? `${String.fromCharCode(plain[i])}-${String.fromCharCode(plain[j])}`
        : plain
            .slice(i, j + 1)
            .map((c) => String.fromCharCode(c))
            .join("");
    i = j + 1;
  }
  if (codes.includes(0x5e)) body += "^";
  if (dash && body[0] !== "-") body += "-";
  return body;
}

/** One position of a GLOB pattern admitting (at least) the ASCII code points of `set` and every other character. */
function globPosition(set: Uint8Array | null): string {
  if (set === null) return "?";
  const inside: number[] = [];
  const outside: number[] = [];
  // NUL is left out: a value holding one is handed out whatever the pattern (see `requiredGlob`)
  for (let c = 1; c < 128; c++) (set[c] === 1 ? inside : outside).push(c);
  if (outside.length === 0) return "?";
  // no ASCII character: any other one
  if (inside.length === 0) return "[^\u0001-\u007f]";
  if (inside.length === 1) {
    const ch = String.fromCharCode(inside[0]);
    return GLOB_SYNTAX.includes(ch) ? `[${ch}]` : ch;
  }
  return inside.length <= outside.length ? `[${globClassBody(inside)}]` : `[^${globClassBody(outside)}]`;
}

/** The most GLOBs {@link requiredGlob} gives for one pattern (one a character of a position of few). */
const MAX_GLOBS = 4;

/**
 * SQLite GLOB patterns such that every ASCII string the PCRE pattern matches
 * (its unanchored search) matches one of them, or null when the pattern rules
 * out no ASCII text by a run of single characters (see `requiredClassRun`).
 * Each starts at a literal character where it can (SQLite then finds that
 * character before trying the rest, about half the cost of a class first):
 * at the run's first position admitting one ASCII character, else at its
 * position admitting the fewest (at most `MAX_GLOBS`), one GLOB per
 * character, the positions before it dropped; else the whole run. A value
 * that is not ASCII, or holds a NUL, may match the regex and none of them: a
 * store hands those out whatever the GLOBs (SQLite: its `length` in
 * characters differs from its length in bytes), then runs the regex.
 */
export function requiredGlob(source: string): readonly string[] | null {
  const run = requiredClassRun(source, "pcre");
  if (run === null) return null;
  const sizes = run.sets.map((set) => {
    if (set === null) return 128;
    let n = 0;
    for (let c = 1; c < 128; c++) n += set[c];
    return n;
  });
  let lead = sizes.indexOf(1);
  if (lead < 0) {
    lead = 0;
    for (let p = 1; p < sizes.length; p++) if (sizes[p] < sizes[lead]) lead = p;
    if (sizes[lead] === 0 || sizes[lead] > MAX_GLOBS) lead = -1;
  }
  const tokens = run.sets.map(globPosition);
  if (lead < 0) return [`${run.anchored ? "" : "*"}${tokens.join("")}*`];
  const start = run.anchored && lead === 0 ? "" : "*";
  const rest = `${tokens.slice(lead + 1).join("")}*`;
  const set = run.sets[lead]!;
  const out: string[] = [];
  for (let c = 1; c < 128; c++) if (set[c] === 1) out.push(`${start}${globPosition(only(c))}${rest}`);
  return out;
}

/** The ASCII set of one code point. */
function only(c: number): Uint8Array {
  const set = new Uint8Array(128);
  set[c] = 1;
  return set;
}
