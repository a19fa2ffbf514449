/**
 * The form of a flow mapping our YAML reader (yaml-read.ts) may leave unread
 * as a {@link LazyMap}: one line, where a block node starts, holding only
 *
 * - keys that are words (`[A-Za-z_][A-Za-z0-9_]*`) followed by `: `;
 * - plain words (letters, digits and `_./-`, from a letter, digit or `_`),
 *   double-quoted text without `\` and single-quoted text without `'`, none of
 *   them spread over lines;
 * - sequences of those, and mappings of all these nested at most
 *   {@link LAZY_LEVELS} levels deep in all;
 * - spaces between them (no tabs, comments, anchors, tags or aliases);
 *
 * followed by nothing but spaces to the line's end. Text of this form is valid
 * YAML whatever surrounds it (a word cannot go on past its last character,
 * quoted text has no escape to check, nothing can be anchored inside it), so
 * reading it later, or never, reads the same nodes as reading it in place. A
 * native search of {@link LAZY_MAP} checks the form; it is tried only on lines
 * of at most {@link MAX_LAZY_LINE} characters, which bounds its backtracking.
 */

/** How many collections a lazy mapping nests at most, itself included: a rule, two parents, a filter and its list. */
export const LAZY_LEVELS = 5;

/** The longest line on which the reader tries {@link LAZY_MAP}. */
export const MAX_LAZY_LINE = 2048;

const SP = " *";
const WORD = "[A-Za-z0-9_][A-Za-z0-9_./-]*";
const KEY = "[A-Za-z_][A-Za-z0-9_]*";
const SCALAR = `(?:${WORD}|"[^"\\\\\\r\\n]*"|'[^'\\r\\n]*')`;
/** Entries each followed by spaces and a comma, or by the closing bracket (so a trailing comma is allowed, as YAML allows it). */
const entries = (entry: string, close: string) => `(?:${entry}${SP}(?:,${SP}|(?=${close})))*${close}`;
const SEQ = `\\[${SP}${entries(SCALAR, "\\]")}`;

function mapping(levels: number): string {
  const value = levels <= 2 ? `${SCALAR}|${SEQ}` : `${SCALAR}|${SEQ}|${mapping(levels - 1)}`;
  return `\\{${SP}${entries(`${KEY}: +(?:${value})`, "\\}")}`;
}

/** A lazy mapping from its `{`, with the rest of its line blank (see the file's comment). */
export const LAZY_MAP = new RegExp(`${mapping(LAZY_LEVELS)}(?= *(?:\\r?\\n|$))`, "y");
