/**
 * Character sets of the linear-time matcher: explicit code-point ranges plus
 * Unicode property escapes, optionally negated and case-folded. Membership of
 * ASCII is a table; above ASCII a one-class JavaScript RegExp tests the single
 * code point (a class cannot backtrack, so that test is constant time).
 */

/** A set as the parser builds it. `props` are JavaScript class escapes (`\p{Nd}`, `\s`). */
export interface CharSetSpec {
  readonly ranges: readonly number[];
  readonly props: readonly string[];
  readonly negated: boolean;
  readonly fold: boolean;
  /** Further sets joined to this one (before `negated` applies): nested classes, negated multi-property escapes. */
  readonly subs?: readonly CharSetSpec[];
}

/** A set ready for matching. */
export interface CharSet {
  readonly spec: CharSetSpec;
  /** 1 where an ASCII code point is in the set. */
  readonly ascii: Uint8Array;
  /** Membership test for any code point. */
  has(cp: number): boolean;
  /** The class as JavaScript source (`[...]`, for the `u` flag, case-folded only when spec.fold); null when it needs nesting. */
  readonly source: string | null;
  /** Non-ASCII members as sorted inclusive ranges, or null when they are not known exactly (properties, negation). */
  readonly hi: readonly number[] | null;
}

/** Merges and sorts inclusive ranges given as a flat [lo, hi, lo, hi, …] list. */
export function normaliseRanges(flat: readonly number[]): number[] {
  const pairs: [number, number][] = [];
  for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i], flat[i + 1]]);
  pairs.sort((a, b) => a[0] - b[0]);
  const out: number[] = [];
  for (const [lo, hi] of pairs) {
    const n = out.length;
    if (n > 0 && lo <= out[n - 1] + 1) out[n - 1] = Math.max(out[n - 1], hi);
    else out.push(lo, hi);
  }
  return out;
}

function esc(cp: number): string {
  return `\\u{${cp.toString(16)}}`;
}

/** The JavaScript class source of a spec (without its fold flag, which goes on the RegExp). */
export function classSource(spec: CharSetSpec): string {
  let s = spec.negated ? "[^" : "[";
  const r = spec.ranges;
  for (let i = 0; i < r.length; i += 2) s += r[i] === r[i + 1] ? esc(r[i]) : `${esc(r[i])}-${esc(r[i + 1])}`;
  for (const p of spec.props) s += p;
  return s + "]";
}

function inRanges(r: readonly number[], cp: number): boolean {
  let lo = 0;
  let hi = (r.length >> 1) - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < r[2 * mid]) hi = mid - 1;
    else if (cp > r[2 * mid + 1]) lo = mid + 1;
    else return true;
  }
  return false;
}

// Non-ASCII code points that fold to an ASCII letter (Kelvin sign, long s).
const FOLD_HI: Readonly<Record<number, number>> = { 0x6b: 0x212a, 0x4b: 0x212a, 0x73: 0x17f, 0x53: 0x17f };

/**
 * Sets already built, by class source and fold: building one compiles a
 * RegExp and tests the 128 ASCII code points, and the same few sets (`.`,
 * `[a-z]`, `\d`) recur in every pattern of a policy with thousands of them.
 * A built set is never changed, so it is shared; the memo is emptied when full.
 */
const built = new Map<string, CharSet | null>();
const MAX_BUILT = 512;

/** Builds a matching set from its spec; null when JavaScript rejects a property name. */
export function buildCharSet(spec: CharSetSpec): CharSet | null {
  // a pattern's compile asks for each of its sets several times (the proof, the programs): once per spec object
  const same = bySpec.get(spec);
  if (same !== undefined) return same;
  const made = buildBySource(spec);
  bySpec.set(spec, made);
  return made;
}

/** Sets already built, by the spec object asked for (specs are never changed once parsed). */
const bySpec = new WeakMap<CharSetSpec, CharSet | null>();

function buildBySource(spec: CharSetSpec): CharSet | null {
  if (spec.subs !== undefined) return buildNested(spec);
  const source = classSource(spec);
  const key = (spec.fold ? "i" : "-") + source;
  const known = built.get(key);
  if (known !== undefined) return known;
  if (built.size >= MAX_BUILT) built.clear();
  const made = buildFlat(spec, source);
  built.set(key, made);
  return made;
}

function buildFlat(spec: CharSetSpec, source: string): CharSet | null {
  let re: RegExp;
  try {
    re = new RegExp(source, spec.fold ? "iu" : "u");
  } catch {
    return null;
  }
  const ascii = new Uint8Array(128);
  for (let c = 0; c < 128; c++) ascii[c] = re.test(String.fromCharCode(c)) ? 1 : 0;
  const simple = spec.props.length === 0 && !spec.fold;
  const ranges = spec.ranges;
  const negated = spec.negated;
  let hi: number[] | null = null;
  if (!negated && spec.props.length === 0) {
    const flat: number[] = [];
    for (let i = 0; i < ranges.length; i += 2)
      if (ranges[i + 1] >= 128) flat.push(Math.max(128, ranges[i]), ranges[i + 1]);
    if (spec.fold) {
      let onlyAscii = true;
      for (let i = 0; i < ranges.length; i += 2) if (ranges[i + 1] >= 128) onlyAscii = false;
      if (!onlyAscii) hi = null;
      else {
        for (const [a, h] of Object.entries(FOLD_HI)) if (ascii[Number(a)] === 1) flat.push(h, h);
        hi = normaliseRanges(flat);
      }
    } else hi = flat;
  }
  const has = simple
    ? (cp: number) => (cp < 128 ? ascii[cp] === 1 : inRanges(ranges, cp) !== negated)
    : (cp: number) => (cp < 128 ? ascii[cp] === 1 : re.test(String.fromCodePoint(cp)));
  return { spec, ascii, has, source, hi };
}

function buildNested(spec: CharSetSpec): CharSet | null {
  const own = buildCharSet({ ranges: spec.ranges, props: spec.props, negated: false, fold: spec.fold });
  const subs: CharSet[] = [];
  for (const s of spec.subs ?? []) {
    const b = buildCharSet(s);
    if (b === null) return null;
    subs.push(b);
  }
  if (own === null) return null;
  const negated = spec.negated;
  const member = (cp: number): boolean => {
    if (own.has(cp)) return !negated;
    for (const s of subs) if (s.has(cp)) return !negated;
    return negated;
  };
  const ascii = new Uint8Array(128);
  for (let c = 0; c < 128; c++) ascii[c] = member(c) ? 1 : 0;
  return { spec, ascii, has: (cp) => (cp < 128 ? ascii[cp] === 1 : member(cp)), source: null, hi: null };
}

/** A set of the one code point, folded or not. */
export function singleton(cp: number, fold: boolean): CharSetSpec {
  return { ranges: [cp, cp], props: [], negated: false, fold };
}
