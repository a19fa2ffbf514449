import type { FilterValue } from "./expression.js";

/** Orders two strings by Unicode code point (JavaScript's `<` orders UTF-16 units, which differs above U+FFFF). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (U+D800..U+DFFF) encode code points above every BMP unit; move them past U+FFFF.
    if (x >= 0xd800) x += x <= 0xdfff ? 0x2000 : -0x800;
    if (y >= 0xd800) y += y <= 0xdfff ? 0x2000 : -0x800;
    return x < y ? -1 : 1;
  }
  return a.length === b.length ? 0 : a.length < b.length ? -1 : 1;
}

function rank(v: unknown): number {
  if (v === null || v === undefined) return 0;
  switch (typeof v) {
    case "boolean":
      return 1;
    case "number":
    case "bigint":
      return 2;
    case "string":
      return 3;
    default:
      return Array.isArray(v) ? 4 : 5;
  }
}

/**
 * Compares an opcode field's JSON value with a filter value in the total order
 * null < boolean < number < string < array < object, so comparisons never fail.
 */
export function compareJson(field: unknown, value: FilterValue): number {
  const rf = rank(field);
  const rv = typeof value === "string" ? 3 : 2;
  if (rf !== rv) return rf < rv ? -1 : 1;
  if (rv === 2) {
    // Mixed number and bigint compare exactly with < and >.
    const x = field as number | bigint;
    const y = value as number | bigint;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return compareCodePoints(field as string, value as string);
}

/** Ganeti's FilterValue order, used by the reason predicate: every string sorts before every integer. */
export function compareFilterValues(a: FilterValue, b: FilterValue): number {
  const ta = typeof a !== "string";
  const tb = typeof b !== "string";
  if (ta !== tb) return ta ? 1 : -1;
  if (ta) {
    const x = a as number | bigint;
    const y = b as number | bigint;
    return x < y ? -1 : x > y ? 1 : 0;
  }
  return compareCodePoints(a as string, b as string);
}
