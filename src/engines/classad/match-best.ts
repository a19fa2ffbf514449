/**
 * The best-N form of a match (`"best": N` in the request): only the N
 * highest-ranked matches are kept, in a bounded heap, and every other machine
 * is only counted by what became of it. Per machine the decision then does its
 * evaluations and nothing else: no name read, no line, no log string.
 */
import type { MachineVerdict, MatchCounts, MatchVerdict } from "./match-verdict.js";

/** The largest `best` a request may ask for (the most machines a request may list). */
export const MAX_BEST = 2000;

/** Whether (rank r1, index i1) comes after (r2, i2) in the negotiator's order: rank descending, NaN last, ties by index. */
function after(r1: number, i1: number, r2: number, i2: number): boolean {
  if (r1 !== r1) return r2 === r2 || i1 > i2;
  if (r2 !== r2) return false;
  return r1 < r2 || (r1 === r2 && i1 > i2);
}

/**
 * The best `size` matches seen so far, as a heap whose root is the worst of
 * them; machines are offered in request order, so a later machine of equal
 * rank never displaces an earlier one (ties go to the first in the request).
 */
export class BestHeap {
  private readonly idx: Int32Array;
  private readonly rank: Float64Array;
  length = 0;

  constructor(readonly size: number) {
    this.idx = new Int32Array(size);
    this.rank = new Float64Array(size);
  }

  /** Offers machine `i` with rank `r`: kept when fewer than `size` are, or when it beats the worst kept. */
  offer(i: number, r: number): void {
    const { idx, rank } = this;
    if (this.length < this.size) {
      let k = this.length++;
      // sift up: the new entry rises while it comes after its parent
      while (k > 0) {
        const p = (k - 1) >> 1;
        if (!after(r, i, rank[p], idx[p])) break;
        idx[k] = idx[p];
        rank[k] = rank[p];
        k = p;
      }
      idx[k] = i;
      rank[k] = r;
      return;
    }
    if (!after(rank[0], idx[0], r, i)) return;
    // replace the root and sift down: the entry sinks below children that come after it
    const n = this.length;
    let k = 0;
    for (;;) {
      let c = 2 * k + 1;
      if (c >= n) break;
      if (c + 1 < n && after(rank[c + 1], idx[c + 1], rank[c], idx[c])) c++;
      if (!after(rank[c], idx[c], r, i)) break;
      idx[k] = idx[c];
      rank[k] = rank[c];
      k = c;
    }
    idx[k] = i;
    rank[k] = r;
  }

  /** The kept machines' indices and ranks, best first. */
  ordered(): { idx: number[]; rank: number[] } {
    const { idx, rank, length } = this;
    if (length <= 1) return length === 0 ? { idx: [], rank: [] } : { idx: [idx[0]], rank: [rank[0]] };
    const order: number[] = [];
    for (let k = 0; k < length; k++) order.push(k);
    order.sort((a, b) => (after(rank[a], idx[a], rank[b], idx[b]) ? 1 : -1));
    const outIdx: number[] = [];
    const outRank: number[] = [];
    for (const k of order) {
      outIdx.push(idx[k]);
      outRank.push(rank[k]);
    }
    return { idx: outIdx, rank: outRank };
  }
}

/** What a best-N decision found. */
export interface BestColumns {
  readonly ts: string;
  readonly jid: string;
  readonly job: { discarded: boolean };
  readonly schedd: { discarded: boolean } | undefined;
  /** The listed machines' names (the index when Name is not a string) and ranks, best first. */
  readonly names: readonly (string | number)[];
  readonly ranks: readonly number[];
  readonly counts: MatchCounts;
  readonly head: readonly string[];
  readonly tail: string | null;
}

/**
 * The best-N verdict, keys in the full answer's order: `job`, `machines`
 * (the listed ones, best first, lines as in the full answer), `best`,
 * `counts`, `log` (the schedd and job lines, a `Matched` line per listed
 * machine, the budget line), then `schedd` with a schedd ad.
 */
export function bestVerdict(c: BestColumns): MatchVerdict {
  const machines = new Array<MachineVerdict>(c.names.length);
  const log = [...c.head];
  const matched = `${c.ts} Matched job=${c.jid} machine=`;
  for (let k = 0; k < c.names.length; k++) {
    const name = c.names[k];
    machines[k] = { name, discarded: false, match: true, rank: c.ranks[k] };
    log.push(`${matched}${typeof name === "string" ? name : `#${name}`} rank=${String(c.ranks[k])}`);
  }
  if (c.tail !== null) log.push(c.tail);
  const verdict: MatchVerdict = {
    job: c.job,
    machines,
    best: machines.length > 0 ? machines[0].name : null,
    counts: c.counts,
    log,
  };
  if (c.schedd !== undefined) verdict.schedd = c.schedd;
  return verdict;
}

/** What is wrong with a `best` that is not an integer from 1 to MAX_BEST (the error names the field in front). */
export const BEST_MESSAGE = `must be an integer from 1 to ${MAX_BEST}`;
