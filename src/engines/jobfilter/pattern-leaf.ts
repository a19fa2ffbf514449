/**
 * The `=~` leaves, with literal patterns (see literal-regex.ts) tested inline by
 * string methods so a leaf costs one call, whatever the pattern.
 */
import type { PatternTest } from "./expression.js";
import { literalPattern } from "./literal-regex.js";
import type { ReasonEntry, Tri } from "./types.js";
import { ERROR, FALSE, TRUE } from "./types.js";

/** An `=~` leaf over an opcode field's resolved value at slot `i`: a non-string value is an evaluation error. */
export function opcodeRegexLeaf(source: string, re: PatternTest, i: number): (vals: unknown[]) => Tri {
  const lit = literalPattern(source);
  if (lit === null) {
    return (vals) => {
      const v = vals[i];
      return typeof v === "string" ? (re.test(v) ? TRUE : FALSE) : ERROR;
    };
  }
  const text = lit.text;
  // PCRE's `$` also matches before a final newline
  const nl = text + "\n";
  switch (lit.anchor) {
    case "exact":
      return (vals) => {
        const v = vals[i];
        return typeof v === "string" ? (v === text || v === nl ? TRUE : FALSE) : ERROR;
      };
    case "start":
      return (vals) => {
        const v = vals[i];
        return typeof v === "string" ? (v.startsWith(text) ? TRUE : FALSE) : ERROR;
      };
    case "end":
      return (vals) => {
        const v = vals[i];
        return typeof v === "string" ? (v.endsWith(text) || v.endsWith(nl) ? TRUE : FALSE) : ERROR;
      };
    case "any":
      return (vals) => {
        const v = vals[i];
        return typeof v === "string" ? (v.includes(text) ? TRUE : FALSE) : ERROR;
      };
  }
}

/** An `=~` leaf over a reason entry's source (slot 0) or reason (slot 1), both strings. */
export function reasonRegexLeaf(source: string, re: PatternTest, slot: 0 | 1): (entry: ReasonEntry) => Tri {
  const lit = literalPattern(source);
  if (lit === null) return (entry) => (re.test(entry[slot]) ? TRUE : FALSE);
  const text = lit.text;
  // PCRE's `$` also matches before a final newline
  const nl = text + "\n";
  switch (lit.anchor) {
    case "exact":
      return (entry) => (entry[slot] === text || entry[slot] === nl ? TRUE : FALSE);
    case "start":
      return (entry) => (entry[slot].startsWith(text) ? TRUE : FALSE);
    case "end":
      return (entry) => (entry[slot].endsWith(text) || entry[slot].endsWith(nl) ? TRUE : FALSE);
    case "any":
      return (entry) => (entry[slot].includes(text) ? TRUE : FALSE);
  }
}
