/**
 * The nodes our own YAML reader (yaml-read.ts) builds, the YAML 1.2 core
 * schema that types its plain scalars (as the `yaml` package resolves them by
 * default), and the line index that turns offsets into `line:column`.
 */

/** A scalar: its text after quoting and folding (`source`) and its typed value. */
export interface YamlScalar {
  readonly kind: "scalar";
  readonly offset: number;
  anchor?: string;
  /** The text after unquoting, unescaping and folding. */
  readonly source: string;
  /** The core-schema type: plain text is typed by its form, quoted and block text is a string. */
  readonly type: "null" | "bool" | "int" | "float" | "str";
  readonly value: null | boolean | number | string;
}

/** A key and its value in a mapping (an absent one is a null scalar). */
export interface YamlPair {
  readonly key: YamlNode;
  readonly value: YamlNode;
}

/** A block or flow mapping. */
export interface YamlMap {
  readonly kind: "map";
  readonly offset: number;
  anchor?: string;
  /** Set when the reader closes the mapping. */
  pairs: YamlPair[];
  /** True while the reader is still inside it (an alias to it then contains itself). */
  open: boolean;
}

/** A block or flow sequence. */
export interface YamlSeq {
  readonly kind: "seq";
  readonly offset: number;
  anchor?: string;
  /** Set when the reader closes the sequence. */
  items: YamlNode[];
  open: boolean;
}

/** `*name`: the node last anchored with that name before it, resolved as it is read. */
export interface YamlAlias {
  readonly kind: "alias";
  readonly offset: number;
  readonly name: string;
  readonly target: YamlNode | undefined;
  /** The alias sits inside the node it names. */
  readonly cyclic: boolean;
}

/** Any node of the tree. */
export type YamlNode = YamlScalar | YamlMap | YamlSeq | YamlAlias;

/** The text a {@link LazyMap} is read from, and how to read its pairs there. */
export interface LazyText {
  readonly src: string;
  /** The pairs of the flow mapping whose `{` is at `offset`, read the general way. */
  pairsAt(offset: number): YamlPair[];
}

/**
 * A flow mapping written plainly on one line (yaml-read-lazy.ts: scalars,
 * sequences of scalars and mappings, no properties, aliases, comments or
 * escapes), whose syntax the reader has checked but whose nodes it reads only
 * when they are first asked for: a placement rule of this form is decoded
 * from its text (quick-rule.ts) and never becomes nodes, and anything that
 * reads its pairs gets those the general reader gives at the same offsets.
 */
export class LazyMap implements YamlMap {
  readonly kind = "map" as const;
  declare anchor?: string;
  open = false;
  private read: YamlPair[] | null = null;

  constructor(
    readonly offset: number,
    readonly text: LazyText,
  ) {}

  get pairs(): YamlPair[] {
    return (this.read ??= this.text.pairsAt(this.offset));
  }

  set pairs(pairs: YamlPair[]) {
    this.read = pairs;
  }
}

/** A null scalar at `offset`: what an absent key or value reads as. */
export function emptyScalar(offset: number): YamlScalar {
  return { kind: "scalar", offset, source: "", type: "null", value: null };
}

const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT_OCT = /^0o[0-7]+$/;
const INT = /^[-+]?[0-9]+$/;
const INT_HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT_NAN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const FLOAT_EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;

/** Whether plain text may be typed as anything but a string: it is empty or starts with one of `~nNtTfF0-9+-.`. */
export function mayBeTyped(text: string): boolean {
  if (text.length === 0) return true;
  const c = text.charCodeAt(0);
  return (
    c === 126 ||
    c === 43 ||
    c === 45 ||
    c === 46 ||
    (c >= 48 && c <= 57) ||
    c === 110 ||
    c === 78 ||
    c === 116 ||
    c === 84 ||
    c === 102 ||
    c === 70
  );
}

/**
 * Whether plain text is a string by its form alone: it cannot be typed (see
 * {@link mayBeTyped}), or it starts with a letter and is neither a null nor a
 * bool (each five letters at most).
 */
export function plainIsString(text: string): boolean {
  if (!mayBeTyped(text)) return true;
  return text.charCodeAt(0) >= 65 && (text.length > 5 || !(NULL.test(text) || BOOL.test(text)));
}

/** Types a plain scalar's text by the YAML 1.2 core schema, in the `yaml` package's order of tests. */
export function resolvePlain(text: string): Pick<YamlScalar, "type" | "value"> {
  if (plainIsString(text)) return { type: "str", value: text };
  if (NULL.test(text)) return { type: "null", value: null };
  if (BOOL.test(text)) return { type: "bool", value: text[0] === "t" || text[0] === "T" };
  if (INT_OCT.test(text)) return { type: "int", value: parseInt(text.slice(2), 8) };
  if (INT.test(text)) return { type: "int", value: parseInt(text, 10) };
  if (INT_HEX.test(text)) return { type: "int", value: parseInt(text.slice(2), 16) };
  if (FLOAT_NAN.test(text))
    return {
      type: "float",
      value:
        text.endsWith("an") || text.endsWith("aN") || text.endsWith("AN")
          ? NaN
          : text[0] === "-"
            ? -Infinity
            : Infinity,
    };
  if (FLOAT_EXP.test(text) || FLOAT.test(text)) return { type: "float", value: parseFloat(text) };
  return { type: "str", value: text };
}

/** Types a scalar's text as an explicit core tag (`!!str`, `!!int`, …) says, or null when the text is not of that type. */
export function resolveTagged(tag: string, text: string): Pick<YamlScalar, "type" | "value"> | null {
  if (tag === "str" || tag === "") return { type: "str", value: text };
  const r = resolvePlain(text);
  return r.type === tag || (tag === "float" && r.type === "int") ? r : null;
}

/** Offsets to `line:column` (both from 1), by the line starts found in one pass. */
export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(source: string) {
    for (let i = source.indexOf("\n"); i !== -1; i = source.indexOf("\n", i + 1)) this.starts.push(i + 1);
  }

  /** The `line:column` of a source offset. */
  position(offset: number): string {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return `${lo + 1}:${offset - this.starts[lo] + 1}`;
  }
}
