/**
 * Did-you-mean: the known names closest to a name that was not found, by
 * optimal-string-alignment (Damerau–Levenshtein) distance, bounded so that the
 * work per candidate is at most `(a.length + 1) × (b.length + 1)` steps and
 * stops as soon as the bound is exceeded.
 */

/** Names longer than this are never compared: the answer would be noise and the work unbounded. */
export const MAX_NAME_LENGTH = 128;
/** At most this many candidates are examined per lookup. */
export const MAX_CANDIDATES = 10_000;

/**
 * The edit distance (insertions, deletions, substitutions, adjacent
 * transpositions) between `a` and `b`, or `max + 1` when it exceeds `max`.
 */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (a === b) return 0;
  const n = b.length;
  let prev2 = new Array<number>(n + 1).fill(0);
  let prev = Array.from({ length: n + 1 }, (_, j) => j);
  let cur = new Array<number>(n + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    cur[0] = i;
    let rowMin = i;
    for (let j = 1; j <= n; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, prev2[j - 2]! + 1);
      cur[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return max + 1;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return Math.min(prev[n]!, max + 1);
}

/** The largest distance worth suggesting for a name: a third of its length, at most 3 (0 for names under three characters). */
export function defaultMaxDistance(name: string): number {
  return Math.min(3, Math.floor(name.length / 3));
}

/**
 * The candidates nearest to `name` (case-insensitively), all at the smallest
 * distance found within `max`, in the order given; failing that, the
 * candidates `name` starts with, longest first; empty when none is close.
 */
export function closestNames(
  name: string,
  candidates: Iterable<string>,
  max = defaultMaxDistance(name),
): string[] {
  if (name.length > MAX_NAME_LENGTH) return [];
  const wanted = name.toLowerCase();
  let best = max + 1;
  let found: string[] = [];
  let seen = 0;
  for (const candidate of candidates) {
    if (++seen > MAX_CANDIDATES) break;
    if (candidate === name || candidate.length > MAX_NAME_LENGTH) continue;
    const d = editDistance(wanted, candidate.toLowerCase(), Math.min(max, best));
    if (d < best) {
      best = d;
      found = [candidate];
    } else if (d === best && d <= max && !found.includes(candidate)) found.push(candidate);
  }
  if (best <= max) return found;
  return prefixMatches(wanted, candidates);
}

/** Candidates of three or more characters that the name starts with (`username` → `user`), when no edit is close. */
function prefixMatches(wanted: string, candidates: Iterable<string>): string[] {
  const out: string[] = [];
  let seen = 0;
  for (const candidate of candidates) {
    if (++seen > MAX_CANDIDATES) break;
    if (
      candidate.length >= 3 &&
      candidate.length < wanted.length &&
      wanted.startsWith(candidate.toLowerCase())
    )
      out.push(candidate);
  }
  return out.sort((x, y) => y.length - x.length);
}

/** The single closest candidate to `name`, or undefined when none is close enough. */
export function closestName(name: string, candidates: Iterable<string>, max?: number): string | undefined {
  return closestNames(name, candidates, max)[0];
}

/** The text appended to a message: ` (did you mean \`x\`?)`, or "" when nothing is close. */
export function didYouMean(name: string, candidates: Iterable<string>, max?: number): string {
  const near = closestName(name, candidates, max);
  return near === undefined ? "" : ` (did you mean \`${near}\`?)`;
}
