/**
 * How gnt-filter prints values and tables: each value is Python's `str()` of
 * what LUXI decoded (so lists show as `[['jobid', ...]]`), and tables are laid
 * out as Ganeti's `FormatTable` lays them out.
 */

/** A JSON number kept as its literal text, so a nanosecond timestamp prints exactly as the service sent it. */
export class JsonNumber {
  constructor(readonly text: string) {}
}

/** A JSON value as the filter command reads it from the service: numbers keep their literal text. */
export type FilterJson = null | boolean | string | JsonNumber | FilterJson[] | { [key: string]: FilterJson };

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?/y;

/** Parses JSON text keeping each number's literal; throws SyntaxError on bad JSON (the service's answer). */
export function parseServiceJson(text: string): FilterJson {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  const fail = (): never => {
    throw new SyntaxError(`the service answered something that is not JSON (at character ${i})`);
  };
  const value = (): FilterJson => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      const out: { [key: string]: FilterJson } = {};
      ws();
      if (text[i] === "}") return (i++, out);
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        const key = string();
        ws();
        if (text[i++] !== ":") fail();
        out[key] = value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "}") return (i++, out);
        else fail();
      }
    }
    if (c === "[") {
      i++;
      const out: FilterJson[] = [];
      ws();
      if (text[i] === "]") return (i++, out);
      for (;;) {
        out.push(value());
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") return (i++, out);
        else fail();
      }
    }
    if (c === '"') return string();
    for (const [word, v] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ] as const) {
      if (text.startsWith(word, i)) return ((i += word.length), v);
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (m === null) return fail();
    i += m[0].length;
    return new JsonNumber(m[0]);
  };
  const string = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    if (i >= text.length) fail();
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const out = value();
  ws();
  if (i !== text.length) fail();
  return out;
}

/** Python's `repr` of a str: single quotes unless only double quotes avoid escaping. */
function reprString(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === "\\" || ch === quote) out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20 || (code >= 0x7f && code < 0xa0)) out += `\\x${code.toString(16).padStart(2, "0")}`;
    else out += ch;
  }
  return out + quote;
}

/** Python's `repr` of the float a JSON literal with a fraction or exponent decodes to. */
function reprFloat(x: number): string {
  if (!Number.isFinite(x)) return x > 0 ? "inf" : x < 0 ? "-inf" : "nan";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mantissa, expText] = x.toExponential().split("e");
  const exp = Number(expText);
  const digits = mantissa.replace("-", "").replace(".", "");
  const sign = x < 0 ? "-" : "";
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  const whole = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
  const frac = digits.slice(exp + 1);
  return `${sign}${whole}.${frac === "" ? "0" : frac}`;
}

/** Python's `repr` of a JSON value as Python's json module decodes it. */
export function pythonRepr(v: FilterJson): string {
  if (v === null) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "string") return reprString(v);
  if (v instanceof JsonNumber)
    return /[.eE]/.test(v.text) ? reprFloat(Number(v.text)) : BigInt(v.text).toString();
  if (Array.isArray(v)) return `[${v.map(pythonRepr).join(", ")}]`;
  return `{${Object.entries(v)
    .map(([k, x]) => `${reprString(k)}: ${pythonRepr(x)}`)
    .join(", ")}}`;
}

/** Python's `str()`: a string as itself, everything else as its repr (what `%s` prints). */
export function pythonStr(v: FilterJson): string {
  return typeof v === "string" ? v : pythonRepr(v);
}

/**
 * Ganeti's `FormatTable`: with a separator, cells joined by it; otherwise
 * columns padded to their widest cell and joined by one space, the last
 * column (left-aligned) not padded.
 */
export function formatTable(
  titles: string[],
  rows: string[][],
  header: boolean,
  separator: string | undefined,
): string[] {
  const data = header ? [titles, ...rows] : rows;
  if (separator !== undefined) return data.map((r) => r.join(separator));
  const widths = titles.map((t) => (header ? t.length : 0));
  for (const r of rows) r.forEach((cell, i) => (widths[i] = Math.max(widths[i], cell.length)));
  if (widths.length > 0) widths[widths.length - 1] = 0;
  return data.map((r) => r.map((cell, i) => cell.padEnd(widths[i])).join(" "));
}

type SortPart = bigint | string;

function sortKey(s: string): SortPart[] {
  return (s.match(/\d+|\D+/g) ?? []).map((g) => (/^\d/.test(g) ? BigInt(g) : g));
}

function comparePart(a: SortPart, b: SortPart): number {
  if (typeof a === "bigint" && typeof b === "bigint") return a < b ? -1 : a > b ? 1 : 0;
  if (typeof a === "bigint") return -1;
  if (typeof b === "bigint") return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Ganeti's `niceSortKey`: strings split into digit and non-digit runs, digit
 * runs compared as numbers and placed before text runs, so `a9` sorts before `a10`.
 */
export function niceSort<T>(items: readonly T[], key: (item: T) => string): T[] {
  const keyed = items.map((item) => ({ k: sortKey(key(item)), item }));
  keyed.sort((x, y) => {
    for (let i = 0; i < Math.min(x.k.length, y.k.length); i++) {
      const c = comparePart(x.k[i], y.k[i]);
      if (c !== 0) return c;
    }
    return x.k.length - y.k.length;
  });
  return keyed.map((x) => x.item);
}
