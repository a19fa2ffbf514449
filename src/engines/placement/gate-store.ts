import { filterGate, loadFilter, Side } from "./filter.js";
import { namesWithExact, type StoredPartition } from "./store.js";
import type { RuleData, RuleGates } from "./types.js";

/**
 * The rules' filter gates (filter.ts, FilterGate) as the bundle stores them:
 * worked out when the policy is published, so that loading reads them instead
 * of walking every rule and filling maps. One character per rule of the chain
 * for the flag and each side; the literals are not stored again (loading
 * takes them from the rule's stored expression), and each name index refers
 * to the names where the filters' columns hold them.
 */
export interface StoredGates {
  /** Per rule: "1" when it has a gate, else "0". */
  gated: string;
  /** Per rule: the digit of each side's {@link Side}. */
  userSide: string;
  groupSide: string;
  /** The rules of the chain whose filter lists a user name, by name (names in the filters' `users` column). */
  users: StoredIndex;
  /** The same for group names (in the filters' `groups` column). */
  groups: StoredIndex;
  /**
   * The rules whose user side is {@link Side.Prefix} or {@link Side.Contains},
   * ordered by their literal (UTF-16 code units, as `<` compares), then by
   * their place in the chain; absent in bundles stored before it was kept
   * (their decisions read every rule's gate).
   */
  userByLiteral?: number[];
  /** The distinct lengths of those literals, ascending. */
  userLengths?: number[];
  /** The same two for the group side. */
  groupByLiteral?: number[];
  groupLengths?: number[];
}

/**
 * Names sorted (by UTF-16 code units, as `<` compares), each given as its
 * position in a filters' name column, with how many rules list it; then
 * those rules, name after name, in chain order.
 */
export interface StoredIndex {
  at: number[];
  count: number[];
  rules: number[];
}

/** Per name: where a filters' column holds it, and the rules that list it. */
type Listing = Map<string, { at: number; rules: number[] }>;

function storedIndex(listing: Listing): StoredIndex {
  const names = [...listing.keys()].sort();
  const out: StoredIndex = { at: [], count: [], rules: [] };
  for (const name of names) {
    const { at, rules } = listing.get(name) as { at: number; rules: number[] };
    out.at.push(at);
    out.count.push(rules.length);
    for (const i of rules) out.rules.push(i);
  }
  return out;
}

function list(listing: Listing, name: string, at: number, i: number): void {
  const known = listing.get(name);
  if (known === undefined) listing.set(name, { at, rules: [i] });
  else if (known.rules[known.rules.length - 1] !== i) known.rules.push(i);
}

/** Lists rule `i` under each whole text of expression `e`, at its place after a name column of `before` names (see namesWithExact). */
function listExact(listing: Listing, p: StoredPartition, e: number, before: number, i: number): void {
  const x = p.exps;
  const at = (x.exactAt as number[])[e];
  const count = (x.exactCount as number[])[e];
  for (let k = 0; k < count; k++) list(listing, (x.exact as string[])[at + k], before + at + k, i);
}

/** Where each entry's items start in a flat column, given the count per entry (one more entry than `count`: the end). */
export function columnStarts(count: readonly number[]): Uint32Array {
  const out = new Uint32Array(count.length + 1);
  for (let i = 0; i < count.length; i++) out[i + 1] = out[i] + count[i];
  return out;
}

/**
 * Works out the gates of a partition's chain of built rules (`chain`, whose
 * columns `p` already holds) at publish time: linear in the rules, plus
 * sorting the names.
 */
