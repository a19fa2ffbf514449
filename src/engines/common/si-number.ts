/**
 * SI-suffixed numbers as pScheduler writes bandwidths and sizes: `50M`,
 * `600K`, `1Gi`, `1.5k`. Decimal prefixes are powers of 1000, `i` prefixes
 * powers of 1024.
 */

const SI = /^(-?)(\d+)(?:\.(\d+))?\s*([kmgtpezy]i?)?$/i;
const ORDER = "kmgtpezy";

/**
 * Parses an SI number; integers without a fraction stay exact (multiplied as
 * bigint while the result is unsafe), fractions are float times the multiplier.
 * Returns null for anything else (`50Mb`, `1e6`, the empty string).
 */
export function parseSiNumber(value: string | number): number | null {
  if (typeof value === "number") return Number.isFinite(value) ? value : null;
  const m = SI.exec(value);
  if (!m) return null;
  const [, sign, whole, frac, prefix] = m;
  let multiplier = 1n;
  if (prefix) {
    const power = ORDER.indexOf(prefix[0].toLowerCase()) + 1;
    const base = prefix.length === 2 ? 1024n : 1000n;
    multiplier = base ** BigInt(power);
  }
  if (frac !== undefined) {
    const v = Number(`${whole}.${frac}`) * Number(multiplier);
    return sign ? -v : v;
  }
  const exact = BigInt(whole) * multiplier;
  return Number(sign ? -exact : exact);
}
