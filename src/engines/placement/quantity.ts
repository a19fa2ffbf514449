/**
 * YuniKorn's resource quantities as its configuration validator reads them
 * (yunikorn-core `pkg/common/resources`): `10`, `10G`, `4Gi`, and for `vcore`
 * also `500m` (millicores; a plain number is cores). Quantities are int64; a
 * resource is a map from name to quantity. Only validation uses them.
 */

/** A parsed resource: quantities by resource name, in the order written. */
export type Resource = Map<string, bigint>;

const MAX_INT64 = (1n << 63n) - 1n;

const MULTIPLIERS: Readonly<Record<string, bigint>> = {
  "": 1n,
  m: 1n,
  k: 1_000n,
  M: 1_000_000n,
  G: 1_000_000_000n,
  T: 1_000_000_000_000n,
  P: 1_000_000_000_000_000n,
  E: 1_000_000_000_000_000_000n,
  Ki: 1n << 10n,
  Mi: 1n << 20n,
  Gi: 1n << 30n,
  Ti: 1n << 40n,
  Pi: 1n << 50n,
  Ei: 1n << 60n,
};

/** Digits, optional blanks (Go's `\s`), an optional suffix letter with an optional `i`. */
const LEGAL = /^([0-9]+)[\t\n\f\r ]*((?:[mkKMGTPE]i?)?)$/;

/** The resource name whose quantities are millicores. */
const VCORE = "vcore";

/** Parses one quantity, or gives YuniKorn's error text. */
export function parseQuantity(
  text: string,
  milli: boolean,
): { ok: true; value: bigint } | { ok: false; error: string } {
  const m = LEGAL.exec(text.trim());
  if (m === null) return { ok: false, error: "invalid quantity" };
  const number = BigInt(m[1]);
  if (number > MAX_INT64) return { ok: false, error: "invalid quantity: overflow" };
  const suffix = m[2];
  const scale = Object.hasOwn(MULTIPLIERS, suffix) ? MULTIPLIERS[suffix] : undefined;
  if (scale === undefined || (suffix === "m" && !milli)) return { ok: false, error: "invalid suffix" };
  let value = number * scale;
  if (milli && suffix !== "m") value *= 1000n;
  if (value > MAX_INT64) return { ok: false, error: "invalid quantity: overflow" };
  return { ok: true, value };
}

/** A resource from a configuration map (`vcore` in millicores), or the first quantity's error with its key. */
export function resourceFromConf(
  conf: ReadonlyMap<string, string> | null,
): { ok: true; value: Resource } | { ok: false; error: string; key: string } {
  const out: Resource = new Map();
  for (const [key, text] of conf ?? []) {
    const q = parseQuantity(text, key === VCORE);
    if (!q.ok) return { ok: false, error: q.error, key };
    out.set(key, q.value);
  }
  return { ok: true, value: out };
}

/** Go's `%v` of the resource's map: `map[memory:100 vcore:1000]`, keys sorted; `nil resource` for none. */
export function showResource(r: Resource | null): string {
  if (r === null) return "nil resource";
  const keys = [...r.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `map[${keys.map((k) => `${k}:${r.get(k)}`).join(" ")}]`;
}

/** Whether `smaller` fits in `larger`, a type `larger` does not define counting as unlimited and its negative values as 0. */
export function fitsMaxUndef(larger: Resource | null, smaller: Resource | null): boolean {
  if (smaller === null) return true;
  for (const [k, v] of smaller) {
    const big = larger?.get(k);
    if (big === undefined) continue;
    if (v > (big < 0n ? 0n : big)) return false;
  }
  return true;
}

/** Each type's smaller quantity; a type only one side defines keeps that side's; null when both are null. */
export function componentWiseMin(left: Resource | null, right: Resource | null): Resource | null {
  if (left === null) return right === null ? null : new Map(right);
  if (right === null) return new Map(left);
  const out: Resource = new Map();
  for (const [k, v] of left) {
    const w = right.get(k);
    out.set(k, w === undefined || v < w ? v : w);
  }
  for (const [k, v] of right) if (!left.has(k)) out.set(k, v);
  return out;
}

/** Adds `add` into `base`, saturating at int64's bounds as YuniKorn's addition does. */
export function addTo(base: Resource, add: Resource): void {
  for (const [k, v] of add) {
    const sum = (base.get(k) ?? 0n) + v;
    base.set(k, sum > MAX_INT64 ? MAX_INT64 : sum < -MAX_INT64 - 1n ? -MAX_INT64 - 1n : sum);
  }
}

/** Whether every quantity is zero (an empty resource is). */
export function isZero(r: Resource | null): boolean {
  if (r === null) return true;
  for (const v of r.values()) if (v !== 0n) return false;
  return true;
}

/** At least one quantity above zero and none below. */
export function strictlyAboveZero(r: Resource | null): boolean {
  if (r === null) return false;
  let above = false;
  for (const v of r.values()) {
    if (v < 0n) return false;
    if (v > 0n) above = true;
  }
  return above;
}