export function storeGates(p: StoredPartition, chain: readonly RuleData[]): StoredGates {
  let gated = "";
  let userSide = "";
  let groupSide = "";
  const users: Listing = new Map();
  const groups: Listing = new Map();
  const userStart = columnStarts(p.filters.userCount);
  const groupStart = columnStarts(p.filters.groupCount);
  const userLit: string[] = [];
  const groupLit: string[] = [];
  const userByLiteral: number[] = [];
  const groupByLiteral: number[] = [];
  chain.forEach((r, i) => {
    const gate = filterGate(loadFilter(r.filter));
    gated += gate === null ? "0" : "1";
    userLit.push(gate === null ? "" : gate.userLiteral);
    groupLit.push(gate === null ? "" : gate.groupLiteral);
    if (gate !== null && gate.user >= Side.Prefix) userByLiteral.push(i);
    if (gate !== null && gate.group >= Side.Prefix) groupByLiteral.push(i);
    userSide += gate === null ? "0" : String(gate.user);
    groupSide += gate === null ? "0" : String(gate.group);
    const filter = p.nodes.filter[p.chain[i]];
    if (gate?.user === Side.Names) {
      const e = p.filters.userExp[filter];
      if (e >= 0) listExact(users, p, e, p.filters.users.length, i);
      else r.filter.users.forEach((u, k) => list(users, u, userStart[filter] + k, i));
    }
    if (gate?.group === Side.Names) {
      const e = p.filters.groupExp[filter];
      if (e >= 0) listExact(groups, p, e, p.filters.groups.length, i);
      else r.filter.groups.forEach((g, k) => list(groups, g, groupStart[filter] + k, i));
    }
  });
  return {
    gated,
    userSide,
    groupSide,
    users: storedIndex(users),
    groups: storedIndex(groups),
    userByLiteral: byLiteral(userByLiteral, userLit),
    userLengths: lengthsOf(userByLiteral, userLit),
    groupByLiteral: byLiteral(groupByLiteral, groupLit),
    groupLengths: lengthsOf(groupByLiteral, groupLit),
  };
}

/** `rules` ordered by their literal, then by place (see StoredGates.userByLiteral). */
function byLiteral(rules: number[], literal: readonly string[]): number[] {
  return rules.sort((x, y) => (literal[x] < literal[y] ? -1 : literal[x] > literal[y] ? 1 : x - y));
}

/** The distinct lengths of the rules' literals, ascending. */
function lengthsOf(rules: readonly number[], literal: readonly string[]): number[] {
  const seen = new Set<number>();
  for (const i of rules) seen.add(literal[i].length);
  return [...seen].sort((x, y) => x - y);
}

/**
 * A stored name index, searched in place: a name's rules are found by binary
 * search over the sorted names, so loading builds no map of thousands of
 * names (only the offsets of each name's rules).
 */
export class NameIndex {
  private readonly start: Uint32Array;
  private readonly names: string[];
  /** Per name position, its rules as a set once a decision has asked for them. */
  private readonly sets: (ReadonlySet<number> | undefined)[] = [];

  /** The index of `stored`, whose names are in the column `column` (filters' users or groups). */
  constructor(
    private readonly stored: StoredIndex,
    column: readonly string[],
  ) {
    this.names = stored.at.map((k) => column[k]);
    this.start = columnStarts(stored.count);
  }

  /** How many names the index holds. */
  get size(): number {
    return this.names.length;
  }

  /** The rules (indexes in the chain, ascending) whose filter lists `name`, or undefined when none does. */
  get(name: string): readonly number[] | undefined {
    const at = this.find(name);
    return at < 0 ? undefined : this.stored.rules.slice(this.start[at], this.start[at + 1]);
  }

  /** Appends the rules whose filter lists `name` to `out`. */
  collect(name: string, out: number[]): void {
    const at = this.find(name);
    if (at < 0) return;
    const rules = this.stored.rules;
    for (let k = this.start[at], end = this.start[at + 1]; k < end; k++) out.push(rules[k]);
  }

  /** The same rules as a set, made the first time a decision asks for the name and kept (no allocation per decision after it). */
  ruleSet(name: string): ReadonlySet<number> | undefined {
    const at = this.find(name);
    if (at < 0) return undefined;
    return (this.sets[at] ??= new Set(this.stored.rules.slice(this.start[at], this.start[at + 1])));
  }

  /** The name's position among the sorted names, by binary search, or -1. */
  private find(name: string): number {
    const names = this.names;
    let lo = 0;
    let hi = names.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const here = names[mid];
      if (here < name) lo = mid + 1;
      else if (here > name) hi = mid - 1;
      else return mid;
    }
    return -1;
  }
}

function bytesOf(digits: string): Uint8Array {
  const out = new Uint8Array(digits.length);
  for (let i = 0; i < digits.length; i++) out[i] = digits.charCodeAt(i) - 48;
  return out;
}

/** A side's literal for each rule of the chain: its expression's prefix or required text, as the side says. */
function literals(p: StoredPartition, sides: Uint8Array, exp: readonly number[]): string[] {
  const out: string[] = new Array<string>(sides.length).fill("");
  sides.forEach((side, i) => {
    if (side !== Side.Prefix && side !== Side.Contains) return;
    const e = exp[p.nodes.filter[p.chain[i]]];
    out[i] = side === Side.Prefix ? p.exps.prefix[e] : p.exps.required[e];
  });
  return out;
}

/**
 * The rules of one side whose literal a text holds as the side asks (at its
 * start for {@link Side.Prefix}, anywhere for {@link Side.Contains}), found by
 * binary search of the text's pieces of each literal length among the
 * literals in order (StoredGates.userByLiteral), so a decision need not read
 * every rule's gate.
 */
export class LiteralIndex {
  constructor(
    /** Rules ordered by literal, then place. */
    private readonly order: readonly number[],
    /** Per rule of the chain, this side's literal. */
    private readonly literal: readonly string[],
    /** Per rule of the chain, this side's {@link Side}. */
    private readonly side: Uint8Array,
    /** The literals' distinct lengths, ascending. */
    private readonly lengths: readonly number[],
  ) {}

  /** How many pieces of `text` {@link collect} looks up (each a binary search over the literals). */
  probes(text: string): number {
    let n = 0;
    for (const len of this.lengths) {
      if (len > text.length) break;
      n += text.length - len + 1;
    }
    return n;
  }

  /** Appends to `out` the rules whose literal `text` holds as their side asks (a rule may be appended more than once). */
  collect(text: string, out: number[]): void {
    const order = this.order;
    const literal = this.literal;
    for (const len of this.lengths) {
      if (len > text.length) break;
      for (let at = 0; at + len <= text.length; at++) {
        const piece = text.slice(at, at + len);
        for (let k = this.first(piece); k < order.length && literal[order[k]] === piece; k++) {
          const i = order[k];
          if (at === 0 || this.side[i] === Side.Contains) out.push(i);
        }
      }
    }
  }

  /** The first place in the order whose literal is not below `piece`. */
  private first(piece: string): number {
    const order = this.order;
    const literal = this.literal;
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (literal[order[mid]] < piece) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** The shortest chain whose decisions find their rules through the indexes rather than reading every gate. */
export const INDEXED_FROM = 32;

/** The rules of the chain without a gate (a decision runs each), ascending. */
function ungated(gated: string): number[] {
  const out: number[] = [];
  for (let i = gated.indexOf("0"); i >= 0; i = gated.indexOf("0", i + 1)) out.push(i);
  return out;
}

/** The loaded gates of a stored partition: flags as byte arrays, literals from the stored expressions, the indexes searched in place. */
export function loadGates(p: StoredPartition): RuleGates {
  const g = p.gates;
  const userSide = bytesOf(g.userSide);
  const groupSide = bytesOf(g.groupSide);
  const userLiteral = literals(p, userSide, p.filters.userExp);
  const groupLiteral = literals(p, groupSide, p.filters.groupExp);
  // a short chain's gates are read whole (cheaper than the indexes' searches), as are those of
  // bundles stored before the literal order was kept
  const ordered =
    g.gated.length >= INDEXED_FROM &&
    g.userByLiteral !== undefined &&
    g.userLengths !== undefined &&
    g.groupByLiteral !== undefined &&
    g.groupLengths !== undefined;
  return {
    gated: bytesOf(g.gated),
    userSide,
    userLiteral,
    groupSide,
    groupLiteral,
    users: new NameIndex(g.users, namesWithExact(p.filters.users, p.exps)),
    groups: new NameIndex(g.groups, namesWithExact(p.filters.groups, p.exps)),
    open: ordered ? ungated(g.gated) : null,
    userLiterals: ordered ? new LiteralIndex(g.userByLiteral!, userLiteral, userSide, g.userLengths!) : null,
    groupLiterals: ordered
      ? new LiteralIndex(g.groupByLiteral!, groupLiteral, groupSide, g.groupLengths!)
      : null,
  };
}
